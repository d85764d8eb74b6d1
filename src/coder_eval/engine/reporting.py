"""Re-render and rebuild reports from a finished run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from coder_eval.errors import RecordError, UsageError
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.records.atomic import write_text_atomic
from coder_eval.records.layout import RUN_JSON, find_task_results
from coder_eval.records.run_files import write_run_files
from coder_eval.records.store import read_run_summary, read_task_result, read_task_results

ReportFormat = Literal["md", "html", "junit"]


def _check_run_dir(run_dir: Path) -> None:
    if not run_dir.is_dir():
        raise UsageError(f"run directory {run_dir} does not exist")


def _row_key(row: dict[str, object]) -> tuple[str, str, int]:
    return (str(row.get("variant_id")), str(row.get("task_id")), int(str(row.get("replicate_index") or 0)))


def _results_by_row(summary: RunSummary, results: list[EvaluationResult]) -> dict[int, EvaluationResult]:
    by_key = {(r.variant_id, r.task_id, r.replicate_index): r for r in results}
    out: dict[int, EvaluationResult] = {}
    for i, row in enumerate(summary.task_results):
        match = by_key.get(_row_key(row))
        if match is not None:
            out[i] = match
    return out


def junit_text(
    run_dir: Path,
    summary: RunSummary,
    results: list[EvaluationResult],
    suite_gates: list[tuple[str, bool, str]] | None = None,
) -> str:
    """The one JUnit builder, shared by `run --junit-xml` and `report -f junit`."""
    from coder_eval.reports.junit import render_junit

    return render_junit(summary, _results_by_row(summary, results), suite_gates=suite_gates or None)


def suite_gates_on_disk(run_dir: Path) -> list[tuple[str, bool, str]]:
    """The suite gates of the suite.json files a run wrote (the JUnit renderer orders them)."""
    from coder_eval.models.suite import SuiteRollup
    from coder_eval.suites import suite_gate_entries

    rollups = []
    for path in sorted(run_dir.rglob("suite.json")):
        try:
            rollups.append(SuiteRollup.model_validate_json(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise RecordError(f"{path} is not a readable suite rollup ({exc.__class__.__name__})") from None
    return suite_gate_entries(rollups)


def render_report(run_dir: Path, fmt: ReportFormat, output: Path | None) -> tuple[str | None, list[Path]]:
    """Markdown goes to stdout (returned) unless `output`; html and junit are written to files."""
    from coder_eval.reports.html import render_run_html, render_task_html
    from coder_eval.reports.markdown import render_run_markdown

    _check_run_dir(run_dir)
    summary = read_run_summary(run_dir)
    results, _warnings = read_task_results(run_dir)
    if fmt == "md":
        text = render_run_markdown(summary, results)
        if output is None:
            return text, []
        write_text_atomic(output, text)
        return None, [output]
    if fmt == "junit":
        target = output or run_dir / "junit.xml"
        write_text_atomic(target, junit_text(run_dir, summary, results, suite_gates_on_disk(run_dir)))
        return None, [target]
    written: list[Path] = []
    paths = find_task_results(run_dir)
    if output is not None and len(paths) == 1:
        write_text_atomic(output, render_task_html(read_task_result(paths[0])))
        return None, [output]
    for path in paths:
        target = path.with_name("task.html")
        write_text_atomic(target, render_task_html(read_task_result(path)))
        written.append(target)
    run_html = output or run_dir / "run.html"
    write_text_atomic(run_html, render_run_html(summary, results))
    return None, [run_html, *written]


def aggregate(run_dir: Path, output: Path | None) -> tuple[RunSummary, list[str]]:
    """Rebuild run.json and run.md from the task.json files under `run_dir`."""
    _check_run_dir(run_dir)
    results, warnings = read_task_results(run_dir)
    if not results and not (run_dir / RUN_JSON).is_file():
        raise RecordError(f"{run_dir} holds no task.json files; nothing to aggregate")
    skipped = []
    try:
        previous = read_run_summary(run_dir)
        skipped = previous.skipped_tasks
        max_parallel = previous.max_parallel
    except RecordError:
        max_parallel = 1
    target = output or run_dir
    target.mkdir(parents=True, exist_ok=True)
    summary = write_run_files(target, results, run_id=run_dir.name, skipped=skipped, max_parallel=max_parallel)
    return summary, warnings
