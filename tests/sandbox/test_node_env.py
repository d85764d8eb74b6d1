"""sandbox.node: npm packages installed into the workspace and their bin directory on PATH."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.sandbox import Sandbox
from coder_eval.sandbox.templates import SetupError

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("npm") is None or shutil.which("node") is None, reason="npm/node not on PATH"),
]


def make(tmp_path: Path, config: dict[str, Any]) -> Sandbox:
    task_dir = tmp_path / "task"
    task_dir.mkdir(exist_ok=True)
    return Sandbox(
        SandboxConfig.model_validate(config),
        task_dir=task_dir,
        task_file=task_dir / "task.yaml",
        artifacts_dir=tmp_path / "out" / "artifacts",
        mode=PreservationMode.DIRECT_WRITE,
        scratch=tmp_path / "scratch",
    )


@pytest.fixture(scope="module")
def node_box(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    """One npm install for the whole module: it is the slow part."""
    box = make(tmp_path_factory.mktemp("node"), {"node": {"packages": ["is-number@7.0.0"]}})
    try:
        box.setup()
    except SetupError as exc:  # e.g. no network to reach the npm registry
        pytest.skip(f"npm install failed here: {exc}")
    return box


def test_package_installed(node_box: Sandbox) -> None:
    package = node_box.workspace / "node_modules" / "is-number"
    assert package.is_dir()
    assert '"version": "7.0.0"' in (package / "package.json").read_text()


@pytest.mark.parametrize(
    ("script", "stdout"),
    [
        pytest.param("require('is-number')", "", id="require"),
        pytest.param("console.log(require('is-number')(5))", "true", id="call-true"),
        pytest.param("console.log(require('is-number')('abc'))", "false", id="call-false"),
    ],
)
def test_node_resolves_the_package(node_box: Sandbox, script: str, stdout: str) -> None:
    out = node_box.run(f'node -e "{script}"', timeout=60)
    assert out.exit_code == 0, out.stderr
    assert out.stdout.strip() == stdout


def test_node_bin_on_path(node_box: Sandbox) -> None:
    bin_dir = node_box.workspace / "node_modules" / ".bin"
    entries = node_box.env()["PATH"].split(os.pathsep)
    assert str(bin_dir) in entries
    assert entries.index(str(bin_dir)) < entries.index(os.environ["PATH"].split(os.pathsep)[0])
    assert node_box.bin_dirs[-1] == bin_dir


def test_node_bin_wins_on_path_in_commands(node_box: Sandbox) -> None:
    bin_dir = node_box.workspace / "node_modules" / ".bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / "ce-probe-tool"
    tool.write_text("#!/bin/sh\necho from-node-bin\n")
    tool.chmod(0o755)
    try:
        out = node_box.run("ce-probe-tool", timeout=30)
        assert out.exit_code == 0, out.stderr
        assert out.stdout.strip() == "from-node-bin"
    finally:
        tool.unlink()


@pytest.mark.parametrize(
    ("config", "on_path"),
    [
        pytest.param({"node": {"packages": ["is-number@7.0.0"]}}, True, id="node-task"),
        pytest.param({}, False, id="task-without-node"),
    ],
)
def test_adopted_workspace_derives_node_bin(
    tmp_path: Path, node_box: Sandbox, config: dict[str, Any], on_path: bool
) -> None:
    """Grading in place (evaluate RUN_DIR) sees the same PATH as the run that installed the packages."""
    adopted = make(tmp_path, config)
    root = adopted.adopt(node_box.workspace)
    bin_dir = str(root / "node_modules" / ".bin")
    assert (bin_dir in adopted.env()["PATH"].split(os.pathsep)) is on_path
    # an isolating driver grades inside private directories of its own, gone with the environment
    assert adopted.finish() == root and root.is_dir()
    scratch = tmp_path / "scratch"
    assert not scratch.exists() or not any(scratch.iterdir())


@pytest.mark.parametrize(
    "config",
    [pytest.param({"node": {"packages": []}}, id="empty-packages"), pytest.param({}, id="no-node-block")],
)
def test_no_packages_installs_nothing(tmp_path: Path, config: dict[str, Any]) -> None:
    box = make(tmp_path, config)
    root = box.setup()
    assert not (root / "node_modules").exists()
    assert str(root / "node_modules" / ".bin") not in box.env().get("PATH", "")


def test_missing_package_is_a_setup_error(tmp_path: Path) -> None:
    box = make(tmp_path, {"node": {"packages": ["coder-eval-no-such-package-xyzzy@0.0.0"]}})
    with pytest.raises(SetupError, match="npm install"):
        box.setup()
