"""`--executor ray` on a live two-node Ray cluster gives the local executor's verdicts and records.

The cluster is real: a head and a worker started with `ray start` on 127.0.0.1. The examples
run the real Claude Code CLI on the scripted model through each node's own gateway.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from raycluster import CLI_BIN as BIN
from raycluster import RayCluster, cli, dataset_task, ray_env, verdicts

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = pytest.mark.slow
Completed = subprocess.CompletedProcess[str]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "tasks"


def ray_cli(
    cluster: RayCluster, *args: str | Path, cwd: Path, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    env = {**ray_env(), "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [str(BIN), *map(str, args), "--executor", "ray", "--ray-address", cluster.address],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def run_json(run_dir: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here")
def test_examples_on_ray_match_local(cluster: RayCluster, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    shutil.copytree(EXAMPLES, tasks)
    local = cli("run", tasks, "-b", "script", "-j", "2", "--run-dir", tmp_path / "local", cwd=tmp_path, timeout=600)
    ray = ray_cli(cluster, "run", tasks, "-b", "script", "--run-dir", tmp_path / "ray", cwd=tmp_path)
    assert ray.returncode == local.returncode, ray.stdout + ray.stderr
    expected = verdicts(tmp_path / "local")
    assert len(expected) == 6
    assert verdicts(tmp_path / "ray") == expected
    for path in (tmp_path / "ray").rglob("task.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        assert (path.parent / "task.log").is_file()
        assert record["environment_info"]["gateway_calls"] >= 1, record["task_id"]
        assert record["environment_info"]["gateway_node"]  # the unit's gateway ran on its own node
        calls = [c for it in record["iterations"] for c in it["provider_call_costs"]]
        assert len(calls) == record["environment_info"]["gateway_calls"]
        assert str(tmp_path / "ray") in (record["sandbox_path"] or str(tmp_path / "ray"))
    assert run_json(tmp_path / "ray")["tasks_run"] == 6


def test_dataset_on_ray_matches_local(cluster: RayCluster, tmp_path: Path) -> None:
    task = dataset_task(tmp_path / "rows.yaml", 200)
    local = cli("run", task, "-j", "2", "--run-dir", tmp_path / "local", cwd=tmp_path, timeout=600)
    ray = ray_cli(cluster, "run", task, "--run-dir", tmp_path / "ray", cwd=tmp_path)
    assert local.returncode == ray.returncode == 1, ray.stdout + ray.stderr
    expected = verdicts(tmp_path / "local")
    assert len(expected) == 200
    assert verdicts(tmp_path / "ray") == expected
    summary = run_json(tmp_path / "ray")
    assert summary["tasks_run"] == 200 and summary["tasks_succeeded"] == 100
    assert len(list((tmp_path / "ray").rglob("task.log"))) == 200


def test_interrupted_ray_run_is_consistent_and_resumes_locally(cluster: RayCluster, tmp_path: Path) -> None:
    task = dataset_task(tmp_path / "rows.yaml", 200, pause=0.2)
    run_dir = tmp_path / "run"
    env = {**ray_env(), "NO_COLOR": "1"}
    args = [
        str(BIN),
        "run",
        str(task),
        "--run-dir",
        str(run_dir),
        "--executor",
        "ray",
        "--ray-address",
        cluster.address,
    ]
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while len(list(run_dir.rglob("task.json"))) < 10 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        os.kill(proc.pid, signal.SIGINT)
        output, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode != 0, output
    finished = len(list(run_dir.rglob("task.json")))
    assert 10 <= finished < 200
    assert run_json(run_dir)["tasks_run"] == finished  # run.json agrees with the records on disk
    resumed = cli("run", task, "--resume", "--run-dir", run_dir, "-j", "2", cwd=tmp_path, timeout=600)
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    summary = run_json(run_dir)
    assert summary["tasks_run"] == 200 and summary["tasks_succeeded"] == 100


@pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here")
def test_spend_limit_stops_launching_on_ray(cluster: RayCluster, tmp_path: Path) -> None:
    """`--max-cost-usd` below one unit's cost, two units in flight: both finish, the other two wait for --resume."""
    import yaml

    agent = {"type": "claude-code", "model": "claude-sonnet-4-5", "permission_mode": "acceptEdits"}
    task = {
        "task_id": "priced",
        "description": "write the answer at a price",
        "initial_prompt": "Write the answer to out.txt.",
        "agent": {**agent, "allowed_tools": ["Read", "Write", "Edit", "Bash"], "setting_sources": []},
        "success_criteria": [{"type": "file_contains", "path": "out.txt", "includes": ["42"], "description": "42"}],
    }
    script = {
        "model": "claude-sonnet-4-5",
        "tokens": {"input": 1000, "output": 100},
        "steps": [{"write_file": {"path": "out.txt", "content": "42\n"}}, {"reply": "Done."}],
    }
    (tmp_path / "priced.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    (tmp_path / "priced.script.yaml").write_text(yaml.safe_dump(script), encoding="utf-8")
    run_dir = tmp_path / "run"
    proc = ray_cli(
        cluster,
        "run",
        tmp_path / "priced.yaml",
        "-b",
        "script",
        "--repeats",
        "4",
        "-j",
        "2",
        "--max-cost-usd",
        "0.001",
        "--run-dir",
        run_dir,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    summary = run_json(run_dir)
    assert summary["interrupted"] is True and summary["units_finished"] == 2
    assert "2 unit(s) not launched" in str(summary["interrupt_reason"])


def test_adaptive_replicates_on_ray_run_the_same_rounds(cluster: RayCluster, tmp_path: Path) -> None:
    """`--repeats auto` on the cluster, two rounds on one Ray connection: arm B's starter file passes
    the agentless task every time, arm A never does. A first round of 6 replicates per arm leaves
    the task's confidence sequence touching zero; the 7th pair decides it, one short of the cap."""
    import yaml

    task = {
        "task_id": "hello",
        "description": "needs out.txt",
        "agent": {"type": "none"},
        "success_criteria": [
            {"type": "file_contains", "path": "out.txt", "includes": ["hello"], "description": "says hello"}
        ],
    }
    (tmp_path / "hello.yaml").write_text(yaml.safe_dump(task), encoding="utf-8")
    hello = [{"type": "starter_files", "files": [{"path": "out.txt", "content": "hello"}]}]
    experiment = {
        "experiment_id": "ab",
        "repeats": "auto",
        "adaptive": {"min_repeats": 6, "max_repeats": 8},
        "variants": [{"variant_id": "arm-a"}, {"variant_id": "arm-b", "template_sources": hello}],
    }
    (tmp_path / "ab.yaml").write_text(yaml.safe_dump(experiment), encoding="utf-8")
    run_dir = tmp_path / "run"
    proc = ray_cli(cluster, "run", "hello.yaml", "-e", "ab.yaml", "--run-dir", run_dir, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # arm A fails by design
    record = json.loads((run_dir / "adaptive.json").read_text(encoding="utf-8"))
    (only,) = record["tasks"]
    assert (only["rule"], only["replicates"], only["stopped_after_round"]) == ("decided", 7, 2)
    assert (record["rounds"], record["units_spent"], record["units_fixed_design"]) == (2, 14, 16)
    assert len(list(run_dir.glob("arm-*/hello/*/task.json"))) == 14
    summary = run_json(run_dir)
    assert (summary["tasks_run"], summary["tasks_succeeded"], summary["units_fixed_design"]) == (14, 7, 16)
    assert "adaptive replicates: 14 of 16 units" in proc.stdout
