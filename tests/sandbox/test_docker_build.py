"""Task Dockerfiles under the docker driver: a broken one ends its unit BUILD_FAILED (the build log's
tail in task.json) while the batch goes on; a working one is built and its WORKDIR seeds the workspace."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.slow

BASE = os.environ.get("CODER_EVAL_DOCKER_IMAGE", "coder-eval-base:latest")


def _docker_ready() -> bool:
    if shutil.which("docker") is None or subprocess.run(["docker", "info"], capture_output=True).returncode:
        return False
    return subprocess.run(["docker", "image", "inspect", BASE], capture_output=True).returncode == 0


@pytest.fixture(autouse=True)
def _needs_docker() -> None:
    if not _docker_ready():
        pytest.skip("docker or its base image is not available (scripts/sandbox-deps.sh)")


def _task(folder: Path, task_id: str, docker: dict[str, Any], criteria: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    doc = {
        "task_id": task_id,
        "description": task_id,
        "initial_prompt": "x",
        "agent": {"type": "none"},
        "sandbox": {"driver": "docker", "docker": docker},
        "success_criteria": criteria,
    }
    path = folder / f"{task_id}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _run(tmp_path: Path, *tasks: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
    run_dir = tmp_path / "run"
    cmd = [sys.executable, "-m", "coder_eval", "run", *map(str, tasks), "--run-dir", str(run_dir), "-j", "2"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    records = [json.loads(p.read_text()) for p in run_dir.rglob("task.json")]
    return proc, {r["task_id"]: r for r in records}


def _images(marker: str) -> list[str]:
    out = subprocess.run(["docker", "images", "-q", "--filter", f"label=test={marker}"], capture_output=True, text=True)
    return out.stdout.split()


def test_a_broken_dockerfile_is_build_failed_and_the_batch_goes_on(tmp_path: Path) -> None:
    marker = "BROKEN_" + secrets.token_hex(6)
    env_dir = tmp_path / "suite" / "broken" / "env"
    env_dir.mkdir(parents=True)
    (env_dir / "Dockerfile").write_text(f"FROM {BASE}\nRUN echo {marker} && exit 3\n")
    broken = _task(
        tmp_path / "suite" / "broken",
        "broken",
        {"dockerfile_path": "env/Dockerfile"},
        [{"type": "run_command", "command": "true", "description": "never graded"}],
    )
    fine = _task(
        tmp_path / "suite" / "fine",
        "fine",
        {},
        [{"type": "run_command", "command": "test -f /etc/debian_version", "description": "inside the image"}],
    )
    proc, records = _run(tmp_path, broken, fine)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert records["broken"]["final_status"] == "BUILD_FAILED", records["broken"]
    assert marker in records["broken"]["error_message"], "the build log's tail belongs in task.json"
    assert records["fine"]["final_status"] == "SUCCESS", records["fine"]


def test_a_dockerfile_is_built_once_and_its_workdir_seeds_the_workspace(tmp_path: Path) -> None:
    marker = secrets.token_hex(6)
    suite = tmp_path / "suite"
    env_dir = suite / "env"
    env_dir.mkdir(parents=True)
    (env_dir / "input.txt").write_text(f"baked {marker}\n")
    (env_dir / "Dockerfile").write_text(
        f'FROM {BASE}\nLABEL test={marker}\nARG GREETING=unset\nRUN echo "$GREETING" > /opt/greeting.txt\n'
        "WORKDIR /app\nCOPY input.txt /app/input.txt\n"
        'ENTRYPOINT ["/bin/sh", "-c", "exit 7"]\n'  # the unit's holder starts whatever the image's entrypoint
    )
    criteria = [
        {"type": "file_contains", "path": "input.txt", "includes": [marker], "description": "seeded"},
        {"type": "run_command", "command": 'test "$(pwd)" = /app && test -f input.txt', "description": "in /app"},
        {"type": "run_command", "command": "grep -q hello /opt/greeting.txt", "description": "build arg"},
    ]
    build = {"dockerfile_path": "env/Dockerfile", "build": {"args": {"GREETING": "hello"}}}
    tasks = [
        _task(suite, "auto", {**build, "working_dir": "auto"}, criteria),
        _task(suite, "concrete", {**build, "working_dir": "/app"}, criteria),
    ]
    try:
        proc, records = _run(tmp_path, *tasks)
        assert proc.returncode == 0, proc.stdout + proc.stderr + json.dumps(records, indent=1)[:3000]
        assert sorted(records) == ["auto", "concrete"]
        assert len(_images(marker)) == 1, "one content, one build"
    finally:
        for image in _images(marker):
            subprocess.run(["docker", "rmi", "-f", image], capture_output=True, timeout=120)
