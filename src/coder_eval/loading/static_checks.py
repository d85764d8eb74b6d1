"""Checks `plan` runs beyond the schema: paths a task names must exist and stay put."""

from __future__ import annotations

import os
import re
from pathlib import Path

from coder_eval.errors import Problem
from coder_eval.models.base import escapes_root
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.sandbox import TemplateDirSource
from coder_eval.models.task import TaskDefinition

_ENV_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_PATH_FIELDS = ("path", "agent_file", "json_schema", "log")


def env_refs(text: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in _ENV_REF.finditer(text)]


def expand_env(text: str, env: dict[str, str] | None = None) -> str:
    """Expand $VAR and ${VAR} from the environment; unknown names are left as written."""
    source = os.environ if env is None else env

    def repl(m: re.Match[str]) -> str:
        name = m.group(1) or m.group(2)
        return source.get(name, m.group(0))

    return _ENV_REF.sub(repl, text)


def _escapes(path: str) -> bool:
    return escapes_root(path)


def _criterion_problems(i: int, crit: BaseCriterion) -> list[Problem]:
    out = []
    for name in _PATH_FIELDS:
        value = getattr(crit, name, None)
        if isinstance(value, str) and _escapes(value) and not value.startswith(("$TASK_DIR", "$REFERENCE_DIR")):
            out.append(
                Problem(
                    f"{name} {value!r} points outside the sandbox, so no agent could ever satisfy it",
                    f"success_criteria[{i}].{name}",
                    "use a sandbox-relative path; to check the image or host use run_command (e.g. test -f /opt/x)",
                )
            )
    return out


def task_problems(task: TaskDefinition, task_dir: Path) -> list[Problem]:
    """Errors in a schema-valid task: missing directories, escaping paths."""
    problems: list[Problem] = []
    for i, src in enumerate(task.sandbox.template_sources):
        per_row = task.dataset is not None and "${row." in src.path if isinstance(src, TemplateDirSource) else False
        if per_row:
            continue  # each row's own path is checked on the row (unit_checks), once substituted
        if isinstance(src, TemplateDirSource) and not (task_dir / src.path).is_dir():
            problems.append(
                Problem(
                    f"template directory {src.path!r} does not exist",
                    f"sandbox.template_sources[{i}].path",
                    "paths are relative to the task YAML",
                )
            )
    if task.reference and not (task_dir / task.reference.directory).is_dir():
        problems.append(
            Problem(
                f"reference directory {task.reference.directory!r} does not exist",
                "reference.directory",
                "paths are relative to the task YAML",
            )
        )
    if task.agent and task.agent.system_prompt_file and not (task_dir / task.agent.system_prompt_file).is_file():
        problems.append(
            Problem(
                f"system_prompt_file {task.agent.system_prompt_file!r} does not exist",
                "agent.system_prompt_file",
                "paths are relative to the task YAML",
            )
        )
    from coder_eval.models.host_paths import confined, host_path_problems

    for message, where in host_path_problems(task.sandbox, task_dir):
        problems.append(Problem(message, where))
    if task.reference:
        _, why = confined(task.reference.directory, task_dir, allow=task.sandbox.allow_host_paths)
        if why is not None:
            problems.append(Problem(f"reference directory {why}", "reference.directory"))
    for i, d in enumerate(task.sandbox.mock_path_dirs):
        if _escapes(d):
            problems.append(
                Problem(f"mock_path_dirs entry {d!r} must stay inside the sandbox", f"sandbox.mock_path_dirs[{i}]")
            )
    for i, crit in enumerate(task.success_criteria):
        problems.extend(_criterion_problems(i, crit))
        tests = getattr(crit, "tests_dir", None) if crit.type == "harbor_verifier" else None
        if isinstance(tests, str) and not (task_dir / tests / "test.sh").is_file():
            problems.append(
                Problem(
                    f"the verifier's directory {tests!r} holds no test.sh",
                    f"success_criteria[{i}].tests_dir",
                    "tests_dir is relative to the task YAML and holds the Harbor verifier's test.sh",
                )
            )
    return problems


def task_warnings(task: TaskDefinition) -> list[str]:
    """Things that may be fine but are worth knowing before a run."""
    warnings = []
    for i, plugin in enumerate(task.agent.plugins if task.agent else []):
        for name in env_refs(plugin.path):
            if name not in os.environ:
                warnings.append(f"agent.plugins[{i}].path uses ${name}, which is not set in this environment")
    if task.sandbox.docker and task.sandbox.docker.build:
        for key, value in task.sandbox.docker.build.args.items():
            for name in env_refs(value):
                if name not in os.environ:
                    warnings.append(f"sandbox.docker.build.args.{key} uses ${name}, which is not set")
    return warnings
