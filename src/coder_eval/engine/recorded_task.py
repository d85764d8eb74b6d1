"""The task a recorded run was graded against, rebuilt from its task.json (`evaluate RUN_DIR`).

The resolved task (`task_config.resolved`: after every merge layer, dataset row included) is
what the run executed, so it comes first. A record written by the reference system may hold a
resolved task this version does not read as it is (a full dump with `null` for every unset
field, keys of a newer line); then the same task with its `null`s dropped is tried, then the
task as authored (`task_config.source_yaml`) through the ordinary loader. Whichever was used
other than the first is said in a note that lands on the re-graded record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder_eval.errors import CoderEvalError, TaskConfigError
from coder_eval.loading.loader import LoadedTask, validate_document
from coder_eval.loading.yaml_source import parse_yaml_text
from coder_eval.models.results import EvaluationResult
from coder_eval.models.task import TaskDefinition


class RegradeError(CoderEvalError):
    """A recorded task cannot be graded in place."""

    exit_code = 1


@dataclass(frozen=True)
class RecordedTask:
    task: LoadedTask
    note: str | None = None
    """How the task was rebuilt, when not from the resolved task as recorded."""


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    return f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"


def task_from_record(result: EvaluationResult, record_path: Path) -> RecordedTask:
    """Rebuild the task as it was resolved for the run (not by re-reading the YAML, which may have changed)."""
    config = result.task_config or {}
    source = Path(str(config.get("source_file") or record_path))

    def loaded(definition: TaskDefinition) -> LoadedTask:
        return LoadedTask(definition, source, suite_id=result.suite_id, row_id=result.row_id, row=config.get("row"))

    resolved = config.get("resolved") or {}
    if not resolved and not config.get("source_yaml"):
        raise RegradeError(
            f"{record_path}: the record holds no task configuration (task_config) to grade with; grade it with "
            f"your task file instead: coder-eval evaluate TASK.yaml {record_path.parent}"
        )
    try:
        return RecordedTask(loaded(TaskDefinition.model_validate(resolved)))
    except ValidationError as exc:
        problem = _first_problem(exc)
    try:
        definition = TaskDefinition.model_validate(_without_nulls(resolved))
        return RecordedTask(loaded(definition), "graded with the recorded resolved task, its null values dropped")
    except ValidationError:
        pass
    text = config.get("source_yaml")
    if isinstance(text, str) and text.strip() and result.row_id is None:
        try:
            raw, lines = parse_yaml_text(text, source)
            definition = validate_document(raw, source, lines)
            note = (
                "graded with the task as authored (task_config.source_yaml): the recorded resolved task "
                f"does not validate here ({problem}), so overrides of variants or -D were not applied"
            )
            return RecordedTask(loaded(definition), note)
        except TaskConfigError as exc:
            problem = f"{problem}; source_yaml: {exc}"
    raise RegradeError(
        f"{record_path}: the recorded task config does not validate here ({problem}); grade it with your task "
        f"file instead: coder-eval evaluate TASK.yaml {record_path.parent}"
    )
