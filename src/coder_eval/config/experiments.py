"""Find and load experiment files, and the baseline (`default`) experiment."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder_eval.common.suggest import did_you_mean
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.loading.problems import validation_problems
from coder_eval.loading.yaml_source import LineMap, read_yaml
from coder_eval.models.experiment import ExperimentDefinition

DEFAULT_EXPERIMENT = "default"
PROJECT_DIR = "experiments"


def shipped_experiments_dir() -> Path:
    """Directory of the experiment files shipped with the package."""
    return Path(str(resources.files("coder_eval.resources").joinpath("experiments")))


def _yaml_names(directory: Path) -> list[str]:
    return sorted(p.stem for p in directory.glob("*.yaml")) if directory.is_dir() else []


def available_experiments(cwd: Path) -> list[str]:
    """Bare names `-e` accepts here: the project's `experiments/*.yaml` and the shipped ones."""
    return sorted(set(_yaml_names(cwd / PROJECT_DIR)) | set(_yaml_names(shipped_experiments_dir())))


def _looks_like_path(value: str) -> bool:
    return "/" in value or "\\" in value or value.endswith((".yaml", ".yml"))


def find_experiment(name_or_path: str, *, cwd: Path) -> Path:
    """A path as given (relative to cwd), or a bare name: ./experiments/<name>.yaml, then the shipped one."""
    if _looks_like_path(name_or_path):
        path = Path(name_or_path).expanduser()
        path = path if path.is_absolute() else cwd / path
        if not path.is_file():
            raise UsageError(f"experiment file {path} not found")
        return path
    for directory in (cwd / PROJECT_DIR, shipped_experiments_dir()):
        candidate = directory / f"{name_or_path}.yaml"
        if candidate.is_file():
            return candidate
    known = available_experiments(cwd)
    hint = did_you_mean(name_or_path, known) or f"known experiments: {', '.join(known) or '(none)'}"
    raise UsageError(f"no experiment named {name_or_path!r} in {cwd / PROJECT_DIR} or the shipped experiments ({hint})")


def validate_experiment(raw: Any, source: Path, lines: LineMap | None = None) -> ExperimentDefinition:
    """Validate a parsed experiment document, reporting every problem with its field and line."""
    if not isinstance(raw, dict):
        kind = "empty" if raw is None else type(raw).__name__
        raise TaskConfigError.single(
            source, f"an experiment file must be a YAML mapping, not {kind}", "", "start with `experiment_id: my-exp`"
        )
    try:
        experiment = ExperimentDefinition.model_validate(raw)
    except ValidationError as exc:
        raise TaskConfigError(source, validation_problems(exc, raw, lines or {}, ExperimentDefinition)) from None
    return experiment.with_source(source.resolve())


def load_experiment_file(path: Path) -> ExperimentDefinition:
    """Read and validate one experiment YAML file."""
    raw, lines = read_yaml(path)
    return validate_experiment(raw, path, lines)


def baseline_experiment(cwd: Path) -> ExperimentDefinition:
    """Layer 1: the project's ./experiments/default.yaml when present, else the shipped default."""
    own = cwd / PROJECT_DIR / f"{DEFAULT_EXPERIMENT}.yaml"
    path = own if own.is_file() else shipped_experiments_dir() / f"{DEFAULT_EXPERIMENT}.yaml"
    return load_experiment_file(path)


def load_experiment(name_or_path: str | None, *, cwd: Path) -> ExperimentDefinition:
    """The experiment `-e` names; None means the default (baseline) experiment."""
    if name_or_path is None:
        return baseline_experiment(cwd)
    return load_experiment_file(find_experiment(name_or_path, cwd=cwd))
