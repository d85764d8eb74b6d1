"""Write the run-level files (run.json, run.md) from task results."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary, SkippedTask
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import RUN_MD
from coder_eval.records.store import write_run_summary
from coder_eval.records.summary import build_run_summary


def write_run_files(
    run_dir: Path,
    results: list[EvaluationResult],
    *,
    run_id: str | None = None,
    skipped: list[SkippedTask] | None = None,
    start_time: datetime | None = None,
    end_time: datetime | None = None,
    max_parallel: int = 1,
    planned: int | None = None,
    interrupted: bool = False,
) -> RunSummary:
    """Build the summary with the one shared builder and write run.json and run.md."""
    from coder_eval.reports.markdown import render_run_markdown

    summary = build_run_summary(
        run_id or run_dir.name,
        results,
        skipped=skipped,
        start_time=start_time,
        end_time=end_time,
        max_parallel=max_parallel,
    )
    if planned is not None:
        summary = summary.model_copy(
            update={"units_planned": planned, "units_finished": len(results), "interrupted": interrupted}
        )
    write_run_summary(run_dir, summary)
    write_text_atomic(run_dir / RUN_MD, render_run_markdown(summary, results))
    return summary
