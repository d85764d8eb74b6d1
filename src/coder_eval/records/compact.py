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
from typing import Any

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


class HeldResults:
    """The finished units of a run, each held as its compressed compact record until the run ends.

    A unit's compact copy as Python objects is several kilobytes scattered among the unit's
    short-lived objects; as compressed JSON it is one block of about a kilobyte. `results()`
    decodes them all once, for the end-of-run builders.
    """

    def __init__(self) -> None:
        self._held: list[bytes] = []

    def __len__(self) -> int:
        return len(self._held)

    def append(self, result: EvaluationResult) -> None:
        self._held.append(zlib.compress(report_copy(result).model_dump_json(exclude_defaults=True).encode("utf-8"), 1))

    def results(self) -> list[EvaluationResult]:
        return [EvaluationResult.model_validate_json(zlib.decompress(held)) for held in self._held]
