"""Validate task files without running anything: the library half of `coder-eval plan`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.engine.preflight import environment_warnings
from coder_eval.errors import TaskConfigError
from coder_eval.loading.discovery import discover_task_files
from coder_eval.loading.loader import LoadedTask, expand_dataset, load_task_file
from coder_eval.loading.static_checks import task_problems, task_warnings
from coder_eval.models.task import TaskDefinition


@dataclass
class FilePlan:
    path: Path
    tasks: list[LoadedTask] = field(default_factory=list)
    error: TaskConfigError | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class PlanReport:
    files: list[FilePlan]
    environment: list[str]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files)


def plan_file(path: Path) -> FilePlan:
    out = FilePlan(path)
    try:
        task, raw = load_task_file(path)
        problems = task_problems(task, path.parent.resolve())
        if problems:
            raise TaskConfigError(path, problems)
        out.tasks = expand_dataset(task, raw, path)
        out.warnings = task_warnings(task)
    except TaskConfigError as exc:
        out.error = exc
    return out


def plan(paths: list[str], *, cwd: Path | None = None) -> PlanReport:
    files = [plan_file(p) for p in discover_task_files(paths, cwd=cwd)]
    definitions: list[TaskDefinition] = [f.tasks[0].definition for f in files if f.tasks]
    return PlanReport(files, environment_warnings(definitions))
