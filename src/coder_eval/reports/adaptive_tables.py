"""The "Adaptive replicates" section of experiment.md / experiment.html, as plain cells.

It says what the run spent against the fixed design, why it stopped, the run-level sequential
e-values, and for every task how many replicates it ran and which rule stopped it.
"""

from __future__ import annotations

from coder_eval.models.adaptive import AdaptiveRecord, AdaptiveTask
from coder_eval.reports.markdown import cell

TASK_HEADERS = (
    "Task",
    "Replicates per arm",
    "Pairs",
    "Mean difference",
    "Confidence sequence",
    "Stopped by",
    "After round",
    "Why",
)
RULE_MEANINGS = (
    ("verdict", "the comparison was decided (test, interval and sequential test agree): every task stopped"),
    ("futile", "no remaining replicates up to the cap could likely decide it: every task stopped"),
    ("decided", "this task's confidence sequence excludes zero: its direction is known"),
    ("negligible", "this task's confidence sequence lies inside ± the effect size"),
    ("max-repeats", "this task reached the cap"),
)


def summary_rows(record: AdaptiveRecord) -> list[tuple[str, str]]:
    """(label, value) pairs: the settings, the spend and the run-level evidence."""
    a, b = [*record.arms, "A", "B"][:2]
    return [
        ("Units spent", record.spent_sentence()),
        ("Stopped", record.stop_reason or ("still running" if not record.finished else "")),
        ("Rounds", str(record.rounds)),
        (
            "Settings",
            f"first round {record.min_repeats} replicates per task and arm, cap {record.max_repeats}, "
            f"confidence {record.confidence:g}, effect size of interest {record.effect_size:g}",
        ),
        (f"Sequential e-value: {b} better", _evalue(record.e_better, record.bar)),
        (f"Sequential e-value: {a} better", _evalue(record.e_worse, record.bar)),
    ]


def _evalue(value: float, bar: float) -> str:
    verdict = "confirms" if value >= bar else "does not confirm"
    return f"{value:.3g} ({verdict}; bar {bar:.3g})"


def task_rows(record: AdaptiveRecord) -> list[list[str]]:
    return [_task_cells(t) for t in record.tasks]


def _task_cells(task: AdaptiveTask) -> list[str]:
    mean = "n/a" if task.mean_difference is None else f"{task.mean_difference:+.3f}"
    return [
        task.task_id,
        str(task.replicates),
        str(task.pairs),
        mean,
        f"[{task.low:+.2f}, {task.high:+.2f}]",
        task.rule or "not stopped",
        "" if task.stopped_after_round is None else str(task.stopped_after_round),
        task.detail,
    ]


def method_note(record: AdaptiveRecord) -> str:
    """How the rounds and the sequential test work, once under the table."""
    return (
        f"Replicates were added in rounds: {record.min_repeats} per task and arm first, then one more per arm of "
        "every task still going. After each round the run-level sequential test (a betting e-value on the paired "
        "differences, anytime-valid: looking after every round does not inflate its error) and the verdict rule "
        "were checked. A 'better' or 'worse' needs the paired t-test, the bootstrap interval and the sequential "
        "e-value of that direction to agree. The confidence sequence of a task holds at every round at once. "
        "Rules: " + "; ".join(f"{name}: {meaning}" for name, meaning in RULE_MEANINGS) + "."
    )


def markdown_section(record: AdaptiveRecord | None) -> list[str]:
    if record is None:
        return []
    lines = ["## Adaptive replicates", "", "| Measure | Value |", "| --- | --- |"]
    lines += [f"| {cell(label)} | {cell(value, limit=1000)} |" for label, value in summary_rows(record)]
    lines += ["", "| " + " | ".join(TASK_HEADERS) + " |", "| --- | ---: | ---: | ---: | --- | --- | ---: | --- |"]
    lines += ["| " + " | ".join(cell(v, limit=400) for v in row) + " |" for row in task_rows(record)]
    lines += ["", f"_{method_note(record)}_"]
    return lines
