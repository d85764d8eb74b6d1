"""Harbor interop: export a task, play Harbor's oracle and verifier locally, import it back, grade again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.sandbox.docker import docker_available

TASK = {
    "task_id": "greet-file",
    "description": "write a greeting program",
    "tags": ["demo"],
    "initial_prompt": "Create greet.py that prints a greeting for the name in name.txt.",
    "sandbox": {
        "driver": "docker",
        "docker": {"image": "python:3.12-slim", "network": "none"},
        "template_sources": [{"type": "starter_files", "files": [{"path": "name.txt", "content": "Ada\n"}]}],
    },
    "success_criteria": [
        {"type": "file_contains", "path": "greet.py", "includes": ["name.txt"], "description": "reads name.txt"},
        {
            "type": "run_command",
            "command": "python greet.py",
            "expected_stdout": "Hello, Ada!",
            "description": "greets Ada",
            "weight": 2,
        },
        {"type": "command_executed", "command_pattern": "greet.py", "description": "ran it"},
    ],
    "reference": {"directory": "reference"},
}
SOLUTION = "from pathlib import Path\n\nprint(f\"Hello, {Path('name.txt').read_text().strip()}!\")\n"


def cli(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(
        [sys.executable, "-m", "coder_eval", *map(str, args)],
        cwd=cwd,
        env={**full, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def write_task(root: Path, doc: dict[str, Any] = TASK) -> Path:
    (root / "src" / "reference").mkdir(parents=True)
    (root / "src" / "reference" / "greet.py").write_text(SOLUTION, encoding="utf-8")
    path = root / "src" / "task.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def harbor_trial(task_dir: Path, work: Path, *, solve: bool, python: Path) -> dict[str, float]:
    """What Harbor does, on this machine: the starting state, the oracle (or nothing), the verifier.

    `python` stands in for the image's python3: the verifier installs the carried wheel into it."""
    app, logs = work / "app", work / "logs"
    shutil.copytree(task_dir / "environment" / "coder-eval-workspace", app)
    env = {**os.environ, "CODER_EVAL_WORKDIR": str(app), "HARBOR_VERIFIER_LOGS": str(logs)}
    env["CODER_EVAL_PYTHON"] = str(python)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    if solve:
        subprocess.run(["bash", task_dir / "solution" / "solve.sh"], env=env, check=True, timeout=30)
    subprocess.run(["bash", task_dir / "tests" / "test.sh"], env=env, capture_output=True, timeout=600)
    return dict(json.loads((logs / "reward.json").read_text(encoding="utf-8")))


@pytest.mark.slow
def test_export_then_verify_then_import_then_grade(tmp_path: Path, verifier_python: Path) -> None:
    task = write_task(tmp_path)
    proc = cli("export", task, "--format", "harbor", "-o", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    exported = tmp_path / "out" / "greet-file"
    assert "not exported: criterion command_executed: ran it" in proc.stdout
    config = tomllib.loads((exported / "task.toml").read_text(encoding="utf-8"))
    assert config["metadata"]["task_id"] == "greet-file" and config["environment"]["allow_internet"] is False
    assert config["environment"]["network_mode"] == "no-network"
    assert config["verifier"]["environment_mode"] == "separate" and config["artifacts"] == ["/app"]
    assert (exported / "instruction.md").read_text(encoding="utf-8").startswith("Create greet.py")
    dockerfile = (exported / "environment" / "Dockerfile").read_text(encoding="utf-8")
    assert dockerfile.startswith("FROM python:3.12-slim") and "COPY coder-eval-workspace/ /app/" in dockerfile
    assert (exported / "environment" / "coder-eval-workspace" / "name.txt").read_text(encoding="utf-8") == "Ada\n"

    solved = harbor_trial(exported, tmp_path / "solved", solve=True, python=verifier_python)
    assert solved == {"reward": 1.0, "success": 1.0, "criterion_0": 1.0, "criterion_1": 1.0}
    unsolved = harbor_trial(exported, tmp_path / "unsolved", solve=False, python=verifier_python)
    assert unsolved["reward"] == 0.0 and unsolved["success"] == 0.0

    proc = cli("import", "harbor", "out", "-o", "imported", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    imported_file = tmp_path / "imported" / "greet-file" / "task.yaml"
    imported = yaml.safe_load(imported_file.read_text(encoding="utf-8"))
    assert imported["sandbox"]["driver"] == "docker"
    assert imported["sandbox"]["docker"] == {"dockerfile_path": "environment/Dockerfile", "working_dir": "auto"}
    assert imported["sandbox"]["network"] == "none"
    assert imported["sandbox"]["keep_services"] is False  # Harbor's separate verifier: no live services
    assert imported["reference"] == {"directory": "solution/files"}
    (criterion,) = imported["success_criteria"]
    assert criterion["type"] == "harbor_verifier"
    assert imported["agent"]["type"] == "claude-code" and "Bash" in imported["agent"]["allowed_tools"]
    # without a daemon, `plan` refuses a docker task unless it is rehearsed on the host (as run would)
    rehearse = [] if docker_available() else ["--rehearse"]
    planned = cli("plan", "imported", "-b", "script", "--oracle", *rehearse, cwd=tmp_path)
    assert planned.returncode == 0, planned.stdout + planned.stderr

    # Grade the solved workspace with the imported task: its verifier runs the exported one. The
    # task's image needs a registry, so grading runs under tempdir with the verifier's directories
    # moved into the test's tree (passed through by name).
    criterion.update(tests_path=str(tmp_path / "t"), logs_path=str(tmp_path / "l"))
    imported_file.write_text(yaml.safe_dump(imported), encoding="utf-8")
    args = ("evaluate", imported_file, tmp_path / "solved" / "app", "--run-dir", "ev", "--driver", "tempdir")
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 0 and "SUCCESS weighted score 1.000" in proc.stdout, proc.stdout + proc.stderr


def test_a_harbor_task_with_a_partial_reward_imports_as_a_partial_score(tmp_path: Path) -> None:
    src = tmp_path / "harbor" / "count-lines"
    (src / "environment").mkdir(parents=True)
    (src / "tests").mkdir()
    (src / "solution").mkdir()
    (src / "task.toml").write_text(
        'version = "1.0"\n[metadata]\ndifficulty = "easy"\ncategory = "programming"\ntags = ["files"]\n'
        "[verifier]\ntimeout_sec = 60.0\n[agent]\ntimeout_sec = 300.0\n"
        "[environment]\ncpus = 2\nmemory_mb = 2048\nallow_internet = true\n",
        encoding="utf-8",
    )
    (src / "instruction.md").write_text("Write the number of lines of data.txt to count.txt.\n", encoding="utf-8")
    (src / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n", encoding="utf-8")
    (src / "tests" / "test.sh").write_text(
        '#!/bin/bash\nL="${HARBOR_VERIFIER_LOGS:-/logs/verifier}"\n'
        'if [ -f count.txt ]; then echo 0.5 > "$L/reward.txt"; else echo 0 > "$L/reward.txt"; fi\n'
        'echo "checked count.txt"\n',
        encoding="utf-8",
    )
    (src / "solution" / "solve.sh").write_text("#!/bin/bash\nwc -l < data.txt > count.txt\n", encoding="utf-8")
    proc = cli("import", "harbor", "harbor", "-o", "tasks", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "1 imported, 0 refused" in proc.stdout
    doc = yaml.safe_load((tmp_path / "tasks" / "count-lines" / "task.yaml").read_text(encoding="utf-8"))
    assert doc["tags"] == ["harbor", "files", "difficulty:easy", "category:programming"]
    assert doc["sandbox"] == {
        "driver": "docker",
        "docker": {"dockerfile_path": "environment/Dockerfile", "working_dir": "auto"},
        "network": "host",  # allow_internet = true: Harbor's public network
        "keep_services": True,
        "limits": {"max_cpus": 2.0, "max_memory_mb": 2048},
    }
    # the agent's time is its turn's; the task's deadline adds the verifier's and the set-up's
    assert doc["run_limits"] == {"turn_timeout": 300.0, "task_timeout": 300.0 + 60.0 + 600.0}
    assert doc["reference"]["directory"] == "solution" and "solve.sh" in doc["reference"]["solve"]["command"]
    assert doc["success_criteria"] == [
        {
            "type": "harbor_verifier",
            "description": "Harbor verifier: tests/test.sh, scored by the reward it writes",
            "timeout": 60.0,
            "pass_threshold": 1.0,
        }
    ]
    work = tmp_path / "work"
    work.mkdir()
    (work / "count.txt").write_text("3\n", encoding="utf-8")
    # Grading runs in the task's driver; the task's image needs a registry, so this grades under tempdir
    # with the verifier's directories moved into the test's tree (passed through by name, as a task would).
    task_file = tmp_path / "tasks" / "count-lines" / "task.yaml"
    doc["success_criteria"][0].update(tests_path=str(tmp_path / "t"), logs_path=str(tmp_path / "l"))
    task_file.write_text(yaml.safe_dump(doc), encoding="utf-8")
    args = ("evaluate", "tasks/count-lines/task.yaml", work, "--run-dir", "ev", "--driver", "tempdir")
    proc = cli(*args, cwd=tmp_path)
    graded = json.loads(next((tmp_path / "ev").rglob("task.json")).read_text(encoding="utf-8"))
    assert graded["weighted_score"] == 0.5 and graded["final_status"] == "FAILURE", proc.stdout
    (verdict,) = graded["success_criteria_results"]
    assert "reward 0.5 from reward.txt" in verdict["details"] and "checked count.txt" in verdict["details"]


def test_tempdir_task_is_refused_with_the_fix(tmp_path: Path) -> None:
    doc = {**TASK, "sandbox": {"driver": "tempdir"}}
    task = write_task(tmp_path, doc)
    proc = cli("export", task, "-o", "out", cwd=tmp_path)
    assert proc.returncode == 2
    message = " ".join(proc.stderr.split())
    assert "runs on the tempdir driver, which has no container image to export" in message
    assert "sandbox.driver" in message and not (tmp_path / "out").exists()


def test_experiment_export_writes_every_variant_and_row(tmp_path: Path) -> None:
    doc = {
        **TASK,
        "dataset": {"rows": [{"id": "ada", "name": "Ada"}, {"id": "bob", "name": "Bob"}]},
        "initial_prompt": "Greet ${row.name}.",
    }
    task = write_task(tmp_path, doc)
    experiment = {
        "experiment_id": "two-arms",
        "description": "two arms",
        "variants": [{"variant_id": "a"}, {"variant_id": "b", "repeats": 2}],
    }
    (tmp_path / "exp.yaml").write_text(yaml.safe_dump(experiment), encoding="utf-8")
    proc = cli("export", task, "-o", "out", "-e", "exp.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == [
        "greet-file-ada-a-r00",
        "greet-file-ada-b-r00",
        "greet-file-ada-b-r01",
        "greet-file-bob-a-r00",
        "greet-file-bob-b-r00",
        "greet-file-bob-b-r01",
    ]
    bob = tmp_path / "out" / "greet-file-bob-b-r01"
    assert (bob / "instruction.md").read_text(encoding="utf-8") == "Greet Bob.\n"
    meta = tomllib.loads((bob / "task.toml").read_text(encoding="utf-8"))["metadata"]
    assert (meta["variant_id"], meta["row_id"], meta["replicate"]) == ("b", "bob", 1)


def test_reward_from_a_run_directory_needs_exactly_one_task(tmp_path: Path) -> None:
    proc = cli("harbor", "reward", tmp_path, "-o", "r.json", cwd=tmp_path)
    assert proc.returncode == 2 and "holds 0 task.json files" in proc.stderr
