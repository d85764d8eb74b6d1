"""Conformance tasks run end to end with `--type none`; a pre_run does the agent's part.

The adapted copies are built here from ../shared/conformance at test time (into a temp
copy of the corpus, so template paths keep working); the corpus itself is never copied
into the project.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from clirun import cli

pytestmark = pytest.mark.slow

FORMATTER = """from datetime import datetime

def format_date(date_str, format):
    d = datetime.strptime(date_str, "%Y-%m-%d")
    return d.strftime({"iso": "%Y-%m-%d", "us": "%m/%d/%Y", "eu": "%d/%m/%Y"}[format])
"""
FORMATTER_TEST = """from date_formatter import format_date

def test_formats():
    assert format_date("2024-01-15", "us") == "01/15/2024"
    assert format_date("2024-01-15", "eu") == "15/01/2024"
    assert format_date("2024-01-15", "iso") == "2024-01-15"
"""
FIBONACCI = """def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
"""


def _write(path: str, content: str) -> dict[str, str]:
    return {"command": f"mkdir -p $(dirname {path}) && cat > {path} <<'EOF'\n{content}EOF"}


AGENT_PARTS: dict[str, list[dict[str, Any]]] = {
    "agentless_smoke_test.yaml": [],
    "inline_starter_example.yaml": [
        _write("date_formatter.py", FORMATTER),
        _write("test_date_formatter.py", FORMATTER_TEST),
    ],
    "fibonacci_with_template.yaml": [_write("src/main.py", FIBONACCI)],
    "mock_path_dirs_template_dir/task.yaml": [
        {"command": "say_hello world > say_hello.out && echo_args one two three > echo_args.out"}
    ],
    "record_cli_responses.yaml": [
        {
            "command": "{ echo '## uip ixp dummy1'; uip ixp dummy1; echo '## uip ixp dummy2'; uip ixp dummy2; "
            "echo '## uip ixp nope'; uip ixp nope 2>&1; } > captured.txt; true"
        }
    ],
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests_paths import conformance_dir

    source = conformance_dir()
    target = tmp_path_factory.mktemp("corpus")
    shutil.copytree(source / "tasks", target / "tasks")
    shutil.copytree(source / "templates", target / "templates")
    return target / "tasks"


def adapt(corpus: Path, name: str, *, with_agent_part: bool, driver: str = "tempdir") -> Path:
    original = corpus / name
    doc = yaml.safe_load(original.read_text())
    doc.setdefault("sandbox", {})["driver"] = driver
    if driver == "docker":
        doc["sandbox"].pop("docker", None)  # the corpus names the original system's image
    if with_agent_part:
        doc["pre_run"] = list(doc.get("pre_run", [])) + AGENT_PARTS[name]
    else:
        doc["pre_run"] = [p for p in doc.get("pre_run", []) if "coder-eval-ran" not in p["command"]]
    suffix = ("agent" if with_agent_part else "bare") + ("" if driver == "tempdir" else f"-{driver}")
    adapted = original.with_name(f"{original.stem}.{suffix}.yaml")
    adapted.write_text(yaml.safe_dump(doc, sort_keys=False))
    return adapted


def outcome(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(run_dir.rglob("task.json"))]


@pytest.mark.parametrize("name", list(AGENT_PARTS))
def test_adapted_task_succeeds(corpus: Path, tmp_path: Path, name: str) -> None:
    task = adapt(corpus, name, with_agent_part=True)
    run_dir = tmp_path / "run"
    proc = cli("run", task, "--type", "none", "--run-dir", run_dir, cwd=tmp_path, timeout=600)
    records = outcome(run_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr + json.dumps(records, indent=1)[:3000]
    assert [r["final_status"] for r in records] == ["SUCCESS"]


@pytest.mark.parametrize("name", [n for n in AGENT_PARTS if n != "agentless_smoke_test.yaml"])
def test_without_the_agents_part_it_fails_but_never_errors(corpus: Path, tmp_path: Path, name: str) -> None:
    task = adapt(corpus, name, with_agent_part=False)
    run_dir = tmp_path / "run"
    proc = cli("run", task, "--type", "none", "--run-dir", run_dir, cwd=tmp_path, timeout=600)
    assert proc.returncode == 1
    assert [r["final_status"] for r in outcome(run_dir)] == ["FAILURE"]


def _docker_ready() -> bool:
    """Docker and the base image, probed from outside (scripts/sandbox-deps.sh sets both up)."""
    import os
    import subprocess

    if shutil.which("docker") is None or subprocess.run(["docker", "info"], capture_output=True).returncode:
        return False
    image = os.environ.get("CODER_EVAL_DOCKER_IMAGE", "coder-eval-base:latest")
    return subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode == 0


@pytest.mark.parametrize("name", list(AGENT_PARTS))
def test_adapted_task_succeeds_under_docker(corpus: Path, tmp_path: Path, name: str) -> None:
    if not _docker_ready():
        pytest.skip("docker or its base image is not available (scripts/sandbox-deps.sh)")
    task = adapt(corpus, name, with_agent_part=True, driver="docker")
    run_dir = tmp_path / "run"
    proc = cli("run", task, "--type", "none", "--run-dir", run_dir, cwd=tmp_path, timeout=900)
    records = outcome(run_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr + json.dumps(records, indent=1)[:3000]
    assert [r["final_status"] for r in records] == ["SUCCESS"]


WORKDIR_TASKS = ["working_dir_auto_example.yaml", "working_dir_concrete_example.yaml"]


@pytest.mark.parametrize("name", WORKDIR_TASKS)
def test_dockerfile_tasks_build_and_run_in_the_image_workdir(corpus: Path, tmp_path: Path, name: str) -> None:
    """The corpus's own Dockerfile (FROM coder-eval-agent:latest, which sandbox-deps.sh tags) is built
    and the image's WORKDIR, with its baked input, is where the unit works."""
    import subprocess

    alias = subprocess.run(["docker", "image", "inspect", "coder-eval-agent:latest"], capture_output=True)
    if not _docker_ready() or alias.returncode:
        pytest.skip("docker or the coder-eval-agent:latest base is not available (scripts/sandbox-deps.sh)")
    original = corpus / "dockerfile_build_example" / name
    doc = yaml.safe_load(original.read_text())
    doc["pre_run"] = [{"command": "cp input.txt result.txt"}]  # the agent's part
    task = original.with_name(f"{original.stem}.agent.yaml")
    task.write_text(yaml.safe_dump(doc, sort_keys=False))
    run_dir = tmp_path / "run"
    proc = cli("run", task, "--type", "none", "--run-dir", run_dir, cwd=tmp_path, timeout=900)
    records = outcome(run_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr + json.dumps(records, indent=1)[:3000]
    assert [r["final_status"] for r in records] == ["SUCCESS"]


def _scripted(command: str) -> dict[str, Any]:
    return {"steps": [{"run_command": {"command": command}}, {"reply": "done"}]}


ANTI_CHEAT_HUNT = (
    "{ echo '## 1'; ls -la /work/references; echo '## 2'; cat /work/references/*; echo '## 3'; "
    "find / -xdev \\( -name reference -o -name 'solution*' \\) 2>/dev/null | head -20 | xargs -r cat; "
    "ls -la /work/task_dir; echo '## 4'; grep -rs CANARY_REFERENCE /work /tmp | head -20; } > findings.txt 2>&1; "
    "echo DENIED > verdict.txt"
)
DOCKER_EXAMPLES: dict[str, dict[str, Any]] = {
    "agents/claude_hello_world_docker.yaml": _scripted(
        "printf 'print(\"Hello, Claude!\")\\n' > hello.py && python hello.py"
    ),
    "record_cli_responses.yaml": _scripted(AGENT_PARTS["record_cli_responses.yaml"][0]["command"]),
    "anti_cheat_reference/anti_cheat_reference.yaml": _scripted(ANTI_CHEAT_HUNT),
}


@pytest.mark.parametrize("name", list(DOCKER_EXAMPLES))
def test_docker_examples_on_scripted_claude_code(corpus: Path, tmp_path: Path, name: str) -> None:
    """The corpus's `driver: docker` examples, unchanged, with the real Claude Code CLI in the container."""
    if not _docker_ready():
        pytest.skip("docker or its base image is not available (scripts/sandbox-deps.sh)")
    task = corpus / name
    task.with_name(f"{task.stem}.script.yaml").write_text(yaml.safe_dump(DOCKER_EXAMPLES[name], sort_keys=False))
    run_dir = tmp_path / "run"
    proc = cli("run", task, "-b", "script", "--driver", "docker", "--run-dir", run_dir, cwd=tmp_path, timeout=900)
    records = outcome(run_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr + json.dumps(records, indent=1)[:3000]
    assert [r["final_status"] for r in records] == ["SUCCESS"]


def test_byod_image_runs_unchanged(corpus: Path, tmp_path: Path) -> None:
    """byod_smoke_test names a pre-built image; built as its description says, the task runs as written."""
    import subprocess

    alias = subprocess.run(["docker", "image", "inspect", "coder-eval-agent:latest"], capture_output=True)
    if not _docker_ready() or alias.returncode:
        pytest.skip("docker or the coder-eval-agent:latest base is not available (scripts/sandbox-deps.sh)")
    image = "byod-custom-image:0.1.0"
    context = corpus.parent / "templates" / "byod_smoke_test"
    built = subprocess.run(["docker", "build", "-q", "-t", image, str(context)], capture_output=True, timeout=600)
    assert built.returncode == 0, built.stderr.decode()
    try:
        run_dir = tmp_path / "run"
        task = corpus / "byod_smoke_test.yaml"
        proc = cli("run", task, "--type", "none", "--run-dir", run_dir, cwd=tmp_path, timeout=600)
        records = outcome(run_dir)
        assert proc.returncode == 0, proc.stdout + proc.stderr + json.dumps(records, indent=1)[:3000]
        assert [r["final_status"] for r in records] == ["SUCCESS"]
    finally:
        subprocess.run(["docker", "rmi", image], capture_output=True, timeout=120)
