"""pass@k / pass^k tables as plain cells, shared by the Markdown and HTML reports (experiment, variant, suite).

Each report shows, next to its pass rate, one row per (arm, k) with a bootstrap interval over
tasks, and per task the replicate strip (`✓✗✓✓`) with the task's own estimates at the largest k.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from coder_eval.experiments.analysis import PassKFigure, pass_k_figures, task_pass_k
from coder_eval.experiments.passk import TaskTrials, k_values
from coder_eval.experiments.stats import MeanEstimate, RateEstimate
from coder_eval.reports.markdown import cell

ARM_HEADERS = ("Variant", "k", "pass@k", "pass@k CI", "pass^k", "pass^k CI", "Tasks")
PER_TASK_LIMIT = 200
"""Rows of the per-task strip table shown; the rest are counted under it."""


def pass_k_note() -> str:
    """How the figures are estimated, stated once under a pass@k table."""
    return (
        "pass@k: chance that at least one of k tries succeeds; pass^k: chance that all k succeed. "
        "Per task the unbiased estimates over its n graded replicates with c successes, "
        "1 − C(n−c,k)/C(n,k) and C(c,k)/C(n,k); per arm their mean over tasks with n ≥ k, with a "
        "percentile bootstrap interval over tasks. A task's interval is for its true value: the Wilson "
        "interval of its success rate pushed through 1 − (1 − p)^k and p^k (at k = n the estimate is just "
        "whether any / all replicates succeeded, so it can sit outside that interval). "
        "Strip: ✓ succeeded, ✗ failed, ! error, · not graded."
    )


def _ci(estimate: MeanEstimate | RateEstimate) -> str:
    return f"[{estimate.low:.3f}, {estimate.high:.3f}]"


def _point(estimate: MeanEstimate | RateEstimate) -> float:
    return estimate.mean if isinstance(estimate, MeanEstimate) else estimate.rate


def arm_rows(variant_id: str, figures: Sequence[PassKFigure]) -> list[list[str]]:
    """One row per k: the arm's pass@k and pass^k with intervals and the tasks they average."""
    rows = []
    for f in figures:
        tasks = str(f.tasks) + (
            f" ({f.tasks_excluded} with < {f.k} graded replicates left out)" if f.tasks_excluded else ""
        )
        if f.tasks_quarantined:
            tasks += f" ({f.tasks_quarantined} quarantined left out)"
        rows.append(
            [
                variant_id,
                str(f.k),
                f"{f.pass_at_k.mean:.3f}",
                "n/a" if f.pass_at_k.degenerate else _ci(f.pass_at_k),
                f"{f.pass_hat_k.mean:.3f}",
                "n/a" if f.pass_hat_k.degenerate else _ci(f.pass_hat_k),
                tasks,
            ]
        )
    return rows


def arms_rows(
    trials_by_arm: Mapping[str, Sequence[TaskTrials]], ks: Sequence[int], weights: Mapping[str, float] | None = None
) -> list[list[str]]:
    """`arm_rows` for every arm, in the mapping's order (quarantined tasks left out or weighted)."""
    return [row for arm, tasks in trials_by_arm.items() for row in arm_rows(arm, pass_k_figures(tasks, ks, weights))]


def largest_k(trials_by_arm: Mapping[str, Sequence[TaskTrials]]) -> int | None:
    """The largest reported k over every task and arm (None when nothing was graded)."""
    ks = k_values(max((t.n for tasks in trials_by_arm.values() for t in tasks), default=0))
    return ks[-1] if ks else None


def task_headers(arms: Sequence[str], k: int, *, single: bool = False) -> list[str]:
    """Task, then per arm: its replicate strip, pass@k and pass^k at `k`."""
    cols = []
    for arm in arms:
        prefix = "" if single else f"{arm}: "
        cols += [f"{prefix}replicates", f"{prefix}pass@{k}", f"{prefix}pass^{k}"]
    return ["Task", *cols]


def task_rows(trials_by_arm: Mapping[str, Sequence[TaskTrials]], k: int) -> list[list[str]]:
    """Per task: each arm's strip and its pass@k / pass^k with the task's interval (`n/a` below k)."""
    by_arm = {arm: {t.task_id: t for t in tasks} for arm, tasks in trials_by_arm.items()}
    task_ids = sorted({task for tasks in by_arm.values() for task in tasks})
    rows = []
    for task_id in task_ids[:PER_TASK_LIMIT]:
        row = [task_id]
        for tasks in by_arm.values():
            row += _task_cells(tasks.get(task_id), k)
        rows.append(row)
    return rows


def hidden_tasks(trials_by_arm: Mapping[str, Sequence[TaskTrials]]) -> int:
    """Tasks beyond `PER_TASK_LIMIT` left out of the per-task table."""
    count = len({t.task_id for tasks in trials_by_arm.values() for t in tasks})
    return max(0, count - PER_TASK_LIMIT)


def _task_cells(trials: TaskTrials | None, k: int) -> list[str]:
    if trials is None:
        return ["–", "n/a", "n/a"]
    figure = task_pass_k(trials, k)
    if figure is None:
        reason = f"n/a ({trials.n} graded < {k})"
        return [trials.strip, reason, reason]
    return [trials.strip, _with_ci(figure.pass_at_k), _with_ci(figure.pass_hat_k)]


def _with_ci(estimate: RateEstimate) -> str:
    point = _point(estimate)
    if estimate.low == estimate.high:
        return f"{point:.3f}"
    return f"{point:.3f} {_ci(estimate)}"


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table with every cell escaped."""
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "| " + " | ".join("---" for _ in headers) + " |"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return lines


def markdown_section(
    trials_by_arm: Mapping[str, Sequence[TaskTrials]],
    *,
    single: bool = False,
    weights: Mapping[str, float] | None = None,
) -> list[str]:
    """The `pass@k and pass^k` section of a Markdown report; empty when nothing was graded."""
    k = largest_k(trials_by_arm)
    if k is None:
        return []
    ks = k_values(k)
    lines = ["## pass@k and pass^k", "", *markdown_table(ARM_HEADERS, arms_rows(trials_by_arm, ks, weights)), ""]
    if weights:
        lines += [
            "_Quarantined tasks: left out (or weighted) in the per-arm figures; their strips are shown below._",
            "",
        ]
    lines += [
        f"Per task, at k = {k}:",
        "",
        *markdown_table(task_headers(list(trials_by_arm), k, single=single), task_rows(trials_by_arm, k)),
    ]
    hidden = hidden_tasks(trials_by_arm)
    if hidden:
        lines += ["", f"_{hidden} more tasks are not shown in this table (they count in the figures above)._"]
    return [*lines, "", f"_{pass_k_note()}_"]
