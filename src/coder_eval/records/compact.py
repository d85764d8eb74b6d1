"""The part of a finished unit's record that a run keeps in memory for its end-of-run files.

A run writes each unit's full record (task.json) as the unit finishes, and builds run.json,
run.md, JUnit, experiment.json, variant.json and the suite rollups from all of them at its end.
Those builders read a small part of each record: identity, status, scores, criteria verdicts,
token and cost totals, error text, turn counts and two settings of the resolved task. Holding
only that part keeps a many-row run's memory near its fixed cost; the rest (command output,
transcripts, tool-call arguments, provenance) stays on disk, where `report` and `aggregate`
read it. `tests/cli/test_compact_reports.py` checks the outputs are the same either way.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from coder_eval.common.spool import Spool
from coder_eval.models.results import EvaluationResult
from coder_eval.models.telemetry import CommandStatistics, CommandTelemetry, TurnRecord


def _resolved_part(result: EvaluationResult) -> dict[str, Any]:
    """The resolved task's settings the run.json row reads (expected turns, installed tools)."""
    resolved = (result.task_config or {}).get("resolved")
    if not isinstance(resolved, dict):
        return {}
    kept: dict[str, Any] = {}
    limits = resolved.get("run_limits")
    if isinstance(limits, dict) and "expected_turns" in limits:
        kept["run_limits"] = {"expected_turns": limits["expected_turns"]}
    sandbox = resolved.get("sandbox")
    if isinstance(sandbox, dict):
        tools = {k: sandbox[k] for k in ("python", "node", "record_cli") if k in sandbox}
        if tools:
            kept["sandbox"] = tools
    return kept


def _command(command: CommandTelemetry) -> CommandTelemetry:
    return command.model_copy(update={"parameters": {}, "result_summary": None})


def _turn(turn: TurnRecord, last: bool) -> TurnRecord:
    """A turn's counts and crash state; the last keeps its reply (whether there is one is reported)."""
    return turn.model_copy(
        update={
            "user_input": "",
            "agent_output": turn.agent_output if last else "",
            "commands": [_command(c) for c in turn.commands],
            "messages": [],
            "provider_call_costs": [],
            "result_summary": None,
        }
    )


def report_copy(result: EvaluationResult) -> EvaluationResult:
    """What the end-of-run builders read of `result`; everything else is left out (it is in task.json)."""
    turns = result.iterations
    return result.model_copy(
        update={
            "task_description": "",
            "environment_info": {},
            "sandbox_path": None,
            "task_config": {"resolved": _resolved_part(result)},
            "secrets_in_artifacts": [],
            "config_fingerprint": None,
            "command_stats": CommandStatistics(),
            "pre_run_results": [],
            "post_run_results": [],
            "simulation": None,
            "iterations": [_turn(t, i == len(turns) - 1) for i, t in enumerate(turns)],
        }
    )


RowKey = tuple[str, str, int]
"""(variant_id, task_id, replicate_index): the order of run.json's rows and of every report."""


def row_key(result: EvaluationResult) -> RowKey:
    return (result.variant_id, result.task_id, result.replicate_index)


class HeldResults:
    """The finished units of a run, each kept as its compressed compact record until the run ends.

    The copies go to an anonymous temporary file (`Spool`), about half a kilobyte each for an
    agentless unit; memory keeps only each unit's row key. The end-of-run files are built by
    reading them back one at a time in row order (`ordered`), so a run's memory does not grow
    with its row count.
    """

    def __init__(self) -> None:
        self._spool = Spool()
        self._keys: list[RowKey] = []

    def __len__(self) -> int:
        return len(self._keys)

    def append(self, result: EvaluationResult) -> None:
        """Keep the compact copy of a full record."""
        self.add_copy(report_copy(result))

    def add_copy(self, copy: EvaluationResult) -> None:
        """Keep `copy`, already compact (from `report_copy`)."""
        self._spool.add(zlib.compress(copy.model_dump_json(exclude_defaults=True).encode("utf-8"), 1))
        self._keys.append(row_key(copy))

    def absorb(self, other: HeldResults) -> None:
        """Take over every copy `other` holds (as kept, without decoding them)."""
        for index, key in enumerate(other._keys):
            self._spool.add(other._spool.get(index))
            self._keys.append(key)

    def extend(self, results: Iterable[EvaluationResult]) -> None:
        for result in results:
            self.append(result)

    def _decode(self, index: int) -> EvaluationResult:
        return EvaluationResult.model_validate_json(zlib.decompress(self._spool.get(index)))

    def __iter__(self) -> Iterator[EvaluationResult]:
        """The copies in the order they were kept, decoded one at a time."""
        for index in range(len(self._keys)):
            yield self._decode(index)

    def keys(self) -> list[RowKey]:
        """Each copy's row key, in the order they were kept."""
        return list(self._keys)

    def ordered(self, *, by_task: bool = False) -> Iterator[EvaluationResult]:
        """The copies in row order, or with `by_task` in (task, variant, replicate) order.

        A stable sort: copies with equal keys come in the order they were kept."""
        keys = self._keys
        order = (lambda i: (keys[i][1], keys[i][0], keys[i][2])) if by_task else keys.__getitem__
        for index in sorted(range(len(keys)), key=order):
            yield self._decode(index)

    def results(self) -> list[EvaluationResult]:
        """Every copy, decoded (for callers that want a list: a few units, or tests)."""
        return list(self)

    def close(self) -> None:
        self._spool.close()


def held_from_run_dir(run_dir: Path) -> HeldResults:
    """Compact copies of every readable task.json under `run_dir`, read one at a time."""
    from coder_eval.errors import RecordError
    from coder_eval.records.layout import find_task_results
    from coder_eval.records.store import read_task_result

    held = HeldResults()
    for path in find_task_results(run_dir):
        try:
            held.append(read_task_result(path))
        except RecordError:
            continue  # the same records `read_task_results` leaves out (its warnings name them)
    return held
