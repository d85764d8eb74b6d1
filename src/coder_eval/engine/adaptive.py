"""Adaptive replicates (`--repeats auto`): the run planned in rounds instead of all at once.

The experiment plan holds the fixed design, every replicate up to `max_repeats` of every task
in both arms. The first round runs replicates 0 … min_repeats − 1 of every task in both arms;
after each round `experiments/stopping.review` reads every task's paired outcomes and says which
tasks stop (and by which rule); the next round runs one more replicate of each arm of every task
still going. The run ends when no task is left.

The decision after a round depends only on the recorded outcomes of the replicates scheduled so
far, so `--resume` replays the rounds from the records on disk: a replicate with a record is
taken as it is (never rerun), a missing one runs, and the same rounds and stops follow. The
settings are kept in adaptive.json, with every task's progress after each round; a resumed run
with other settings is refused, since it would not continue the same procedure.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from coder_eval.engine.report_files import read_adaptive
from coder_eval.engine.units import RunUnit
from coder_eval.errors import UsageError
from coder_eval.experiments.adaptive_settings import AdaptiveSettings
from coder_eval.models.adaptive import ADAPTIVE_JSON, AdaptiveRecord, AdaptiveTask
from coder_eval.models.results import EvaluationResult
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.compact import HeldResults, RowKey

if TYPE_CHECKING:  # the statistics (NumPy, SciPy) load only when a run is adaptive
    from coder_eval.engine.batch import BatchObserver
    from coder_eval.engine.executors import Executor
    from coder_eval.engine.orchestrator import RunOptions
    from coder_eval.engine.spend import SpendLimit
    from coder_eval.experiments.stopping import Review, Stop, TaskReplicates

Settle = Callable[[list[RunUnit]], list[RunUnit]]
"""Given a round's units, keep the recorded ones (resume) and return those that must run."""


@dataclass
class _TaskState:
    replicates: int
    stop: Stop | None = None
    stopped_after: int | None = None


@dataclass
class AdaptiveRounds:
    """The rounds of one adaptive run: which units each round asks for, and what was measured."""

    settings: AdaptiveSettings
    arms: tuple[str, str]
    design: dict[RowKey, RunUnit]
    """Every unit of the fixed design, by (variant, task, replicate)."""
    run_dir: Path
    task_ids: list[str] = field(default_factory=list)
    scores: dict[RowKey, float | None] = field(default_factory=dict)
    """Every scheduled unit that finished: its weighted score (None when it was not measured)."""
    rounds: int = 0
    last: Review | None = None
    stop_reason: str = ""
    finished: bool = False
    _tasks: dict[str, _TaskState] = field(default_factory=dict)

    @classmethod
    def of(
        cls, units: Iterable[RunUnit], settings: AdaptiveSettings, arms: tuple[str, str], run_dir: Path
    ) -> AdaptiveRounds:
        design = {(u.variant_id, u.task_id, u.replicate_index): u for u in units}
        ids = sorted({task for variant, task, _ in design if variant == arms[0]})
        return cls(settings, arms, design, run_dir, task_ids=ids)

    @property
    def fixed_units(self) -> int:
        return self.settings.max_repeats * len(self.task_ids) * len(self.arms)

    def first_round(self) -> list[RunUnit]:
        self._tasks = {t: _TaskState(self.settings.min_repeats) for t in self.task_ids}
        return self._units(range(self.settings.min_repeats), self.task_ids)

    def scheduled(self) -> int:
        """Units the rounds have asked for so far."""
        return sum(2 * s.replicates for s in self._tasks.values())

    def take(self, results: Iterable[EvaluationResult]) -> None:
        """Record the scores of finished units (the round's, or recorded ones on resume)."""
        for result in results:
            key = (result.variant_id, result.task_id, result.replicate_index)
            if key in self.design:
                self.scores[key] = result.weighted_score

    def kept_by(self, spend: SpendLimit | None) -> Callable[[list[EvaluationResult]], None]:
        """What to do with a round's units found recorded on resume: read them, and count their spend."""

        def kept(results: list[EvaluationResult]) -> None:
            self.take(results)
            if spend is not None:
                spend.add_all(results)

        return kept

    def next_round(self) -> list[RunUnit]:
        """Look at the data; stop the tasks a rule stops; the units of the next round (empty: done)."""
        self.rounds += 1
        active = {t for t, s in self._tasks.items() if s.stop is None}
        from coder_eval.experiments.stopping import review

        looked = review(self._replicates(), active, self.settings, self.arms)
        self.last = looked
        for task_id, stop in looked.stops.items():
            state = self._tasks[task_id]
            state.stop, state.stopped_after = stop, self.rounds
        going = sorted(t for t, s in self._tasks.items() if s.stop is None)
        if not going:
            self.finished = True
            self.stop_reason = self._why_done(looked)
            return []
        for task_id in going:
            self._tasks[task_id].replicates += 1
        index_of = {t: self._tasks[t].replicates - 1 for t in going}
        return [self.design[(arm, t, index_of[t])] for t in going for arm in self.arms]

    def interrupted(self, reason: str) -> None:
        self.finished = False
        self.stop_reason = reason

    def record(self) -> AdaptiveRecord:
        """adaptive.json as of the last look."""
        looked = self.last
        tasks = []
        for task_id in self.task_ids:
            state = self._tasks.get(task_id) or _TaskState(0)
            sequence = looked.tasks.get(task_id) if looked else None
            measured = self._task(task_id).differences()
            tasks.append(
                AdaptiveTask(
                    task_id=task_id,
                    replicates=state.replicates,
                    pairs=len(measured),
                    rule=state.stop.rule if state.stop else None,
                    stopped_after_round=state.stopped_after,
                    detail=state.stop.detail if state.stop else "",
                    mean_difference=sequence.mean if sequence else None,
                    low=sequence.low if sequence else -1.0,
                    high=sequence.high if sequence else 1.0,
                )
            )
        s = self.settings
        run = looked.run if looked else None
        return AdaptiveRecord(
            arms=list(self.arms),
            max_repeats=s.max_repeats,
            min_repeats=s.min_repeats,
            confidence=s.confidence,
            effect_size=s.effect_size,
            tasks_total=len(self.task_ids),
            rounds=self.rounds,
            units_spent=sum(1 for key in self.scores),
            units_fixed_design=self.fixed_units,
            e_better=run.e_up if run else 1.0,
            e_worse=run.e_down if run else 1.0,
            bar=run.bar if run else 2 / (1 - s.confidence),
            finished=self.finished,
            stop_reason=self.stop_reason,
            tasks=tasks,
        )

    def write(self) -> None:
        write_text_atomic(self.run_dir / ADAPTIVE_JSON, self.record().model_dump_json(indent=2) + "\n")

    def _units(self, indices: Iterable[int], task_ids: Iterable[str]) -> list[RunUnit]:
        wanted = list(indices)
        return [self.design[(arm, t, i)] for t in task_ids for i in wanted for arm in self.arms]

    def _task(self, task_id: str) -> TaskReplicates:
        from coder_eval.experiments.stopping import TaskReplicates

        state = self._tasks.get(task_id)
        count = state.replicates if state else 0
        arm_a, arm_b = self.arms
        return TaskReplicates(
            task_id,
            {i: self.scores[(arm_a, task_id, i)] for i in range(count) if (arm_a, task_id, i) in self.scores},
            {i: self.scores[(arm_b, task_id, i)] for i in range(count) if (arm_b, task_id, i) in self.scores},
        )

    def _replicates(self) -> list[TaskReplicates]:
        return [self._task(t) for t in self.task_ids]

    def _why_done(self, looked: Review) -> str:
        rules = {s.stop.rule for s in self._tasks.values() if s.stop}
        last = f"after round {self.rounds}"
        if "verdict" in rules:
            return f"the comparison was decided {last}: {looked.decision.outcome}"
        futile = next((s.stop.detail for s in self._tasks.values() if s.stop and s.stop.rule == "futile"), None)
        if futile is not None:
            return f"more replicates were futile {last}: {futile}"
        return f"every task stopped by its own rule {last}"


def check_resumable(run_dir: Path, rounds: AdaptiveRounds | None, *, resume: bool) -> None:
    """Refuse to resume an adaptive run under other settings, or to mix fixed and adaptive runs."""
    path = run_dir / ADAPTIVE_JSON
    if not resume:
        if rounds is None:
            path.unlink(missing_ok=True)  # a fixed run writing over an old adaptive one
        return
    recorded = read_adaptive(run_dir)
    if rounds is None:
        if recorded is not None:
            raise UsageError(
                f"--resume: {run_dir} is an adaptive run ({path.name}); resume it with --repeats auto and the "
                "settings it started with"
            )
        return
    if recorded is None:
        if any(run_dir.rglob("task.json")):
            raise UsageError(
                f"--resume: {run_dir} ran a fixed number of replicates; resume it with the same --repeats, or start "
                "the adaptive run in a new --run-dir"
            )
        return
    now = rounds.record()
    if recorded.settings_key() != now.settings_key():
        names = ("max_repeats", "min_repeats", "confidence", "effect_size", "arms")
        changed = [
            f"{name} {old} → {new}"
            for name, old, new in zip(names, recorded.settings_key(), now.settings_key(), strict=True)
            if old != new
        ]
        raise UsageError(
            f"--resume: {run_dir} started adaptive replicates with other settings ({'; '.join(changed)}); the "
            "decisions already taken would not be the same procedure. Resume with the settings it started with, "
            "or start a new --run-dir"
        )


@dataclass
class RoundsOutcome:
    fresh: HeldResults
    not_launched: int = 0
    """Units a spend limit left unlaunched (the run is then incomplete)."""


async def run_rounds(
    rounds: AdaptiveRounds,
    executor: Executor,
    options: RunOptions,
    settle: Settle,
    *,
    max_parallel: int,
    observer: BatchObserver | None,
    on_round: Callable[[int, int], None] | None = None,
) -> RoundsOutcome:
    """Run round after round until every task has stopped (or the spend limit is reached).

    `settle` keeps what is recorded (and feeds it to the reports); `on_round(scheduled, to_run)` is
    told after each round is planned, for the progress display and the run's plan file."""
    outcome = RoundsOutcome(HeldResults())
    wanted = rounds.first_round()
    to_run_total = 0
    rounds.write()
    async with executor_session(executor):
        while wanted:
            to_run = settle(wanted)
            to_run_total += len(to_run)
            if on_round is not None:
                on_round(rounds.scheduled(), to_run_total)
            if to_run:
                got = await executor.run(to_run, options, max_parallel=max_parallel, observer=observer)
                held = got if isinstance(got, HeldResults) else _held(got)
                rounds.take(held)
                outcome.fresh.absorb(held)
                spend = options.spend
                if spend is not None and len(held) < len(to_run):
                    outcome.not_launched = len(to_run) - len(held)
                    rounds.interrupted(spend.reason(outcome.not_launched))
                    rounds.write()
                    return outcome
            wanted = rounds.next_round()
            rounds.write()
    return outcome


def execute(
    units: list[RunUnit],
    rounds: AdaptiveRounds | None,
    executor: Executor,
    options: RunOptions,
    settle: Settle,
    max_parallel: int,
    observer: BatchObserver | None,
    on_round: Callable[[int, int], None] | None = None,
) -> tuple[HeldResults, int]:
    """A fixed run's units in one batch, or an adaptive run's rounds: the results, and how many
    units a spend limit left unlaunched."""
    if rounds is None:
        got = asyncio.run(executor.run(units, options, max_parallel=max_parallel, observer=observer))
        fresh = got if isinstance(got, HeldResults) else _held(got)
        return fresh, len(units) - len(fresh)
    ran = asyncio.run(
        run_rounds(rounds, executor, options, settle, max_parallel=max_parallel, observer=observer, on_round=on_round)
    )
    return ran.fresh, ran.not_launched


def _held(results: Iterable[EvaluationResult]) -> HeldResults:
    held = HeldResults()
    held.extend(results)
    return held


@contextlib.asynccontextmanager
async def executor_session(executor: Executor) -> AsyncIterator[None]:
    """The executor's own session around several `run` calls (Ray stays connected between rounds)."""
    opener = getattr(executor, "session", None)
    if opener is None:
        yield
        return
    async with opener():
        yield
