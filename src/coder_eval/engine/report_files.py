"""Every report file of a run directory is written here, and only here.

`run`/`execute`, `evaluate`, `aggregate` and `report` all come through this module:

- run.json (the summary record) and run.md, from the task results;
- experiment.json/.md/.html at the run root and variant.json/.md/.html per variant;
- suite.json and suite.md per (variant, dataset suite);
- JUnit XML, run.html and task.html on request.

The renderers in `coder_eval.reports` stay pure (records in, text out); the records layer only
reads and writes records. This module joins the two.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from itertools import groupby
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from coder_eval.common.spool import TextSpool
from coder_eval.errors import RecordError, UsageError
from coder_eval.models.experiment_results import ExperimentResult
from coder_eval.models.results import EvaluationResult
from coder_eval.models.run import RunSummary, SkippedTask
from coder_eval.records.atomic import write_chunks_atomic, write_text_atomic
from coder_eval.records.compact import HeldResults, row_key
from coder_eval.records.layout import (
    RUN_JSON,
    RUN_MD,
    SUITE_JSON,
    SUITE_MD,
    TASK_JSON,
    find_run_files,
    find_task_results,
    suite_dir,
)
from coder_eval.records.legacy import conversion_lines
from coder_eval.records.store import read_run_summary, read_task_result, read_task_results
from coder_eval.records.summary import SummaryBuilder, list_spliced_chunks, nested_json, row_json, run_json_chunks

if TYPE_CHECKING:  # only annotations: `evaluate` and `aggregate` never build these models
    from coder_eval.models.adaptive import AdaptiveRecord
    from coder_eval.models.experiment import ExperimentDefinition
    from coder_eval.models.experiment_results import TaskExperimentSummary, VariantAggregate
    from coder_eval.models.suite import SuiteRollup

ReportFormat = Literal["md", "html", "junit"]

# --- run.json and run.md ----------------------------------------------------------------------


def write_run_files(
    run_dir: Path,
    results: list[EvaluationResult] | HeldResults,
    *,
    run_id: str | None = None,
    skipped: list[SkippedTask] | None = None,
    start_time: datetime | None = None,
    end_time: datetime | None = None,
    max_parallel: int = 1,
    planned: int | None = None,
    interrupted: bool = False,
    interrupt_reason: str | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    units_fixed_design: int | None = None,
) -> RunSummary:
    """Build the summary with the one shared builder and write run.json and run.md.

    The results are taken one at a time in row order and the files written as a stream (the
    parts that follow a header wait in temporary spools), so a long run never holds them whole.
    A list gives a summary holding its rows; `HeldResults` (a run's own) one whose rows are only
    in run.json (its counts and figures are complete; see `RunSummary.with_streamed_rows`).
    `planned` (the units the run set out to do) and `interrupted` (with `interrupt_reason`, when
    known) mark a partial run; `on_row`
    sees each row as it goes by. `units_fixed_design` is set for adaptive replicates: what the
    fixed design would have run, beside the units the rounds planned."""
    from coder_eval.reports.markdown import problem_block, run_markdown_chunks, task_table_row

    held = isinstance(results, HeldResults)
    ordered = _in_order(results)
    builder = SummaryBuilder()
    kept: list[dict[str, Any]] | None = None if held else []
    with TextSpool() as rows, TextSpool() as table, TextSpool() as problems:
        for result in ordered:
            row = builder.add(result)
            if kept is not None:
                kept.append(row)
            if on_row is not None:
                on_row(row)
            rows.add(row_json(row))
            table.add(task_table_row(row))
            block = problem_block(result)
            if block is not None:
                problems.add(block)
        summary = builder.summary(
            run_id or run_dir.name,
            kept,
            skipped=skipped,
            start_time=start_time,
            end_time=end_time,
            max_parallel=max_parallel,
        )
        if planned is not None:
            summary = summary.model_copy(
                update={
                    "units_planned": planned,
                    "units_finished": len(results),
                    "interrupted": interrupted,
                    "interrupt_reason": interrupt_reason,
                    "units_fixed_design": units_fixed_design,
                }
            )
        write_chunks_atomic(run_dir / RUN_JSON, run_json_chunks(summary, rows))
        write_chunks_atomic(run_dir / RUN_MD, run_markdown_chunks(summary, table, problems))
    return summary


# --- experiment and variant files -------------------------------------------------------------


def write_experiment_reports(
    run_dir: Path,
    experiment: ExperimentDefinition,
    results: list[EvaluationResult] | HeldResults,
    duration: float,
) -> list[str]:
    """Aggregates as JSON for machines; statistics only in the Markdown/HTML, computed when rendering.

    Returns the comparison's verdict lines (empty when there is nothing to compare), which the
    end of a run prints.

    The statistical reports (and SciPy, which takes seconds to import) are only produced when
    there is something to compare: several variants, or replicates of a task. A single-arm,
    single-replicate run is fully described by run.md. The results are read one task at a time
    and experiment.json's task summaries written as they come; a comparable run keeps them for
    its statistical pages, and a variant's rows for its own.
    """
    from coder_eval.experiments.build import ExperimentBuilder, quarantine_records, variant_order

    adaptive = read_adaptive(run_dir)
    keys = results.keys() if isinstance(results, HeldResults) else [row_key(r) for r in results]
    named = [v.variant_id for v in experiment.variants]
    builder = ExperimentBuilder(variant_order(named, {variant for variant, _, _ in keys}))
    comparable = len(builder.variants) > 1 or any(replicate > 0 for _, _, replicate in keys)
    kept: list[TaskExperimentSummary] | None = [] if comparable else None
    with TextSpool() as summaries:
        for task_id, rows in groupby(_by_task(results), key=lambda r: r.task_id):
            summary = builder.add_task(task_id, rows)
            summaries.add(nested_json(summary.model_dump_json(indent=2)))
            if kept is not None:
                kept.append(summary)
        result = builder.result(experiment.experiment_id, experiment.description, duration)
        quarantine = quarantine_records(experiment.quarantine, (task for _, task, _ in keys))
        result = result.model_copy(update={"quarantine": quarantine})
        if adaptive is not None:
            result = result.model_copy(update={"adaptive": adaptive})
        text = result.model_dump_json(indent=2)
        write_chunks_atomic(run_dir / "experiment.json", list_spliced_chunks(text, "task_summaries", summaries))
    if kept is not None:
        from coder_eval.reports.experiment_html import render_experiment_html
        from coder_eval.reports.experiment_markdown import render_experiment_markdown

        whole = result.model_copy(update={"task_summaries": kept})
        write_text_atomic(run_dir / "experiment.md", render_experiment_markdown(whole))
        write_text_atomic(run_dir / "experiment.html", render_experiment_html(whole, links=(("run report", "run.md"),)))
        verdicts = _verdicts(whole)
    else:
        verdicts = []
    for variant_id, aggregate in result.variant_aggregates.items():
        if aggregate.tasks_run:
            target = run_dir / variant_id
            write_text_atomic(target / "variant.json", aggregate.model_dump_json(indent=2))
            if comparable:  # the per-row tables of these pages want the variant's rows at hand
                own = [r for r in _in_order(results) if r.variant_id == variant_id]
                _write_variant_pages(target, aggregate, own)
    return verdicts


def read_adaptive(run_dir: Path) -> AdaptiveRecord | None:
    """The run's adaptive.json (adaptive replicates), or None for a run with a fixed number of them."""
    from coder_eval.models.adaptive import ADAPTIVE_JSON, AdaptiveRecord

    path = run_dir / ADAPTIVE_JSON
    if not path.is_file():
        return None
    try:
        return AdaptiveRecord.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path} is not a readable adaptive record ({exc.__class__.__name__})") from None


def _verdicts(result: ExperimentResult) -> list[str]:
    """The two-arm verdict, or the ranking's, as printed under a run."""
    from coder_eval.experiments.analysis import compare_two_arms

    comparison = compare_two_arms(result)
    if comparison is not None:
        return [comparison.verdict]
    if len(result.variant_ids) > 2:
        from coder_eval.experiments.ranking import rank_arms

        ranking = rank_arms(result)
        quarantined = sum(q.in_run for q in result.quarantine)
        note = f" ({quarantined} quarantined task(s) left out or weighted)" if quarantined else ""
        return [ranking.verdict + note + "."] if ranking is not None else []
    return []


def _by_task(results: list[EvaluationResult] | HeldResults) -> Iterator[EvaluationResult]:
    if isinstance(results, HeldResults):
        return results.ordered(by_task=True)
    return iter(sorted(results, key=lambda r: (r.task_id, r.variant_id, r.replicate_index)))


def _in_order(results: list[EvaluationResult] | HeldResults) -> Iterator[EvaluationResult]:
    return results.ordered() if isinstance(results, HeldResults) else iter(sorted(results, key=row_key))


def _write_variant_pages(target: Path, aggregate: VariantAggregate, rows: list[EvaluationResult]) -> None:
    from coder_eval.reports.experiment_html import render_variant_html
    from coder_eval.reports.experiment_markdown import render_variant_markdown

    write_text_atomic(target / "variant.md", render_variant_markdown(aggregate, rows))
    links = (("experiment", "../experiment.html"), ("run report", "../run.md"))
    write_text_atomic(target / "variant.html", render_variant_html(aggregate, rows, links=links))


# --- suite files ------------------------------------------------------------------------------


def write_suite_rollups(run_dir: Path, rollups: Sequence[SuiteRollup]) -> list[Path]:
    """Write suite.json and suite.md for each rollup atomically; returns the paths written."""
    from coder_eval.reports.suite_markdown import render_suite_markdown

    written: list[Path] = []
    for rollup in rollups:
        directory = suite_dir(run_dir, rollup.variant_id, rollup.suite_id)
        json_path, md_path = directory / SUITE_JSON, directory / SUITE_MD
        write_text_atomic(json_path, rollup.model_dump_json(indent=2) + "\n")
        write_text_atomic(md_path, render_suite_markdown(rollup))
        written += [json_path, md_path]
    return written


# --- JUnit, HTML and the `report` / `aggregate` commands --------------------------------------


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


def write_junit(
    target: Path, summary: RunSummary, results: HeldResults, suite_gates: list[tuple[str, bool, str]] | None = None
) -> None:
    """`run --junit-xml`: what `junit_text` gives, written one test case at a time from a run's held copies."""
    from coder_eval.records.summary import task_row
    from coder_eval.reports.junit import junit_chunks

    cases = ((task_row(r), r) for r in results.ordered())
    write_chunks_atomic(target, junit_chunks(summary, cases, suite_gates=suite_gates or None))


def suite_gates_on_disk(run_dir: Path, paths: list[Path] | None = None) -> list[tuple[str, bool, str]]:
    """The suite gates of the suite.json files a run wrote (or of these), which the JUnit renderer orders."""
    if paths is None:
        paths = find_run_files(run_dir, SUITE_JSON)
    if not paths:  # no dataset suites: nothing to read, and no rollup model to build
        return []
    from coder_eval.models.suite import SuiteRollup
    from coder_eval.suites import suite_gate_entries

    rollups = []
    for path in paths:
        try:
            rollups.append(SuiteRollup.model_validate_json(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise RecordError(f"{path} is not a readable suite rollup ({exc.__class__.__name__})") from None
    return suite_gate_entries(rollups)


def with_conversions(summary: RunSummary, results: list[EvaluationResult]) -> RunSummary:
    """`summary` naming every conversion its records needed (a reference run.json records none)."""
    lines = [*summary.record_conversions]
    lines += [line for line in conversion_lines(r.record_notes for r in results) if line not in lines]
    return summary.model_copy(update={"record_conversions": lines}) if lines else summary


def render_report(run_dir: Path, fmt: ReportFormat, output: Path | None) -> tuple[str | None, list[Path], list[str]]:
    """Markdown goes to stdout (returned) unless `output`; html and junit are written to files.

    The third value lists the conversions records in another format needed (also in the report)."""
    _check_run_dir(run_dir)
    summary = read_run_summary(run_dir)
    found = find_run_files(run_dir, TASK_JSON, SUITE_JSON)  # one walk for both kinds of record
    results, _warnings = read_task_results(run_dir, [p for p in found if p.name == TASK_JSON])
    summary = with_conversions(summary, results)
    notes = summary.record_conversions
    if fmt == "md":
        from coder_eval.reports.markdown import render_run_markdown

        text = render_run_markdown(summary, results)
        if output is None:
            return text, [], notes
        write_text_atomic(output, text)
        return None, [output], notes
    if fmt == "junit":
        target = output or run_dir / "junit.xml"
        gates = suite_gates_on_disk(run_dir, [p for p in found if p.name == SUITE_JSON])
        write_text_atomic(target, junit_text(run_dir, summary, results, gates))
        return None, [target], notes
    from coder_eval.reports.html import render_run_html, render_task_html

    written: list[Path] = []
    paths = find_task_results(run_dir)
    if output is not None and len(paths) == 1:
        write_text_atomic(output, render_task_html(read_task_result(paths[0])))
        return None, [output], notes
    run_html = output or run_dir / "run.html"
    experiment = run_dir / "experiment.html"
    pages: dict[tuple[str, str, int], str] = {}
    for path in paths:
        target = path.with_name("task.html")
        result = read_task_result(path)
        up = _relative(run_html, target.parent)
        links = [("run", up)] + ([("experiment", _relative(experiment, target.parent))] if experiment.is_file() else [])
        write_text_atomic(target, render_task_html(result, links=tuple(links)))
        pages[(result.variant_id, result.task_id, result.replicate_index)] = _relative(target, run_html.parent)
        written.append(target)
    run_links = (("experiment", _relative(experiment, run_html.parent)),) if experiment.is_file() else ()
    write_text_atomic(run_html, render_run_html(summary, results, links=run_links, task_pages=pages))
    return None, [run_html, *written], notes


def aggregate(run_dir: Path, output: Path | None) -> tuple[RunSummary, list[str]]:
    """Rebuild run.json and run.md from the task.json files under `run_dir`."""
    _check_run_dir(run_dir)
    results, warnings = read_task_results(run_dir)
    if not results and not (run_dir / RUN_JSON).is_file():
        raise RecordError(f"{run_dir} holds no task.json files; nothing to aggregate")
    try:
        previous: RunSummary | None = read_run_summary(run_dir)
    except RecordError:
        previous = None
    target = output or run_dir
    target.mkdir(parents=True, exist_ok=True)
    summary = write_run_files(target, results, run_id=run_dir.name, **_kept_from(previous, len(results)))
    return summary, warnings


def _kept_from(previous: RunSummary | None, records: int) -> dict[str, Any]:
    """What records alone do not say, kept from run.json: skipped tasks, parallelism, planned units (a
    partial run stays partial) and an adaptive run's fixed design."""
    if previous is None:
        return {"max_parallel": 1}
    planned = previous.units_planned
    short = planned is not None and records < planned
    return {
        "skipped": previous.skipped_tasks,
        "max_parallel": previous.max_parallel,
        "planned": planned,
        "interrupted": previous.interrupted and (planned is None or short),
        "interrupt_reason": previous.interrupt_reason if short or planned is None else None,
        "units_fixed_design": previous.units_fixed_design,
    }


def _relative(target: Path, start: Path) -> str:
    """`target` as an href relative to the directory `start` (pages link each other relatively)."""
    import os

    return Path(os.path.relpath(target.resolve(), start.resolve())).as_posix()
