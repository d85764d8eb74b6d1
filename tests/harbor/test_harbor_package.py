"""Exported tasks pass Harbor's own loader and linter: the `harbor` package from the package index, in a
throwaway venv (it needs Python >= 3.12, so the venv is made from one found on this machine)."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

HARBOR = "harbor==0.26.0"
"""The release these tests were written against (its lint rules and task model)."""

pytestmark = pytest.mark.slow

LOADER = """
import json, sys
from harbor.models.task.task import Task
from harbor.models.task.verifier_mode import resolve_task_verifier_mode
out = []
for path in sys.argv[1:]:
    task = Task(path)
    out.append({
        "name": task.name,
        "instruction": task.instruction,
        "mode": resolve_task_verifier_mode(task.config).value,
        "artifacts": [a if isinstance(a, str) else a.source for a in task.config.artifacts],
        "network": task.config.environment.network_mode,
    })
print(json.dumps(out))
"""


def _runs(python: str) -> bool:
    try:
        done = subprocess.run([python, "-c", "import sys; assert sys.version_info >= (3, 12)"], timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def _newer_python() -> str | None:
    """A Python >= 3.12 under pyenv or on PATH (the harness itself may run on 3.11; pyenv's shims may
    name a version they will not run, so each candidate is tried)."""
    if sys.version_info >= (3, 12):
        return sys.executable
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates = sorted(glob.glob(os.path.join(root, "versions", "3.1[2-9]*", "bin", "python3")), reverse=True)
    candidates += [found for name in ("python3.13", "python3.12") if (found := shutil.which(name))]
    return next((c for c in candidates if _runs(c)), None)


@pytest.fixture(scope="module")
def harbor_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = _newer_python()
    if base is None:
        if os.environ.get("CI"):
            pytest.fail("no Python >= 3.12 here to install the harbor package into")
        pytest.skip("no Python >= 3.12 here to install the harbor package into")
    venv = tmp_path_factory.mktemp("harbor") / "venv"
    uv = Path(sys.executable).with_name("uv")
    subprocess.run([str(uv), "venv", "-q", str(venv), "--python", base], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [str(uv), "pip", "install", "-q", "--python", str(python), HARBOR],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        pytest.fail(f"could not install {HARBOR} from the package index: {done.stderr[-2000:]}")
    return python


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def write(root: Path, name: str, doc: dict[str, object], files: dict[str, str] | None = None) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    for rel, text in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    path = folder / "task.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


CHECK = [{"type": "run_command", "command": "test -f out.txt", "description": "out.txt is there"}]
SHAPES: dict[str, tuple[dict[str, object], dict[str, str]]] = {
    "image": (
        {
            "task_id": "image",
            "description": "an exported shape",
            "initial_prompt": "Write out.txt",
            "sandbox": {"driver": "docker", "docker": {"image": "python:3.12-slim", "network": "none"}},
            "success_criteria": CHECK,
            "reference": {"directory": "ref"},
        },
        {"ref/out.txt": "done\n"},
    ),
    "dockerfile": (
        {
            "task_id": "dockerfile",
            "description": "an exported shape",
            "initial_prompt": "Write out.txt in /srv/work",
            "sandbox": {
                "driver": "docker",
                "docker": {"dockerfile_path": "env/Dockerfile", "working_dir": "/srv/work"},
                "network": "allowlist",
                "allow_hosts": ["example.org"],
                "template_sources": [{"type": "starter_files", "files": [{"path": "a.txt", "content": "a\n"}]}],
                "limits": {"max_cpus": 1, "max_memory_mb": 512},
            },
            "success_criteria": CHECK,
        },
        {"env/Dockerfile": "FROM debian:bookworm-slim\nRUN mkdir -p /srv/work\n"},
    ),
    "rows": (
        {
            "task_id": "rows",
            "description": "an exported shape",
            "initial_prompt": "Greet ${row.name} in out.txt",
            "dataset": {"rows": [{"id": "ada", "name": "Ada"}, {"id": "bob", "name": "Bob"}]},
            "sandbox": {"driver": "docker", "docker": {"image": "python:3.12-slim"}},
            "success_criteria": CHECK,
        },
        {},
    ),
    "services": (
        {
            "task_id": "services",
            "description": "an exported shape",
            "initial_prompt": "Serve on port 8000",
            "sandbox": {"driver": "docker", "docker": {"image": "python:3.12-slim"}, "keep_services": True},
            "success_criteria": CHECK,
        },
        {},
    ),
}


def test_exported_tasks_load_and_lint_clean_in_harbor(tmp_path: Path, harbor_python: Path) -> None:
    out = tmp_path / "out"
    for name, (doc, files) in SHAPES.items():
        proc = cli("export", write(tmp_path / "src", name, doc, files), "--format", "harbor", "-o", out, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    exported = sorted(p for p in out.iterdir() if p.is_dir())
    assert [p.name for p in exported] == ["dockerfile", "image", "rows-ada", "rows-bob", "services"]
    harbor = harbor_python.with_name("harbor")

    loaded = subprocess.run(
        [str(harbor_python), "-c", LOADER, *map(str, exported)], capture_output=True, text=True, timeout=300
    )
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    tasks = {t["name"]: t for t in json.loads(loaded.stdout)}
    assert tasks["rows-bob"]["instruction"].startswith("Greet Bob in out.txt")
    assert tasks["image"]["mode"] == "separate" and tasks["image"]["artifacts"] == ["/app"]
    assert tasks["dockerfile"]["artifacts"] == ["/srv/work"] and tasks["dockerfile"]["network"] == "allowlist"
    assert tasks["services"]["mode"] == "shared" and tasks["services"]["artifacts"] == []

    clean = [str(p) for p in exported if p.name != "services"]
    lint = subprocess.run([str(harbor), "lint", "--json", *clean], capture_output=True, text=True, timeout=300)
    assert lint.returncode == 0 and json.loads(lint.stdout) == [], lint.stdout + lint.stderr
    # keeping the agent's services alive needs the shared environment: the one finding, and it is said
    kept = subprocess.run(
        [str(harbor), "lint", "--json", str(out / "services")], capture_output=True, text=True, timeout=300
    )
    assert [f["rule"] for f in json.loads(kept.stdout)] == ["shared-verifier"], kept.stdout
    config = tomllib.loads((out / "services" / "task.toml").read_text(encoding="utf-8"))
    assert any("shared-verifier" in line for line in config["metadata"]["not_exported"])


def test_a_separate_verifier_imports_without_kept_services(tmp_path: Path) -> None:
    """A task exported with a separate verifier comes back with the agent's processes ended before grading."""
    doc, files = SHAPES["image"]
    proc = cli("export", write(tmp_path / "src", "image", doc, files), "--format", "harbor", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = cli("import", "harbor", "out", "-o", "back", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    imported = yaml.safe_load((tmp_path / "back" / "image" / "task.yaml").read_text(encoding="utf-8"))
    assert imported["sandbox"]["keep_services"] is False
    assert "environment_mode separate: the verifier runs in the agent's sandbox" in proc.stdout
