"""Payloads of the experiment page (arms, intervals, verdicts, per-task best arm) and the suite page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coder_eval.experiments.analysis import (
    PassKFigure,
    arm_trials,
    compare_arms,
    experiment_k_values,
    pass_k_figures,
    quarantine_summary,
    task_pass_k,
    task_score,
    variant_statistics,
)
from coder_eval.experiments.passk import TaskTrials
from coder_eval.experiments.stats import MeanEstimate, PairedComparison, RateEstimate
from coder_eval.models.adaptive import AdaptiveRecord
from coder_eval.models.experiment_results import ExperimentResult
from coder_eval.models.suite import SuiteRollup
from coder_eval.reports import adaptive_tables

EXPERIMENT_JSON = "experiment.json"
SUITE_JSON = "suite.json"


def _mean(estimate: MeanEstimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {"mean": estimate.mean, "low": estimate.low, "high": estimate.high, "n": estimate.n}


def _rate(estimate: RateEstimate | None) -> dict[str, Any] | None:
    if estimate is None:
        return None
    return {
        "rate": estimate.rate,
        "low": estimate.low,
        "high": estimate.high,
        "successes": estimate.successes,
        "trials": estimate.trials,
    }


def _pass_k(figures: list[PassKFigure]) -> list[dict[str, Any]]:
    return [
        {
            "k": f.k,
            "pass_at_k": _mean(f.pass_at_k),
            "pass_hat_k": _mean(f.pass_hat_k),
            "tasks": f.tasks,
            "tasks_excluded": f.tasks_excluded,
            "tasks_quarantined": f.tasks_quarantined,
        }
        for f in figures
    ]


def _task_pass_k(trials: TaskTrials | None, k: int | None) -> dict[str, Any] | None:
    if trials is None:
        return None
    figure = task_pass_k(trials, k) if k is not None else None
    return {
        "strip": trials.strip,
        "n": trials.n,
        "c": trials.c,
        "pass_at_k": _rate(figure.pass_at_k) if figure else None,
        "pass_hat_k": _rate(figure.pass_hat_k) if figure else None,
    }


def experiment_payload(run_id: str, result: ExperimentResult) -> dict[str, Any]:
    """Every arm with its intervals, each arm against the first, and each task's scores by arm."""
    trials = {v: {t.task_id: t for t in arm_trials(result, v)} for v in result.variant_ids}
    ks = experiment_k_values(result)
    largest = ks[-1] if ks else None
    weights = result.task_weights()
    arms = []
    for variant_id in result.variant_ids:
        stats = variant_statistics(result, variant_id)
        aggregate = result.variant_aggregates.get(variant_id)
        arms.append(
            {
                "variant_id": variant_id,
                "aggregate": aggregate.model_dump(mode="json") if aggregate else None,
                "score": _mean(stats.score),
                "pass_rate": _rate(stats.pass_rate),
                "unmeasured": stats.unmeasured_rows,
                "pass_k": _pass_k(pass_k_figures(list(trials[variant_id].values()), ks, weights)),
            }
        )
    baseline = result.variant_ids[0] if result.variant_ids else None
    comparisons = [_comparison(compare_arms(result, baseline, v)) for v in result.variant_ids[1:] if baseline]
    tasks = []
    for summary in result.task_summaries:
        tasks.append(
            {
                "task_id": summary.task_id,
                "quarantine": weights.get(summary.task_id),
                "best_variant": summary.best_variant,
                "is_tie": summary.is_tie,
                "spread": summary.score_spread,
                "arms": {v: _mean(task_score(summary, v)) for v in result.variant_ids},
                "pass_k": {v: _task_pass_k(trials[v].get(summary.task_id), largest) for v in result.variant_ids},
                "replicates": [
                    {
                        "variant_id": r.variant_id,
                        "replicate_index": r.replicate_index,
                        "status": r.final_status.value,
                        "score": r.weighted_score,
                    }
                    for r in summary.variant_results
                ],
            }
        )
    return {
        "run_id": run_id,
        "experiment_id": result.experiment_id,
        "description": result.description,
        "variant_ids": result.variant_ids,
        "duration": result.total_duration_seconds,
        "arms": arms,
        "comparisons": comparisons,
        "tasks": tasks,
        "k": largest,
        "quarantine": [q.model_dump(mode="json") for q in result.quarantine],
        "quarantine_summary": quarantine_summary(result),
        "adaptive": _adaptive(result.adaptive),
    }


def _adaptive(record: AdaptiveRecord | None) -> dict[str, Any] | None:
    """An adaptive run's spend against the fixed design and each task's stopping rule, as the reports word them."""
    if record is None:
        return None
    return {
        "summary": [list(row) for row in adaptive_tables.summary_rows(record)],
        "headers": list(adaptive_tables.TASK_HEADERS),
        "tasks": adaptive_tables.task_rows(record),
        "note": adaptive_tables.method_note(record),
        "units_spent": record.units_spent,
        "units_fixed_design": record.units_fixed_design,
    }


def _comparison(c: PairedComparison) -> dict[str, Any]:
    """One arm against the first, as the page shows it."""
    return {
        "a": c.label_a,
        "b": c.label_b,
        "verdict": c.verdict,
        "n": c.n,
        "mean_difference": c.mean_difference,
        "interval": _mean(c.interval),
        "t_pvalue": c.t_pvalue,
        "wilcoxon_pvalue": c.wilcoxon_pvalue,
        "welch_pvalue": c.welch_pvalue,
        "b_better": c.b_better,
        "a_better": c.a_better,
        "ties": c.ties,
        "tasks_excluded": c.tasks_excluded,
        "unmeasured_rows": c.unmeasured_rows,
        "tasks_quarantined": c.tasks_quarantined,
        "weighted": c.weighted,
        "sequential": None
        if c.sequential is None
        else {"e_better": c.sequential.e_better, "e_worse": c.sequential.e_worse, "bar": c.sequential.bar},
    }


def find_suites(run_dir: Path) -> list[dict[str, str]]:
    """suite.json files of a run (`<variant>/<suite id>/suite.json`), without walking every replicate."""
    out = []
    for path in sorted(run_dir.glob(f"*/*/{SUITE_JSON}")):
        rel = path.parent.relative_to(run_dir)
        out.append({"path": rel.as_posix(), "variant_id": rel.parts[0], "suite_id": rel.parts[1]})
    return out


def suite_payload(run_id: str, rel: str, rollup: SuiteRollup) -> dict[str, Any]:
    data = rollup.model_dump(mode="json")
    for sample in data["failed_samples"]:
        relpath = sample.get("task_json_relpath")
        sample["task_path"] = str(Path(relpath).parent.as_posix()) if relpath else None
    return {"run_id": run_id, "path": rel, "suite": data}
