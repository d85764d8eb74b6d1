"""Write experiment.json/.md/.html at the run root and variant.json/.md/.html per variant."""

from __future__ import annotations

from pathlib import Path

from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.experiment_results import VariantAggregate
from coder_eval.models.results import EvaluationResult
from coder_eval.records.atomic import write_text_atomic


def write_experiment_reports(
    run_dir: Path, experiment: ExperimentDefinition, results: list[EvaluationResult], duration: float
) -> None:
    """Aggregates as JSON for machines; statistics only in the Markdown/HTML, computed when rendering.

    The statistical reports (and SciPy, which takes seconds to import) are only produced when
    there is something to compare: several variants, or replicates of a task. A single-arm,
    single-replicate run is fully described by run.md.
    """
    from coder_eval.experiments.build import build_experiment_result, build_variant_aggregate

    variant_ids = [v.variant_id for v in experiment.variants]
    result = build_experiment_result(
        experiment.experiment_id, experiment.description, variant_ids, results, total_duration_seconds=duration
    )
    comparable = len(result.variant_ids) > 1 or any(r.replicate_index > 0 for r in results)
    write_text_atomic(run_dir / "experiment.json", result.model_dump_json(indent=2))
    if comparable:
        from coder_eval.reports.experiment_html import render_experiment_html
        from coder_eval.reports.experiment_markdown import render_experiment_markdown

        write_text_atomic(run_dir / "experiment.md", render_experiment_markdown(result))
        write_text_atomic(run_dir / "experiment.html", render_experiment_html(result))
    for variant_id in result.variant_ids:
        rows = [r for r in results if r.variant_id == variant_id]
        if rows:
            _write_variant(run_dir / variant_id, build_variant_aggregate(variant_id, rows), rows, comparable)


def _write_variant(target: Path, aggregate: VariantAggregate, rows: list[EvaluationResult], comparable: bool) -> None:
    write_text_atomic(target / "variant.json", aggregate.model_dump_json(indent=2))
    if comparable:
        from coder_eval.reports.experiment_html import render_variant_html
        from coder_eval.reports.experiment_markdown import render_variant_markdown

        write_text_atomic(target / "variant.md", render_variant_markdown(aggregate, rows))
        write_text_atomic(target / "variant.html", render_variant_html(aggregate, rows))
