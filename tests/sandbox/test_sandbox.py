"""Sandbox setup: template sources, ignore rules, mock dirs, environments (record_cli: test_record_cli.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from coder_eval.errors import TaskConfigError
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.sandbox import Sandbox


def make(tmp_path: Path, config: dict[str, Any], mode: PreservationMode = PreservationMode.DIRECT_WRITE) -> Sandbox:
    task_dir = tmp_path / "task"
    task_dir.mkdir(exist_ok=True)
    return Sandbox(
        SandboxConfig.model_validate(config),
        task_dir=task_dir,
        task_file=task_dir / "task.yaml",
        artifacts_dir=tmp_path / "out" / "artifacts",
        mode=mode,
        scratch=tmp_path / "scratch",
    )


def test_sources_apply_in_order_last_wins(tmp_path):
    tpl = tmp_path / "task" / "tpl"
    (tpl / "src").mkdir(parents=True)
    (tpl / "src" / "a.py").write_text("from template")
    (tpl / "keep.txt").write_text("kept")
    box = make(
        tmp_path,
        {
            "template_sources": [
                {"type": "template_dir", "path": "tpl"},
                {"type": "starter_files", "files": [{"path": "src/a.py", "content": "from starter"}]},
            ]
        },
    )
    root = box.setup()
    assert (root / "src" / "a.py").read_text() == "from starter"
    assert (root / "keep.txt").read_text() == "kept"


def test_template_dir_mount_point_and_default_ignores(tmp_path):
    tpl = tmp_path / "task" / "tpl"
    for rel in ("node_modules/x/i.js", "dist/b.js", "__pycache__/c.pyc", "ok/d.txt"):
        (tpl / rel).parent.mkdir(parents=True, exist_ok=True)
        (tpl / rel).write_text("x")
    root = make(
        tmp_path,
        {
            "template_sources": [{"type": "template_dir", "path": "tpl", "mount_point": "c"}],
            "ignore_patterns": ["!dist"],
        },
    ).setup()
    assert (root / "c" / "ok" / "d.txt").is_file()
    assert (root / "c" / "dist" / "b.js").is_file()  # un-ignored by the task
    assert not (root / "c" / "node_modules").exists() and not (root / "c" / "__pycache__").exists()


def test_repo_source_clones_a_pinned_commit(tmp_path):
    repo = tmp_path / "origin"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "f.txt").write_text("one")
    subprocess.run([*git, "-C", str(repo), "add", "."], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-qm", "1"], check=True)
    first = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    (repo / "f.txt").write_text("two")
    subprocess.run([*git, "-C", str(repo), "commit", "-qam", "2"], check=True)
    root = make(tmp_path, {"template_sources": [{"type": "repo", "url": str(repo), "commit": first}]}).setup()
    assert (root / "f.txt").read_text() == "one"


def test_mock_dirs_are_executable_and_first_on_path(tmp_path):
    box = make(
        tmp_path,
        {
            "template_sources": [
                {
                    "type": "starter_files",
                    "files": [{"path": "mocks/git-like", "content": "#!/bin/sh\necho mocked $*\n"}],
                }
            ],
            "mock_path_dirs": ["mocks"],
        },
    )
    box.setup()
    assert box.run("git-like a b", timeout=10).stdout == "mocked a b\n"


def test_record_cli_colliding_with_a_mock_dir_is_refused(tmp_path):
    box = make(
        tmp_path,
        {
            "template_sources": [{"type": "starter_files", "files": [{"path": "mocks/uip", "content": "#!/bin/sh\n"}]}],
            "mock_path_dirs": ["mocks"],
            "record_cli": [{"tool": "uip"}],
        },
    )
    with pytest.raises(TaskConfigError, match="collides"):
        box.setup()


def test_missing_mock_dir_is_a_config_error(tmp_path):
    with pytest.raises(TaskConfigError, match="mock_path_dirs"):
        make(tmp_path, {"mock_path_dirs": ["nowhere"]}).setup()


def test_sandbox_commands_never_see_credentials(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak-123")
    box = make(tmp_path, {})
    box.setup()
    assert "sk-should-not-leak" not in box.run("env", timeout=10).stdout


def test_move_on_write_moves_the_workspace_into_artifacts(tmp_path):
    box = make(
        tmp_path,
        {"template_sources": [{"type": "starter_files", "files": [{"path": "a", "content": "x"}]}]},
        mode=PreservationMode.MOVE_ON_WRITE,
    )
    root = box.setup()
    assert (tmp_path / "scratch") in root.parents
    kept = box.finish()
    assert kept == tmp_path / "out" / "artifacts" and (kept / "a").read_text() == "x"
    assert not root.exists()


@pytest.mark.slow
def test_python_env_is_a_uv_venv_with_the_packages(tmp_path):
    box = make(tmp_path, {"python": {"env_packages": ["six"]}})
    root = box.setup()
    out = box.run("python -c 'import six, sys; print(sys.prefix)'", timeout=60)
    assert out.exit_code == 0, out.stderr
    assert out.stdout.strip() == str(root / ".venv")
