"""A unit's network in its log and record: the policy that holds, each refusal, and the reason it gives."""

from __future__ import annotations

from coder_eval.engine.task_log import TaskLog
from coder_eval.models.network import NetworkRecord, denied_reason
from coder_eval.models.status import FinalStatus
from coder_eval.sandbox.sandbox import Sandbox

_QUIET = frozenset({FinalStatus.SUCCESS})


def note_network(sandbox: Sandbox, log: TaskLog) -> None:
    """One task.log line: the network the unit has from now on."""
    record = sandbox.network_record()
    if record is None:
        return
    line = f"network: {record.mode}"
    if record.mode == "allowlist":
        shown = record.allow_hosts[:6]
        more = f" and {len(record.allow_hosts) - 6} more" if len(record.allow_hosts) > 6 else ""
        line += f" through the egress proxy ({', '.join(shown) or 'nothing'}{more})"
    if record.note:
        line += f" [{record.note}]"
    if not record.enforced:
        line += " (not enforced)"
    log.add(line)


def log_network(record: NetworkRecord | None, log: TaskLog) -> NetworkRecord | None:
    """Each refused destination once per phase, and a count of the attempts, in task.log."""
    if record is None or not record.events:
        return record
    said: set[tuple[str, str]] = set()
    for event in record.denied:
        key = (event.target(), event.phase)
        if key not in said:
            said.add(key)
            log.add(f"network: denied {event.target()} ({event.reason}) during {event.phase or 'the unit'}")
    allowed = len(record.events) - len(record.denied)
    extra = f", {record.dropped_events} more not listed" if record.dropped_events else ""
    log.add(f"network: {len(record.events)} egress attempt(s), {allowed} allowed, {len(record.denied)} denied{extra}")
    return record


def with_network_reason(message: str | None, status: FinalStatus, record: NetworkRecord | None) -> str | None:
    """The unit's reason, with the first refusal added when the unit did not succeed after one."""
    if status in _QUIET:
        return message
    reason = denied_reason(record)
    if reason is None:
        return message
    return f"{message}; {reason}" if message else reason
