"""An exported Harbor task grades with this Coder Eval, carried as a wheel, never the registry's `coder-eval`.

The verifier (`tests/test.sh`) installs the wheel the export wrote into a fresh virtual
environment standing in for the task image's Python; the installed package's files must be
this checkout's, byte for byte, and the verifier must grade a solved workspace 1.0.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from test_harbor_round_trip import cli, write_task

import coder_eval

pytestmark = pytest.mark.slow


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def test_the_verifier_installs_and_runs_the_carried_wheel(tmp_path: Path, verifier_python: Path) -> None:
    task = write_task(tmp_path)
    assert cli("export", task, "--format", "harbor", "-o", "out", cwd=tmp_path).returncode == 0
    exported = tmp_path / "out" / "greet-file"
    (wheel,) = (exported / "tests" / "wheels").glob("coder_eval-*.whl")
    test_sh = (exported / "tests" / "test.sh").read_text(encoding="utf-8")
    assert 'pip install --quiet "$WHEEL"' in test_sh and "coder-eval==" not in test_sh

    python = verifier_python
    venv = python.parent.parent
    app, logs = tmp_path / "work" / "app", tmp_path / "work" / "logs"
    shutil.copytree(exported / "environment" / "coder-eval-workspace", app)
    env = {**os.environ, "CODER_EVAL_WORKDIR": str(app), "HARBOR_VERIFIER_LOGS": str(logs)}
    env["CODER_EVAL_PYTHON"] = str(python)
    subprocess.run(["bash", exported / "solution" / "solve.sh"], env=env, check=True, timeout=30)
    proc = subprocess.run(
        ["bash", exported / "tests" / "test.sh"], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((logs / "reward.json").read_text(encoding="utf-8"))["reward"] == 1.0

    where = subprocess.run(
        [str(python), "-c", "import coder_eval, pathlib; print(pathlib.Path(coder_eval.__file__).parent)"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout.strip()  # fmt: skip
    installed = Path(where)
    assert installed.is_relative_to(venv), installed  # the venv's own copy, not this checkout on a path
    assert _digests(installed) == _digests(Path(coder_eval.__file__).parent)
    assert wheel.stat().st_size > 0
