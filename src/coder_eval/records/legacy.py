"""Read task.json and run.json written in another format: the reference system's 0.11 and 0.12 lines.

Our records were modelled on the reference's documented schema, so most of a reference record
reads as it is. What differs is mapped here, each rule with the sentence that says so:

- a turn's (or message's, or the task's total) `token_usage: null`, which the reference writes
  for a row no agent ran: read as zero tokens;
- `error_details` as an object: kept as its JSON text;
- criterion results without a `weight` (the reference records `gating` only): 1 for gating
  criteria, 0 for informational ones; a `details: null` reads as empty;
- judge `findings` that are objects: kept as their JSON text;
- times written without a zone (the 0.11 line's): read as UTC, since records from both lines
  are compared and sorted together.

Everything else goes through the generic pass (`records/tolerant.py`): keys we have no field for
are listed as not carried, values that do not fit are removed (the field takes its default) and
listed. The notes travel on the record (`EvaluationResult.record_notes`), so whatever is written
from it (a re-graded task.json, run.json, run.md) still says what was read how.
"""

from __future__ import annotations

import copy
import json
import re
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from coder_eval.models.results import EvaluationResult, RecordNotes
from coder_eval.models.run import RunSummary
from coder_eval.records.tolerant import unknown_keys, validate_tolerantly

_CRITERIA_LISTS = ("success_criteria_results", "post_failure_criteria_results")


def _times(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _null_usage(holder: Any, key: str = "token_usage") -> bool:
    if isinstance(holder, dict) and key in holder and holder[key] is None:
        holder[key] = {}
        return True
    return False


def _fix_usage(raw: dict[str, Any], mapped: Counter[str]) -> None:
    turns = raw.get("iterations", raw.get("turns"))
    for turn in turns if isinstance(turns, list) else []:
        if _null_usage(turn):
            mapped["iterations[].token_usage was null (a row without an agent turn): read as zero tokens"] += 1
        for message in turn.get("messages") or [] if isinstance(turn, dict) else []:
            if _null_usage(message):
                mapped["iterations[].messages[].token_usage was null: read as zero tokens"] += 1
    if _null_usage(raw, "total_token_usage"):
        mapped["total_token_usage was null: read as zero tokens"] += 1


def _fix_error_details(raw: dict[str, Any], mapped: Counter[str]) -> None:
    details = raw.get("error_details")
    if isinstance(details, dict | list):
        raw["error_details"] = json.dumps(details, indent=2, sort_keys=True, default=str)
        mapped["error_details was an object: kept as its JSON text"] += 1


def _fix_criteria(raw: dict[str, Any], mapped: Counter[str]) -> None:
    for key in _CRITERIA_LISTS:
        results = raw.get(key)
        for result in results if isinstance(results, list) else []:
            if not isinstance(result, dict):
                continue
            if "weight" not in result:
                result["weight"] = 0.0 if result.get("gating") is False else 1.0
                mapped["criterion results carry no weight: read as 1 (gating) or 0 (informational)"] += 1
            if "details" in result and result["details"] is None:
                result["details"] = ""
            findings = result.get("findings")
            if isinstance(findings, list) and any(not isinstance(f, str) for f in findings):
                result["findings"] = [f if isinstance(f, str) else json.dumps(f, default=str) for f in findings]
                mapped["judge findings were objects: kept as their JSON text"] += 1
            _null_usage(result)


def _as_utc(holder: Any, key: str) -> bool:
    """Give a zone-less ISO time in `holder[key]` the UTC offset; True when it had none."""
    value = holder.get(key) if isinstance(holder, dict) else None
    if not isinstance(value, str):
        return False
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    if parsed.tzinfo is not None:
        return False
    holder[key] = parsed.replace(tzinfo=UTC).isoformat()
    return True


_NAIVE_NOTE = "times without a zone: read as UTC"


def _fix_times(raw: dict[str, Any], mapped: Counter[str]) -> None:
    holders: list[tuple[Any, str]] = [(raw, "started_at"), (raw, "completed_at")]
    turns = raw.get("iterations", raw.get("turns"))
    for turn in turns if isinstance(turns, list) else []:
        holders.append((turn, "timestamp"))
        messages = turn.get("messages") if isinstance(turn, dict) else None
        holders += [(m, "timestamp") for m in messages or [] if isinstance(messages, list)]
    for holder, key in holders:
        if _as_utc(holder, key):
            mapped[_NAIVE_NOTE] += 1


def _notes(
    mapped: Counter[str], unknown: Counter[str], removed: Counter[str], prior: RecordNotes | None
) -> RecordNotes | None:
    mapped_lines = [f"{line} ({_times(n, 'place')})" if n > 1 else line for line, n in mapped.items()]
    not_mapped = [f"{key}: not carried ({_times(n, 'place')})" for key, n in sorted(unknown.items())]
    not_mapped += [f"{key}: did not fit, read as the default ({_times(n, 'place')})" for key, n in removed.items()]
    if prior is not None:
        mapped_lines = [*prior.mapped, *(m for m in mapped_lines if m not in prior.mapped)]
        not_mapped = [*prior.not_mapped, *(n for n in not_mapped if n not in prior.not_mapped)]
    if not mapped_lines and not not_mapped:
        return None
    return RecordNotes(mapped=mapped_lines, not_mapped=not_mapped)


def read_task_record(data: dict[str, Any]) -> EvaluationResult:
    """A task.json of ours or of the reference's, with `record_notes` saying what was converted how."""
    raw = copy.deepcopy(data)
    prior_raw = raw.pop("record_notes", None)
    prior = RecordNotes.model_validate(prior_raw) if isinstance(prior_raw, dict) else None
    mapped: Counter[str] = Counter()
    _fix_usage(raw, mapped)
    _fix_error_details(raw, mapped)
    _fix_criteria(raw, mapped)
    _fix_times(raw, mapped)
    unknown = unknown_keys(EvaluationResult, raw)
    result, removed = validate_tolerantly(EvaluationResult, raw)
    notes = _notes(mapped, unknown, removed, prior)
    return result.model_copy(update={"record_notes": notes}) if notes is not None else result


_RECOMPUTED = ("pass_rate", "total_cost_usd", "agent_cost_usd")


def read_run_record(data: dict[str, Any]) -> RunSummary:
    """A run.json of ours or of the reference's; what differed lands in `record_conversions`."""
    raw = copy.deepcopy(data)
    naive = [key for key in ("start_time", "end_time") if _as_utc(raw, key)]
    unknown = unknown_keys(RunSummary, raw)
    summary, removed = validate_tolerantly(RunSummary, raw)
    lines = [f"run.json {key}: not carried" for key in sorted(unknown)]
    lines += [f"run.json {key}: did not fit, read as the default" for key in removed]
    if naive:
        lines.append(f"run.json {_NAIVE_NOTE} ({', '.join(naive)})")
    for key in _RECOMPUTED:
        recorded, ours = data.get(key), getattr(summary, key)
        if isinstance(recorded, int | float) and isinstance(ours, int | float) and abs(recorded - ours) > 1e-9:
            lines.append(f"run.json {key} was recorded as {recorded:g}; recomputed from the rows as {ours:g}")
    if not lines:
        return summary
    return summary.model_copy(update={"record_conversions": [*summary.record_conversions, *lines]})


_PLACES = re.compile(r" \((\d+) places?\)$")


def conversion_lines(notes: Iterable[RecordNotes | None]) -> list[str]:
    """One line per distinct note over the records' notes: how many records, and places, it concerns."""
    records: Counter[str] = Counter()
    places: Counter[str] = Counter()
    order: list[str] = []
    for note in notes:
        if note is None:
            continue
        for line in note.lines():
            match = _PLACES.search(line)
            key = line[: match.start()] if match else line
            if key not in records:
                order.append(key)
            records[key] += 1
            places[key] += int(match.group(1)) if match else 1
    out = []
    for key in order:
        spread = f", {places[key]} places" if places[key] > records[key] else ""
        out.append(f"{_times(records[key], 'record')}{spread}: {key}")
    return out
