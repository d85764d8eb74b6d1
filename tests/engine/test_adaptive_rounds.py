"""engine/adaptive.py with an executor that makes up results: the rounds asked for, resume, the spend
limit, the executor session, and the refusals of check_resumable."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from coder_eval.engine.adaptive import AdaptiveRounds, check_resumable, run_rounds
from coder_eval.engine.spend import SpendLimit
from coder_eval.engine.units import RunUnit, resolve_agent
from coder_eval.errors import UsageError
from coder_eval.experiments.stopping import AdaptiveSettings
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.adaptive import ADAPTIVE_JSON, AdaptiveRecord
from coder_eval.models.results import EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.models.task import TaskDefinition
from coder_eval.models.telemetry import TokenUsage

ARMS = ("a", "b")
Score = Callable[[str, str, int], float]


def design(tmp_path: Path, tasks: int, max_repeats: int) -> list[RunUnit]:
    units = []
    for i in range(tasks):
        doc = {
            "task_id": f"t{i}",
            "description": "d",
            "initial_prompt": "p",
            "agent": {"type": "none"},
            "success_criteria": [{"type": "file_exists", "path": "x", "description": "x"}],
        }
        task = LoadedTask(TaskDefinition.model_validate(doc), tmp_path / f"t{i}.yaml")
        units += [RunUnit(task, resolve_agent(task), arm, r) for arm in ARMS for r in range(max_repeats)]
    return units


def result(unit: RunUnit, score: float, cost: float | None = None) -> EvaluationResult:
    return EvaluationResult.model_validate(
        {
            "task_id": unit.task_id,
            "variant_id": unit.variant_id,
            "replicate_index": unit.replicate_index,
            "final_status": FinalStatus.SUCCESS if score >= 0.5 else FinalStatus.FAILURE,
            "started_at": datetime(2026, 1, 1, tzinfo=UTC),
            "weighted_score": score,
            "total_token_usage": TokenUsage(total_cost_usd=cost),
        }
    )


class FakeExecutor:
    """Results from `score`; counts the batches, the units and the sessions opened."""

    name = "fake"
    hosts_gateways = False

    def __init__(self, score: Score, *, cost: float | None = None) -> None:
        self.score, self.cost = score, cost
        self.batches: list[list[tuple[str, str, int]]] = []
        self.sessions = 0

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        self.sessions += 1
        yield

    async def run(self, units: list[RunUnit], options: Any, *, max_parallel: int, observer: Any) -> list[Any]:
        self.batches.append([(u.variant_id, u.task_id, u.replicate_index) for u in units])
        out = []
        for unit in units:
            spend: SpendLimit | None = options.spend
            if spend is not None and spend.reached:
                break
            finished = result(unit, self.score(unit.variant_id, unit.task_id, unit.replicate_index), self.cost)
            if spend is not None:
                spend.add(finished)
            out.append(finished)
        return out


def go(rounds: AdaptiveRounds, executor: FakeExecutor, spend: SpendLimit | None = None) -> Any:
    options = cast(Any, SimpleNamespace(spend=spend))
    return asyncio.run(
        run_rounds(rounds, cast(Any, executor), options, lambda wanted: wanted, max_parallel=2, observer=None)
    )


def b_wins(variant: str, task: str, replicate: int) -> float:
    return 1.0 if variant == "b" else 0.0


def test_rounds_ask_for_the_first_round_then_one_more_per_arm(tmp_path: Path) -> None:
    """B wins three tasks every time and ties two: the won tasks are decided at 7, the tied ones run to 8."""
    units = design(tmp_path, 5, 8)
    rounds = AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=8), ARMS, tmp_path)
    executor = FakeExecutor(lambda v, t, r: 1.0 if v == "b" and t in ("t0", "t1", "t2") else 0.0)
    outcome = go(rounds, executor)
    assert executor.sessions == 1 and len(executor.batches) == 7  # one connection across all rounds
    assert sorted(executor.batches[0]) == sorted((arm, f"t{i}", r) for arm in ARMS for i in range(5) for r in (0, 1))
    assert sorted(executor.batches[1]) == sorted((arm, f"t{i}", 2) for arm in ARMS for i in range(5))
    assert sorted(executor.batches[-1]) == sorted((arm, t, 7) for arm in ARMS for t in ("t3", "t4"))
    assert len(outcome.fresh) == 74 and outcome.not_launched == 0
    record = AdaptiveRecord.model_validate_json((tmp_path / ADAPTIVE_JSON).read_bytes())
    assert record.finished and record.rounds == 7 and record.units_spent == 74 and record.units_fixed_design == 80
    assert [(t.rule, t.replicates, t.stopped_after_round) for t in record.tasks] == [
        ("decided", 7, 6),
        ("decided", 7, 6),
        ("decided", 7, 6),
        ("max-repeats", 8, 7),
        ("max-repeats", 8, 7),
    ]
    assert record.stop_reason == "every task stopped by its own rule after round 7"


def test_resume_replays_the_rounds_from_what_is_recorded(tmp_path: Path) -> None:
    """A settle that finds the first round recorded: only the later units run, with the same stops."""
    units = design(tmp_path, 5, 6)
    first = AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=6), ARMS, tmp_path)
    go(first, FakeExecutor(lambda v, t, r: 1.0))
    resumed = AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=6), ARMS, tmp_path)
    recorded = {(u.variant_id, u.task_id, u.replicate_index): u for u in units if u.replicate_index < 2}

    def settle(wanted: list[RunUnit]) -> list[RunUnit]:
        kept = [u for u in wanted if (u.variant_id, u.task_id, u.replicate_index) in recorded]
        resumed.take(result(u, 1.0) for u in kept)
        return [u for u in wanted if u not in kept]

    executor = FakeExecutor(lambda v, t, r: 1.0)
    options = cast(Any, SimpleNamespace(spend=None))
    asyncio.run(run_rounds(resumed, cast(Any, executor), options, settle, max_parallel=1, observer=None))
    assert [len(b) for b in executor.batches] == [10]  # round 2 only: replicate 2 of each task and arm
    assert resumed.record().model_dump(exclude={"saving"}) == first.record().model_dump(exclude={"saving"})


def test_a_spend_limit_stops_the_rounds_and_says_so(tmp_path: Path) -> None:
    units = design(tmp_path, 5, 8)
    rounds = AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=8), ARMS, tmp_path)
    outcome = go(rounds, FakeExecutor(b_wins, cost=0.01), SpendLimit(0.05))
    assert len(outcome.fresh) == 5 and outcome.not_launched == 15
    record = rounds.record()
    assert not record.finished and "spend limit reached" in record.stop_reason and record.rounds == 0


def test_check_resumable_refuses_other_settings_and_mixed_runs(tmp_path: Path) -> None:
    units = design(tmp_path, 5, 6)
    go(AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=6), ARMS, tmp_path), FakeExecutor(b_wins))
    other = AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=6, effect_size=0.3), ARMS, tmp_path)
    with pytest.raises(UsageError, match=r"effect_size 0.2 → 0.3"):
        check_resumable(tmp_path, other, resume=True)
    check_resumable(tmp_path, AdaptiveRounds.of(units, AdaptiveSettings(max_repeats=6), ARMS, tmp_path), resume=True)
    with pytest.raises(UsageError, match="is an adaptive run"):
        check_resumable(tmp_path, None, resume=True)
    check_resumable(tmp_path, None, resume=False)  # a fixed run over it: the stale record goes
    assert not (tmp_path / ADAPTIVE_JSON).exists()
    fixed_run = tmp_path / "fixed"
    (fixed_run / "a" / "t0" / "00").mkdir(parents=True)
    (fixed_run / "a" / "t0" / "00" / "task.json").write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError, match="ran a fixed number of replicates"):
        check_resumable(fixed_run, other, resume=True)


def test_a_fixed_run_does_not_load_the_statistics() -> None:
    """The engine (and the plan of every run) imports the adaptive settings, not NumPy or SciPy."""
    code = (
        "import sys, coder_eval.engine.run, coder_eval.cli.run_cmd; "
        "print(sorted({'numpy', 'scipy'} & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
