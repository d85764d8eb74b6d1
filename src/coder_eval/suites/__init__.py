"""Dataset-suite rollups: per-criterion aggregation, and the suite gates."""

from __future__ import annotations

from coder_eval.suites.aggregate import (
    aggregate_criterion,
    apply_thresholds,
    classification_metrics,
    default_aggregate,
    overlay_classification_metrics,
    score_metrics,
)
from coder_eval.suites.rollup import (
    build_suite_rollups,
    suite_gate_entries,
    suite_gates_passed,
)

__all__ = [
    "aggregate_criterion",
    "apply_thresholds",
    "build_suite_rollups",
    "classification_metrics",
    "default_aggregate",
    "overlay_classification_metrics",
    "score_metrics",
    "suite_gate_entries",
    "suite_gates_passed",
]
