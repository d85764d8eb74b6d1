"""pass@k and pass^k: how likely an agent is to solve a task at least once, or every time, in k tries.

With n graded replicates of a task of which c succeeded, the unbiased estimators are

- pass@k = 1 − C(n − c, k) / C(n, k): the chance that k replicates drawn without replacement
  from the n include at least one success;
- pass^k = C(c, k) / C(n, k): the chance that all k drawn replicates succeed.

Both need n ≥ k; a task with fewer graded replicates has no estimate at that k and is left out
of the arm's figure (and counted). An arm's figure is the mean of its tasks' estimates, so every
task weighs the same however many replicates it ran. At k = 1 both equal c / n.

Which replicates are trials: every graded one (succeeded, failed or ended in an error, the same
denominator as the pass rate); a replicate that was not graded is neither a success nor a
failure and is left out. Pure Python (no NumPy): records are built from these at the end of
every run; the intervals are added at render time in `analysis.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import comb

from coder_eval.models.experiment_results import PassKEstimate
from coder_eval.models.status import FinalStatus

K_LADDER = (1, 2, 3, 5, 10, 20, 50, 100)
"""The k values reported: those of this ladder up to the replicate count, plus the count itself."""

STRIP_MARKS = {"succeeded": "✓", "failed": "✗", "error": "!", "ungraded": "·"}
"""One mark per replicate outcome in a strip such as `✓✗✓✓`."""


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 − C(n − c, k) / C(n, k): the unbiased estimate of succeeding at least once in k tries."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k): the unbiased estimate of succeeding in all of k tries."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if k < 1 or n < k or not 0 <= c <= n:
        raise ValueError(f"pass@k needs 1 <= k <= n and 0 <= c <= n (got n={n}, c={c}, k={k})")


def k_values(replicates: int) -> list[int]:
    """The k values a run with this many replicates per task reports: 1, 2, 3, 5, 10, … and the count."""
    if replicates < 1:
        return []
    ks = [k for k in K_LADDER if k <= replicates]
    return ks if replicates in ks else [*ks, replicates]


@dataclass(frozen=True)
class TaskTrials:
    """One task under one arm: its replicate outcomes in order, and the graded trials among them."""

    task_id: str
    outcomes: tuple[str, ...]
    """Categories (`succeeded`, `failed`, `error`, `ungraded`) in replicate order."""

    @property
    def n(self) -> int:
        return sum(1 for o in self.outcomes if o != "ungraded")

    @property
    def c(self) -> int:
        return sum(1 for o in self.outcomes if o == "succeeded")

    @property
    def strip(self) -> str:
        """`✓✗✓✓`: ✓ succeeded, ✗ failed, ! error, · not graded."""
        return "".join(STRIP_MARKS[o] for o in self.outcomes)

    @classmethod
    def from_strip(cls, task_id: str, strip: str) -> TaskTrials:
        """The inverse of `strip` (a record keeps the strip, a report rebuilds the trials)."""
        categories = {mark: category for category, mark in STRIP_MARKS.items()}
        unknown = sorted(set(strip) - set(categories))
        if unknown:
            raise ValueError(f"replicate strip {strip!r} of {task_id} has unknown marks {unknown}")
        return cls(task_id, tuple(categories[m] for m in strip))

    def at(self, k: int) -> tuple[float, float] | None:
        """(pass@k, pass^k), or None when fewer than k replicates were graded."""
        if self.n < k:
            return None
        return pass_at_k(self.n, self.c, k), pass_hat_k(self.n, self.c, k)


def task_trials(rows: Iterable[tuple[str, int, FinalStatus]]) -> list[TaskTrials]:
    """(task id, replicate index, status) rows of one arm → one `TaskTrials` per task, sorted by id."""
    by_task: dict[str, list[tuple[int, str]]] = {}
    for task_id, replicate, status in rows:
        by_task.setdefault(task_id, []).append((replicate, status.category))
    return [
        TaskTrials(task_id, tuple(category for _, category in sorted(pairs)))
        for task_id, pairs in sorted(by_task.items())
    ]


def arm_estimates(tasks: Sequence[TaskTrials], ks: Sequence[int] | None = None) -> list[PassKEstimate]:
    """Per k, the mean over tasks with n ≥ k of their pass@k and pass^k (a k no task reaches is left out)."""
    if ks is None:
        ks = k_values(max((t.n for t in tasks), default=0))
    out = []
    for k in ks:
        values = [v for v in (t.at(k) for t in tasks) if v is not None]
        if not values:
            continue
        out.append(
            PassKEstimate(
                k=k,
                pass_at_k=sum(v[0] for v in values) / len(values),
                pass_hat_k=sum(v[1] for v in values) / len(values),
                tasks=len(values),
                tasks_excluded=len(tasks) - len(values),
            )
        )
    return out


def per_task_values(tasks: Sequence[TaskTrials], k: int) -> Mapping[str, tuple[float, float]]:
    """Task id → (pass@k, pass^k) for the tasks with at least k graded replicates."""
    return {t.task_id: v for t in tasks if (v := t.at(k)) is not None}
