"""`coder-eval harbor reward`: Harbor's reward.json from a graded task.json.

Harbor reads `/logs/verifier/reward.json`, a flat map of metric name to number, `reward` being
the headline. Ours: `reward` is the weighted score (0 when the task errored), `success` is 1 or 0
by our pass/fail verdict, and `criterion_<i>` is each criterion's own score.
"""

from __future__ import annotations

import json
from pathlib import Path

from coder_eval.errors import RecordError
from coder_eval.models.results import EvaluationResult
from coder_eval.records.layout import find_task_results
from coder_eval.records.store import read_task_result


def find_graded(path: Path) -> Path:
    """`path` itself when it is a task.json, else the one task.json under it."""
    if path.is_file():
        return path
    if not path.is_dir():
        raise RecordError(f"{path} does not exist: pass a task.json or the run directory holding one")
    found = find_task_results(path)
    if len(found) != 1:
        raise RecordError(f"{path} holds {len(found)} task.json files; pass the one to turn into a reward")
    return found[0]


def reward_metrics(result: EvaluationResult) -> dict[str, float]:
    metrics = {
        "reward": float(result.weighted_score or 0.0),
        "success": 1.0 if result.final_status.category == "succeeded" else 0.0,
    }
    for i, criterion in enumerate(result.success_criteria_results):
        metrics[f"criterion_{i}"] = float(criterion.score)
    return metrics


def write_reward(task_json: Path, output: Path) -> dict[str, float]:
    metrics = reward_metrics(read_task_result(find_graded(task_json)))
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(metrics, indent=2) + "\n", encoding="utf-8")
    return metrics
