"""`coder-eval export TASK --format harbor`: one Harbor task directory per (task, variant, replicate, row).

A Harbor task is `task.toml`, `instruction.md`, `environment/Dockerfile`, `tests/test.sh` (the
verifier, run after the agent; it writes `/logs/verifier/reward.json`) and `solution/solve.sh`.
What we write:

- `environment/`: the task's Dockerfile and its build context (or `FROM <image>`), then the
  task's starting files, packages and pre_run commands baked in as image layers;
- `tests/`: a grader-only copy of the task (`coder-eval-task.json`, agent `none`), the reference when a
  criterion needs it, a wheel of this Coder Eval (`wheels/`, see `wheel.py`: the registry's
  `coder-eval` is another project), and `test.sh`, which installs that wheel, runs
  `coder-eval evaluate` on the workspace and turns the graded task.json into the reward with
  `coder-eval harbor reward`;
- `solution/`: the reference directory and a `solve.sh` that copies it into the workspace.

Criteria that read the agent's trajectory cannot be graded from the workspace alone and are left
out; task.toml lists them under `metadata.not_exported`.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder_eval import __version__
from coder_eval.engine.experiment_plan import PlanInputs, plan_units
from coder_eval.engine.units import RunUnit
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.harbor.network import export_network
from coder_eval.harbor.toml_text import TomlValue, dumps
from coder_eval.harbor.wheel import build_wheel
from coder_eval.loading.loader import SelectOptions, load_tasks
from coder_eval.models.sandbox import RepoSource, StarterFilesSource, TemplateDirSource
from coder_eval.models.task import TaskDefinition

DEFAULT_WORKDIR = "/app"
WORKSPACE_DIR = "coder-eval-workspace"
GRADER = "coder-eval-task.json"
DEFAULT_TIMEOUT = 600.0

TEST_SH = """#!/usr/bin/env bash
# Harbor verifier written by `coder-eval export`: grade the workspace with the task's criteria,
# then write Harbor's reward.json from the graded record.
set -u
TESTS_DIR="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
WORKDIR="${{CODER_EVAL_WORKDIR:-{workdir}}}"
LOGS="${{HARBOR_VERIFIER_LOGS:-/logs/verifier}}"
mkdir -p "$LOGS"
# The grader is the Coder Eval that exported this task, carried as a wheel: the registry's
# `coder-eval` is another project. Its dependencies come from the image or the package index.
WHEEL="$TESTS_DIR/wheels/{wheel}"
PY="${{CODER_EVAL_PYTHON:-python3}}"
# Already installed, file for file? Then nothing is installed (the image may have baked it in).
same() {{
  "$PY" - "$WHEEL" >/dev/null 2>&1 <<'PYEOF'
import pathlib, sys, zipfile
import coder_eval
root = pathlib.Path(coder_eval.__file__).parent
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name.startswith("coder_eval/") and not name.endswith("/"):
            path = root / name[len("coder_eval/"):]
            if not path.is_file() or path.read_bytes() != wheel.read(name):
                sys.exit(1)
PYEOF
}}
install() {{
  "$PY" -m pip install --quiet "$WHEEL" && "$PY" -m pip install --quiet --force-reinstall --no-deps "$WHEEL"
}}
if ! same && ! install; then
  echo '{{"reward": 0.0}}' > "$LOGS/reward.json"
  echo "the carried Coder Eval {version} ($WHEEL) could not be installed in the verifier" >&2
  exit 1
fi
rm -rf "$LOGS/coder-eval"
"$PY" -m coder_eval evaluate "$TESTS_DIR/{grader}" "$WORKDIR" --in-place --run-dir "$LOGS/coder-eval"
"$PY" -m coder_eval harbor reward "$LOGS/coder-eval" -o "$LOGS/reward.json"
"""

SOLVE_SH = """#!/usr/bin/env bash
# The reference solution, copied into the workspace (written by `coder-eval export`).
set -eu
SOLUTION_DIR="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
cp -R "$SOLUTION_DIR/files/." "${{CODER_EVAL_WORKDIR:-{workdir}}}/"
"""


@dataclass
class ExportedTask:
    directory: Path
    task_id: str
    variant_id: str
    not_exported: list[str] = field(default_factory=list)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "task"


def _name(unit: RunUnit, *, variants: int, replicates: int) -> str:
    parts = [unit.task_id.replace("/", "-")]
    if variants > 1:
        parts.append(unit.variant_id)
    if replicates > 1:
        parts.append(f"r{unit.replicate_index:02d}")
    return _slug("-".join(parts))


def _refuse_without_container(unit: RunUnit) -> None:
    d = unit.task.definition
    file = unit.task.source_file
    if d.sandbox.driver != "docker":
        raise TaskConfigError.single(
            file,
            f"task {unit.task_id} runs on the {d.sandbox.driver} driver, which has no container image to export "
            "to Harbor",
            "sandbox.driver",
            "give it `sandbox: {driver: docker, docker: {image: python:3.12-slim}}` (or docker.dockerfile_path)",
        )
    docker = d.sandbox.docker
    if docker is None or not (docker.image or docker.dockerfile_path):
        raise TaskConfigError.single(
            file,
            f"task {unit.task_id} uses the docker driver without an image",
            "sandbox.docker",
            "set docker.image or docker.dockerfile_path",
        )


def _workdir(d: TaskDefinition) -> str:
    wd = d.sandbox.docker.working_dir if d.sandbox.docker else None
    return wd if wd and wd != "auto" else DEFAULT_WORKDIR


def _environment(unit: RunUnit, target: Path, workdir: str) -> None:
    """environment/: the build context plus the task's starting state as image layers."""
    d = unit.task.definition
    docker = d.sandbox.docker
    assert docker is not None
    target.mkdir(parents=True)
    if docker.dockerfile_path:
        dockerfile = unit.task.task_dir / docker.dockerfile_path
        shutil.copytree(dockerfile.parent, target, dirs_exist_ok=True)
        base = dockerfile.read_text(encoding="utf-8").rstrip("\n")
        if dockerfile.name != "Dockerfile":
            (target / dockerfile.name).unlink()
    else:
        base = f"FROM {docker.image}"
    lines = [base, "", "# --- added by coder-eval export: the task's starting state ---", f"WORKDIR {workdir}"]
    workspace = target / WORKSPACE_DIR
    workspace.mkdir()
    for source in d.sandbox.template_sources:
        if isinstance(source, RepoSource):
            ref = f" && git checkout {source.commit}" if source.commit else ""
            lines.append(f"RUN git clone {source.url} {workdir}/.clone && cd {workdir}/.clone{ref}"
                         f" && cp -R {workdir}/.clone/. {workdir}/ && rm -rf {workdir}/.clone")  # fmt: skip
        elif isinstance(source, TemplateDirSource):
            shutil.copytree(unit.task.task_dir / source.path, workspace / source.mount_point, dirs_exist_ok=True)
        elif isinstance(source, StarterFilesSource):
            for starter in source.files:
                path = workspace / starter.path
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(starter.content, encoding="utf-8")
    lines.append(f"COPY {WORKSPACE_DIR}/ {workdir}/")
    if d.sandbox.python and d.sandbox.python.env_packages:
        lines.append("RUN python3 -m pip install " + " ".join(f"'{p}'" for p in d.sandbox.python.env_packages))
    if d.sandbox.node and d.sandbox.node.specifiers:
        lines.append("RUN npm install -g " + " ".join(f"'{p}'" for p in d.sandbox.node.specifiers))
    lines += [f"RUN {command.command}" for command in d.pre_run]
    (target / "Dockerfile").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _grader_task(d: TaskDefinition) -> tuple[dict[str, Any], list[str]]:
    """The task as the verifier grades it: same criteria minus trajectory ones, no agent, no set-up."""
    kept, dropped = [], []
    for criterion in d.success_criteria:
        if criterion.requires_agent:
            dropped.append(f"{criterion.type}: {criterion.description}")
        else:
            kept.append(criterion.model_dump(mode="json", exclude_unset=True))
    if not kept:
        raise UsageError(
            f"task {d.task_id}: every criterion reads the agent's trajectory, which a Harbor verifier cannot see"
        )
    doc: dict[str, Any] = {
        "task_id": d.task_id,
        "description": d.description,
        "agent": {"type": "none"},
        "success_criteria": kept,
    }
    if d.reference is not None:
        doc["reference"] = {"directory": "reference"}
    if d.post_run:
        doc["post_run"] = [c.model_dump(mode="json", exclude_unset=True) for c in d.post_run]
    return doc, dropped


def _verifier(d: TaskDefinition, workdir: str, not_exported: list[str]) -> tuple[dict[str, TomlValue], list[str]]:
    """The [verifier] table and the top-level artifacts: a verifier of its own, handed the workspace.

    Harbor's lint asks for a separate verifier (a fresh copy of the environment, so nothing the agent
    left running or changed outside the workspace can sway the grade); the workspace reaches it as
    an artifact, emptied and re-made at its path. A task that keeps the agent's services alive for
    grading needs the shared environment, and says so.
    """
    timeouts = [getattr(c, "timeout", 30.0) for c in d.success_criteria]
    verifier: dict[str, TomlValue] = {"timeout_sec": float(max(120.0, 60.0 + sum(timeouts)))}
    if d.sandbox.keep_services:
        verifier["environment_mode"] = "shared"
        not_exported.append(
            "keep_services: the verifier shares the agent's environment, so the services stay up "
            "(harbor lint reports shared-verifier for it)"
        )
        return verifier, []
    verifier["environment_mode"] = "separate"
    return verifier, [workdir]


def _toml(unit: RunUnit, not_exported: list[str]) -> str:
    d = unit.task.definition
    verifier, artifacts = _verifier(d, _workdir(d), not_exported)
    network = export_network(d, not_exported)
    limits = d.sandbox.limits
    metadata: dict[str, TomlValue] = {
        "source": "coder-eval",
        "coder_eval_version": __version__,
        "task_id": unit.task_id,
        "variant_id": unit.variant_id,
        "replicate": unit.replicate_index,
        "description": d.description,
        "category": "coder-eval",
        "tags": list(d.tags),
    }
    if unit.task.row_id is not None:
        metadata["row_id"] = unit.task.row_id
    if not_exported:
        metadata["not_exported"] = not_exported
    environment: dict[str, TomlValue] = {"build_timeout_sec": DEFAULT_TIMEOUT}
    if limits.max_cpus is not None:
        environment["cpus"] = limits.max_cpus
    if limits.max_memory_mb is not None:
        environment["memory_mb"] = limits.max_memory_mb
    environment.update(network)
    top: dict[str, TomlValue] = {"version": "1.0"}
    if artifacts:
        top["artifacts"] = artifacts
    return dumps(
        {
            "metadata": metadata,
            "verifier": verifier,
            "agent": {"timeout_sec": float(d.run_limits.task_timeout or DEFAULT_TIMEOUT)},
            "environment": environment,
        },
        top=top,
    )


_WHEEL_CACHE: dict[str, bytes] = {}


def carried_wheel(directory: Path) -> Path:
    """This installation's wheel in `directory` (built once per process, copied for each task)."""
    import tempfile

    if "wheel" not in _WHEEL_CACHE:
        with tempfile.TemporaryDirectory() as tmp:
            built = build_wheel(Path(tmp))
            _WHEEL_CACHE["wheel"] = built.read_bytes()
            _WHEEL_CACHE["name"] = built.name.encode()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / _WHEEL_CACHE["name"].decode()
    path.write_bytes(_WHEEL_CACHE["wheel"])
    return path


def _export_unit(unit: RunUnit, target: Path) -> ExportedTask:
    d = unit.task.definition
    workdir = _workdir(d)
    grader, dropped = _grader_task(d)
    not_exported = [f"criterion {x}" for x in dropped]
    if d.post_run:
        not_exported.append("post_run runs in the verifier after grading")
    if d.reference is not None and d.reference.solve is not None:
        not_exported.append("reference.solve: the exported solve.sh copies the reference files instead")
    target.mkdir(parents=True)
    (target / "instruction.md").write_text((d.initial_prompt or "").rstrip("\n") + "\n", encoding="utf-8")
    _environment(unit, target / "environment", workdir)
    tests = target / "tests"
    tests.mkdir()
    # JSON (a YAML subset) so directory discovery never mistakes the grader copy for a second task.
    (tests / GRADER).write_text(json.dumps(grader, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    wheel = carried_wheel(tests / "wheels")
    (tests / "test.sh").write_text(
        TEST_SH.format(workdir=workdir, version=__version__, grader=GRADER, wheel=wheel.name), encoding="utf-8"
    )
    (tests / "test.sh").chmod(0o755)
    if d.reference is not None:
        reference = unit.task.task_dir / d.reference.directory
        shutil.copytree(reference, tests / "reference")
        solution = target / "solution"
        shutil.copytree(reference, solution / "files")
        (solution / "solve.sh").write_text(SOLVE_SH.format(workdir=workdir), encoding="utf-8")
        (solution / "solve.sh").chmod(0o755)
    (target / "task.toml").write_text(_toml(unit, not_exported), encoding="utf-8")
    return ExportedTask(target, unit.task_id, unit.variant_id, not_exported)


def export_harbor(task: Path, out: Path, *, experiment: str | None = None) -> list[ExportedTask]:
    """Write one Harbor task directory under `out` per unit the task (under `experiment`) plans."""
    report = load_tasks([str(task)], SelectOptions(include_skipped=True))
    if report.errors:
        raise report.errors[0]
    if not report.tasks:
        raise UsageError(f"{task}: no task to export (check the path)")
    plan = plan_units(report.tasks, PlanInputs(experiment=experiment))
    if plan.errors:
        raise plan.errors[0]
    for unit in plan.units:
        _refuse_without_container(unit)
    variants = len({u.variant_id for u in plan.units})
    replicates = max(u.replicate_index for u in plan.units) + 1
    names = [_name(u, variants=variants, replicates=replicates) for u in plan.units]
    clashes = [n for n in names if (out / n).exists()]
    if clashes:
        raise UsageError(f"{out / clashes[0]} already exists; export into an empty directory or remove it")
    return [_export_unit(u, out / n) for u, n in zip(plan.units, names, strict=True)]
