"""What `run` refuses before it starts anything: invalid task files and an empty selection.

`run` applies every check `plan` applies (loading, static checks, variant resolution); one bad
file stops the whole run with exit 2 and the same messages `plan` prints, so a run never mixes
rows from a half-valid suite. A selection that matches nothing is an error saying why.
"""

from __future__ import annotations

from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.loading.loader import LoadReport, SelectOptions


def refuse_invalid(errors: list[TaskConfigError]) -> None:
    """UsageError (exit 2) listing every problem, when any task file is invalid."""
    if not errors:
        return
    lines = "; ".join(e.render() for e in errors)
    raise UsageError(
        f"{len(errors)} task file(s) are invalid, so nothing was run: {lines}. "
        "Fix them (`coder-eval plan` runs the same checks) or leave them out of the paths."
    )


def refuse_empty(report: LoadReport, select: SelectOptions, unit_count: int) -> None:
    """UsageError when the selection leaves no unit to run, naming what filtered the tasks out."""
    if unit_count:
        return
    reasons: list[str] = []
    if report.skipped:
        reasons.append(f"{len(report.skipped)} marked `skip: true` (add --include-skipped to run them)")
    if report.unselected:
        filters = " ".join(
            part
            for part in (
                f"--tags {','.join(select.tags)}" if select.tags else "",
                f"--exclude-tags {','.join(select.exclude_tags)}" if select.exclude_tags else "",
            )
            if part
        )
        reasons.append(f"{len(report.unselected)} left out by {filters}")
    if select.sample or select.sample_per_stratum:
        reasons.append("sampling (--sample/--sample-per-stratum) drew no row")
    why = "; ".join(reasons) or "the experiment or selection produced no units"
    raise UsageError(f"nothing to run: {len(report.files)} task file(s) found, none selected ({why}).")
