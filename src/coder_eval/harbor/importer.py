"""`coder-eval import harbor DIR -o OUT`: Harbor (or Terminal-Bench 2) task directories as our task files.

Each Harbor task becomes `OUT/<name>/task.yaml` beside copies of its `environment/`, `tests/` and
`solution/`:

- the sandbox is the docker driver on `environment/Dockerfile`, with the task's CPU, memory and
  network settings (`harbor/network.py`);
- the verifier is one `run_command` criterion: it copies `tests/` to `/tests`, runs `test.sh` and
  prints the reward it wrote (`/logs/verifier/reward.txt`, or `reward` in `reward.json`) as the
  score (`score_from_stdout`), so a partial reward is a partial score;
- the agent block is terminal-ready: Harbor tasks are solved in a shell, and Claude Code under
  `acceptEdits` refuses commands not in `allowed_tools`, so the block lists the shell and file
  tools (`TERMINAL_AGENT`); edit it for another agent;
- the solution directory is the task's reference (a task exported by coder-eval keeps its
  reference files in `solution/files/`, which is used instead).
"""

from __future__ import annotations

import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.harbor.network import import_network
from coder_eval.loading.loader import validate_document

VERIFIER = r"""T="${HARBOR_TESTS_DIR:-/tests}"; L="${HARBOR_VERIFIER_LOGS:-/logs/verifier}"
rm -rf "$T" && mkdir -p "$T" "$L" && cp -R "$TASK_DIR/tests/." "$T/" && rm -f "$L/reward.txt" "$L/reward.json"
CODER_EVAL_WORKDIR="${CODER_EVAL_WORKDIR:-$PWD}" bash "$T/test.sh" > "$L/test-stdout.txt" 2>&1
if [ -s "$L/reward.txt" ]; then head -n 1 "$L/reward.txt"
elif [ -s "$L/reward.json" ]; then
  python3 -c 'import json, sys; print(float(json.load(open(sys.argv[1])).get("reward", 0)))' "$L/reward.json"
else echo 0; fi"""


TERMINAL_AGENT: dict[str, Any] = {
    "type": "claude-code",
    "permission_mode": "acceptEdits",
    "allowed_tools": ["Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "LS"],
}
"""The agent block of an imported task: every tool a terminal task needs is allowed up front."""


@dataclass
class ImportedTask:
    source: Path
    task_file: Path
    notes: list[str]


def find_harbor_tasks(root: Path) -> list[Path]:
    """`root` when it is a task (holds task.toml), else its subdirectories that are."""
    if (root / "task.toml").is_file():
        return [root]
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory")
    found = sorted(p.parent for p in root.glob("*/task.toml"))
    if not found:
        raise UsageError(f"{root} holds no Harbor task (a directory with task.toml)")
    return found


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "task"


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise TaskConfigError.single(path, f"cannot read it as TOML: {exc}", "", "fix the file's syntax") from None


def _tags(meta: dict[str, Any]) -> list[str]:
    raw = ["harbor", *(meta.get("tags") or []), *(meta.get("keywords") or [])]
    for key in ("difficulty", "category"):
        if isinstance(meta.get(key), str):
            raw.append(f"{key}:{meta[key]}")
    tags: list[str] = []
    for tag in raw:
        key, _, value = str(tag).partition(":")
        clean = f"{_slug(key)}:{_slug(value)}" if value else _slug(key)
        if clean not in tags:
            tags.append(clean)
    return tags


def _sandbox(config: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    env = config.get("environment") or {}
    docker: dict[str, Any] = {"dockerfile_path": "environment/Dockerfile"}
    if env.get("docker_image"):
        docker = {"image": env["docker_image"]}
    limits: dict[str, Any] = {}
    if env.get("cpus"):
        limits["max_cpus"] = float(env["cpus"])
    if env.get("memory_mb"):
        limits["max_memory_mb"] = int(env["memory_mb"])
    elif isinstance(env.get("memory"), str):
        notes.append(f"environment.memory {env['memory']!r} is not converted; set sandbox.limits.max_memory_mb")
    sandbox: dict[str, Any] = {"driver": "docker", "docker": docker, **import_network(config, notes)}
    if limits:
        sandbox["limits"] = limits
    return sandbox


def _copy(src: Path, dst: Path) -> bool:
    if not src.is_dir():
        return False
    shutil.copytree(src, dst)
    return True


def import_one(source: Path, out: Path) -> ImportedTask:
    config = _read_toml(source / "task.toml")
    meta = config.get("metadata") or {}
    task_meta = config.get("task") or {}
    instruction = source / "instruction.md"
    if not instruction.is_file():
        raise TaskConfigError.single(source, "no instruction.md", "instruction.md", "a Harbor task needs one")
    if not (source / "tests" / "test.sh").is_file():
        raise TaskConfigError.single(source, "no tests/test.sh", "tests/test.sh", "a Harbor task needs a verifier")
    name = _slug(str(task_meta.get("name") or meta.get("task_id") or source.name).split("/")[-1])
    target = out / name
    if target.exists():
        raise UsageError(f"{target} already exists; import into an empty directory or remove it")
    notes: list[str] = []
    target.mkdir(parents=True)
    has_env = _copy(source / "environment", target / "environment")
    _copy(source / "tests", target / "tests")
    try:
        sandbox = _sandbox(config, notes)
    except ValueError as exc:
        raise TaskConfigError.single(
            source / "task.toml", str(exc), "environment.network_mode", "use public, no-network or allowlist"
        ) from None
    if not has_env and "image" not in sandbox["docker"]:
        raise TaskConfigError.single(source, "no environment/ and no docker_image", "environment", "add a Dockerfile")
    doc: dict[str, Any] = {
        "task_id": name,
        "description": str(task_meta.get("description") or meta.get("description") or f"Harbor task {name}"),
        "tags": _tags({**meta, **task_meta}),
        "initial_prompt": instruction.read_text(encoding="utf-8"),
        "agent": dict(TERMINAL_AGENT),
        "sandbox": sandbox,
    }
    agent_timeout = (config.get("agent") or {}).get("timeout_sec")
    if agent_timeout:
        doc["run_limits"] = {"task_timeout": float(agent_timeout)}
    if _copy(source / "solution", target / "solution"):
        files = target / "solution" / "files"
        doc["reference"] = {"directory": "solution/files" if files.is_dir() else "solution"}
    verifier_timeout = float((config.get("verifier") or {}).get("timeout_sec") or 600.0)
    doc["success_criteria"] = [
        {
            "type": "run_command",
            "command": VERIFIER,
            "score_from_stdout": True,
            "pass_threshold": 1.0,
            "timeout": verifier_timeout,
            "description": "Harbor verifier: tests/test.sh, scored by the reward it writes",
        }
    ]
    if (config.get("verifier") or {}).get("env"):
        notes.append("verifier.env is not carried over; set those variables in the environment that runs the task")
    task_file = target / "task.yaml"
    header = f"# Imported from the Harbor task {source} by `coder-eval import harbor`.\n"
    task_file.write_text(header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True), encoding="utf-8")
    validate_document(yaml.safe_load(task_file.read_text(encoding="utf-8")), task_file)
    return ImportedTask(source, task_file, notes)


def import_harbor(root: Path, out: Path) -> list[ImportedTask]:
    return [import_one(source, out) for source in find_harbor_tasks(root)]
