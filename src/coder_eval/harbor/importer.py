"""`coder-eval import harbor DIR -o OUT`: Harbor (or Terminal-Bench 2) task directories as our task files.

Each Harbor task becomes `OUT/<name>/task.yaml` beside copies of its `environment/`, `tests/` and
`solution/`:

- the sandbox is the docker driver on `environment/Dockerfile` (a prebuilt `docker_image` gets a
  one-line Dockerfile on it), with one layer appended: the directories Harbor's verifier and
  oracle use (`/logs/verifier`, `/tests`, `/solution`) made writable for the unit's non-root user,
  and `[environment] env` as `ENV` lines. The workspace is `[environment] workdir`, else the
  image's own `WORKDIR`; CPU, memory and storage limits are converted (`memory = "4G"` included);
  the network policy comes from `network_mode` / `allow_internet` (`harbor/network.py`);
  `keep_services` is on, since Harbor's verifier probes the environment the agent leaves running;
- the verifier is one `harbor_verifier` criterion: `tests/test.sh` run in the sandbox with its own
  timeout and `[verifier] env`, scored by the reward it writes, read as Harbor reads it;
- the agent block is terminal-ready: Harbor tasks are solved in a shell, and Claude Code under
  `acceptEdits` refuses commands not in `allowed_tools`, so the block lists the shell and file
  tools (`TERMINAL_AGENT`); edit it for another agent;
- the solution directory is the task's reference, and `solve.sh` is how the oracle applies it
  (`reference.solve`: run in the sandbox with `[solution] env`, as Harbor's oracle does); a task
  exported by coder-eval keeps its reference files in `solution/files/`, which are used as they are.

A directory import is best effort: every task found (at any depth; a task's own subdirectories are
not searched) is imported or refused with its reason, and what was imported stays imported. Names
come from `[task] name`, else the task's path under the imported directory, so `orgA/x` and
`orgB/x` stay apart. Everything of task.toml that is not carried is listed per task (`losses`).
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from coder_eval.errors import CoderEvalError, TaskConfigError, UsageError
from coder_eval.harbor.network import import_network
from coder_eval.harbor.steps import step_criteria, step_names, step_prompt
from coder_eval.harbor.task_toml import Conversion
from coder_eval.loading.loader import validate_document

TERMINAL_AGENT: dict[str, Any] = {
    "type": "claude-code",
    "permission_mode": "acceptEdits",
    "allowed_tools": ["Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS"],
}
"""The agent block of an imported task: every tool a terminal task needs is allowed up front."""

HARBOR_DIRS = ("/logs/verifier", "/logs/agent", "/tests", "/solution")
"""Directories Harbor mounts into a trial; our unit runs without root, so the image provides them."""

SOLVE = (
    'rm -rf /solution/* /solution/.[!.]* 2>/dev/null; cp -R "$REFERENCE_DIR/." /solution/ '
    "&& bash /solution/solve.sh < /dev/null"
)
"""How the oracle applies a Harbor solution: at /solution, solve.sh run from the workspace."""

EXPORTED_SOLVE = "written by `coder-eval export`"
"""What the solve.sh of a task we exported says of itself (its solution/files are the reference)."""


@dataclass
class ImportedTask:
    source: Path
    task_file: Path
    losses: list[str]


@dataclass
class Refused:
    source: Path
    reason: str


@dataclass
class ImportReport:
    imported: list[ImportedTask] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)


def find_harbor_tasks(root: Path) -> list[Path]:
    """`root` when it is a task (holds task.toml), else every task directory under it, at any depth."""
    if (root / "task.toml").is_file():
        return [root]
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory: pass a Harbor task directory or a directory of them")
    found: list[Path] = []
    for current, dirs, files in os.walk(root):
        dirs.sort()
        if "task.toml" in files:
            found.append(Path(current))
            dirs[:] = []  # a task's own directories (tests/, steps/) are not tasks of the pack
        else:
            dirs[:] = [d for d in dirs if not d.startswith(".")]
    if not found:
        raise UsageError(f"{root} holds no Harbor task (a directory with task.toml)")
    return found


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "task"


def task_name(source: Path, root: Path, config: dict[str, Any]) -> str:
    """`[task] name` in full (`org/name` → `org-name`), else the task's path under the import root."""
    declared = (config.get("task") or {}).get("name") or (config.get("metadata") or {}).get("task_id")
    if isinstance(declared, str) and declared.strip():
        return slug(declared)
    rel = source.relative_to(root) if source != root else Path(source.name)
    return slug("-".join(rel.parts))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskConfigError.single(
            path, f"not UTF-8 text: {exc.reason} at byte {exc.start}", "", "save it as UTF-8"
        ) from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TaskConfigError.single(path, f"cannot read it as TOML: {exc}", "", "fix the file's syntax") from None


_CANARY = re.compile(r"^(<!--.*canary.*-->|#.*canary.*)$", re.IGNORECASE)


def strip_canary(text: str) -> str:
    """The instruction without its leading canary lines (data-provenance markers Harbor never shows)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines) and _CANARY.match(lines[i].strip()):
        i += 1
    if i == 0:
        return text
    while i < len(lines) and not lines[i].strip():
        i += 1
    return "\n".join(lines[i:])


def read_instruction(path: Path) -> str:
    if not path.is_file():
        raise TaskConfigError.single(
            path.parent, f"no {path.name}", path.name, "a Harbor task (and each step) needs one"
        )
    data = path.read_bytes()
    try:
        return strip_canary(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskConfigError.single(
            path,
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start} cannot be decoded",
            "",
            f"re-save {path.name} as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)",
        ) from None


def _tags(meta: dict[str, Any]) -> list[str]:
    raw = ["harbor", *(meta.get("tags") or []), *(meta.get("keywords") or [])]
    for key in ("difficulty", "category"):
        if isinstance(meta.get(key), str):
            raw.append(f"{key}:{meta[key]}")
    tags: list[str] = []
    for tag in raw:
        key, _, value = str(tag).partition(":")
        clean = f"{slug(key)}:{slug(value)}" if value else slug(key)
        if clean not in tags:
            tags.append(clean)
    return tags


def _env_line(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return f'ENV {name}="{escaped}"'


def _write_dockerfile(conv: Conversion, source: Path, target: Path) -> None:
    """environment/Dockerfile: the task's own (or FROM its image), plus the layer Harbor's mounts stand for."""
    env = conv.section("environment")
    dockerfile = target / "environment" / "Dockerfile"
    if isinstance(env.get("docker_image"), str) and env["docker_image"]:
        if dockerfile.is_file():
            conv.losses.append("[environment] docker_image is used; environment/Dockerfile is kept but not built")
        dockerfile.parent.mkdir(parents=True, exist_ok=True)
        original = f"FROM {env['docker_image']}\n"
    elif dockerfile.is_file():
        original = dockerfile.read_text(encoding="utf-8", errors="replace")
    else:
        raise TaskConfigError.single(
            source, "no environment/Dockerfile and no docker_image", "environment", "add a Dockerfile"
        )
    dirs = " ".join(HARBOR_DIRS)
    layer = [
        "",
        "# Added by `coder-eval import harbor`: what Harbor mounts, made by the image (units run without root)",
        "USER root",
        f"RUN mkdir -p {dirs} && chmod 1777 /logs {dirs}",
        *(_env_line(k, v) for k, v in conv.env_table("environment").items()),
    ]
    dockerfile.write_text(original.rstrip("\n") + "\n" + "\n".join(layer) + "\n", encoding="utf-8")


def _sandbox(conv: Conversion, source: Path) -> dict[str, Any]:
    docker: dict[str, Any] = {"dockerfile_path": "environment/Dockerfile", "working_dir": conv.working_dir()}
    try:
        network = import_network(conv.config, conv.losses)
    except ValueError as exc:
        raise TaskConfigError.single(
            source / "task.toml", str(exc), "environment.network_mode", "use public, no-network or allowlist"
        ) from None
    # Harbor's environment stays up from the agent to a shared verifier: what the agent started still
    # serves; a separate verifier starts from a fresh environment, with none of the agent's processes
    keep = not conv.separate_verifier()
    sandbox: dict[str, Any] = {"driver": "docker", "docker": docker, **network, "keep_services": keep}
    limits = conv.limits()
    if limits:
        sandbox["limits"] = limits
    return sandbox


def _reference(conv: Conversion, target: Path) -> dict[str, Any] | None:
    """The solution as the reference; its solve.sh is how the oracle applies it (files of our own export
    are applied as they are)."""
    solution = target / "solution"
    if not solution.is_dir():
        return None
    solve = solution / "solve.sh"
    ours = solve.is_file() and EXPORTED_SOLVE in solve.read_text(encoding="utf-8", errors="replace")
    if (solution / "files").is_dir() and (ours or not solve.is_file()):
        return {"directory": "solution/files"}
    reference: dict[str, Any] = {"directory": "solution"}
    if solve.is_file():
        reference["solve"] = {"command": SOLVE, "timeout": 600}
        env = conv.env_table("solution")
        if env:
            reference["solve"]["env"] = env
    return reference


def _criterion(conv: Conversion) -> dict[str, Any]:
    criterion: dict[str, Any] = {
        "type": "harbor_verifier",
        "description": "Harbor verifier: tests/test.sh, scored by the reward it writes",
        "timeout": conv.verifier_timeout(),
        "pass_threshold": 1.0,  # Harbor's 1 is solved; a partial reward is a partial score, not a pass
    }
    env = conv.env_table("verifier")
    if env:
        criterion["env"] = env
    return criterion


def import_one(source: Path, out: Path, name: str, config: dict[str, Any]) -> ImportedTask:
    """One task directory into `out/name/`; the directory is removed again when the task is refused."""
    conv = Conversion(config)
    steps = step_names(config)
    top = source / "instruction.md"
    instruction = step_prompt(source, steps, read_instruction) if steps else read_instruction(top)
    if not steps and not (source / "tests" / "test.sh").is_file():
        raise TaskConfigError.single(source, "no tests/test.sh", "tests/test.sh", "a Harbor task needs a verifier")
    target = out / name
    if target.exists():
        raise UsageError(f"{target} already exists; import into an empty directory or remove it")
    target.mkdir(parents=True)
    try:
        return _write_task(source, target, conv, instruction)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


def _write_task(source: Path, target: Path, conv: Conversion, instruction: str) -> ImportedTask:
    for part in ("environment", "tests", "solution", "steps"):
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part, symlinks=True)
    _write_dockerfile(conv, source, target)
    meta, task_meta = conv.section("metadata"), conv.section("task")
    doc: dict[str, Any] = {
        "task_id": target.name,
        "description": str(task_meta.get("description") or meta.get("description") or f"Harbor task {target.name}"),
        "tags": _tags({**meta, **task_meta}),
        "initial_prompt": instruction,
        "agent": dict(TERMINAL_AGENT),
        "sandbox": _sandbox(conv, source),
    }
    run_limits = conv.run_limits()
    if run_limits:
        doc["run_limits"] = run_limits
    reference = _reference(conv, target)
    if reference is not None:
        doc["reference"] = reference
    if step_names(conv.config):
        criteria = step_criteria(conv.config, source, target, conv.losses, conv.verifier_timeout())
        if "turn_timeout" in run_limits:
            verifiers = sum(float(c["timeout"]) for c in criteria)
            run_limits["task_timeout"] = run_limits["turn_timeout"] + verifiers + conv.setup_timeout()
    else:
        criteria = [_criterion(conv)]
        if (source / "steps").is_dir():
            conv.losses.append("steps/ without [[steps]] in task.toml is not imported (no step is declared)")
    doc["success_criteria"] = criteria
    if (source / "environment" / "docker-compose.yaml").is_file():
        conv.losses.append("environment/docker-compose.yaml: multi-container environments are not imported")
    conv.unhandled()
    task_file = target / "task.yaml"
    header = f"# Imported from the Harbor task {source} by `coder-eval import harbor`.\n"
    task_file.write_text(header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    validate_document(yaml.safe_load(task_file.read_text(encoding="utf-8")), task_file)
    return ImportedTask(source, task_file, conv.losses)


def import_harbor(root: Path, out: Path) -> ImportReport:
    """Every task under `root` into `out`: each imported, or refused with its reason."""
    report = ImportReport()
    names: dict[str, Path] = {}
    for source in find_harbor_tasks(root):
        try:
            config = _read_toml(source / "task.toml")
            name = task_name(source, root, config)
            if name in names:
                raise UsageError(
                    f"its name {name!r} is already taken by {names[name]}; set [task] name to tell them apart"
                )
            report.imported.append(import_one(source, out, name, config))
            names[name] = source
        except CoderEvalError as exc:
            report.refused.append(Refused(source, " ".join(str(exc).split())))
    return report
