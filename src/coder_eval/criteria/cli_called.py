"""The `cli_called` criterion: count recorded CLI invocations that match a structured pattern."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from coder_eval.common.argv_match import ArgvPattern, FlagTest, mismatches
from coder_eval.criteria.base import CheckContext, Criterion, join_details, single_file
from coder_eval.criteria.invocation_log import (
    Invocation,
    InvocationLogError,
    failed_write_marker,
    parse_invocations,
    read_invocations,
)
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_commands import CliCalledCriterion, FlagPredicate
from coder_eval.models.results import CriterionResult
from coder_eval.sandbox.cli_recorder import CliLogView
from coder_eval.sandbox.record_cli import COPY_PATH

DEFAULT_LOG = COPY_PATH
"""The documented default: with `sandbox.record_cli` it means the harness's own record (the file of that
name in the workspace is only a copy); without, a log the task's own mock writes there."""
AGENT_WRITABLE = "a log in the workspace, which the agent can write"

_SHOWN = 5
_SHOWN_CHARS = 160


@register_criterion("cli_called", spec=CliCalledCriterion)
class CliCalled(Criterion[CliCalledCriterion]):
    """Binary: the number of logged invocations matching the pattern lies in min_count..max_count.

    A missing or malformed log scores 0 with an error instead of counting as zero
    calls: otherwise a mock writing elsewhere would let every negative guard pass.
    """

    def evaluate(self, spec: CliCalledCriterion, ctx: CheckContext) -> CriterionResult:
        """Read the log, count matching records and report near misses when the count is off."""
        if ctx.cli_log is not None and spec.log in (None, DEFAULT_LOG):
            loaded = _harness_log(ctx.cli_log.view())
        else:
            loaded = _workspace_log(spec.log or DEFAULT_LOG, ctx)
        if isinstance(loaded, _Unusable):
            return self.result(spec, 0.0, details=loaded.details, error=loaded.error)
        invocations, note, source = loaded
        pattern = argv_pattern(spec)
        verdicts = [(call, mismatches(pattern, call.argv, call.tool)) for call in invocations]
        matched = [call for call, missed in verdicts if not missed]
        count = len(matched)
        passed = spec.min_count <= count and (spec.max_count is None or count <= spec.max_count)
        summary = f"read {len(invocations)} records, {count} matched (wanted {_wanted(spec)})"
        if passed:
            evidence = ""
        elif spec.max_count is not None and count > spec.max_count:
            evidence = "matching: " + "; ".join(_show(call) for call in matched[:_SHOWN])
        else:
            evidence = _near_misses(verdicts)
        return self.result(spec, 1.0 if passed else 0.0, details=join_details(note, summary, evidence, source))


@dataclass(frozen=True)
class _Unusable:
    details: str
    error: str


_Loaded = tuple[list[Invocation], str, str]
"""The invocations, a note on how the log was found, and where it came from."""


def _harness_log(view: CliLogView) -> _Loaded | _Unusable:
    """The recorder's log: the calls that were answered, each recorded before its answer."""
    if view.problem is not None:
        return _Unusable(view.source, f"the record_cli log cannot be trusted: {view.problem}")
    try:
        invocations = parse_invocations(view.data)
    except InvocationLogError as exc:
        return _Unusable(view.source, f"the record_cli log is unusable: {exc}")
    return invocations, "", join_details(f"from {view.source}", *view.notes)


def _workspace_log(log: str, ctx: CheckContext) -> _Loaded | _Unusable:
    """A log file in the workspace: the task's own mock's, or (no recorder ran here) record_cli's copy."""
    path, note = single_file(log, ctx)
    if path is None:
        return _Unusable(
            "a missing log fails rather than counting as zero calls",
            f"no invocation log to read: {note} (expected at {log} in the sandbox {ctx.root})",
        )
    failed_write = failed_write_marker(path, ctx.root)
    if failed_write is not None:
        return _Unusable(
            join_details(note, "the log is incomplete, so no count read from it can be trusted"), failed_write
        )
    try:
        invocations = read_invocations(path, ctx.root)
    except InvocationLogError as exc:
        return _Unusable(note, f"invocation log {log} is unusable: {exc}")
    return invocations, note, f"from {log}, {AGENT_WRITABLE}"


def argv_pattern(spec: CliCalledCriterion) -> ArgvPattern:
    """The matcher's plain-data view of a validated criterion."""
    if spec.verb_any_of is not None:
        verbs = tuple(tuple(verb.split()) for verb in spec.verb_any_of)
    else:
        verbs = (tuple(spec.verb.split()) if spec.verb is not None else (),)
    return ArgvPattern(
        tool=spec.tool,
        verbs=verbs,
        positional=tuple(spec.positional) if spec.positional is not None else None,
        flag_tests=tuple(_flag_test(name, pred) for name, pred in spec.flags.items()),
        value_flags=None if spec.value_flags is None else frozenset(spec.value_flags),
        ignore_flags=frozenset(spec.ignore_flags),
    )


def _flag_test(name: str, pred: FlagPredicate) -> FlagTest:
    """Translate one validated predicate; exactly one predicate key is set."""
    names = (name, *pred.aliases)
    if pred.equals is not None:
        return FlagTest(names, "equals", (pred.equals,))
    if pred.contains is not None:
        return FlagTest(names, "contains", (pred.contains,))
    if pred.matches_regex is not None:
        return FlagTest(names, "matches_regex", (pred.matches_regex,), pred.flags or 0)
    if pred.any_of is not None:
        return FlagTest(names, "any_of", tuple(pred.any_of))
    return FlagTest(names, "present" if pred.present else "absent")


def _wanted(spec: CliCalledCriterion) -> str:
    low, high = spec.min_count, spec.max_count
    if high is None:
        return f"at least {low}"
    if low == high:
        return f"exactly {low}"
    return f"at most {high}" if low == 0 else f"{low} to {high}"


def _near_misses(verdicts: list[tuple[Invocation, list[str]]]) -> str:
    """The closest non-matching records: same tool and verb first, then the fewest missed facets."""
    misses = [(call, missed) for call, missed in verdicts if missed]
    if not misses:
        return ""
    misses.sort(key=lambda item: ("tool" in item[1], "verb" in item[1], len(item[1]), item[0].line))
    shown = [f"{_show(call)} (missed {', '.join(missed)})" for call, missed in misses[:_SHOWN]]
    return "nearest misses: " + "; ".join(shown)


def _show(call: Invocation) -> str:
    """A record as one readable, length-capped command line with its log line and exit code."""
    command = shlex.join([call.tool, *call.argv] if call.tool else call.argv)
    if len(command) > _SHOWN_CHARS:
        command = command[: _SHOWN_CHARS - 1] + "…"
    exit_note = f", exit {call.exit_code}" if call.exit_code is not None else ""
    return f"line {call.line}{exit_note}: {command}"
