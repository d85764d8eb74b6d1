"""A worker node killed mid-run loses nothing: its units are retried on the other node."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from raycluster import CLI_BIN as BIN
from raycluster import RayCluster, dataset_task, descendants, ray_cluster, ray_env

pytestmark = pytest.mark.slow


def running_a_unit(node: subprocess.Popen[bytes]) -> bool:
    """Whether a unit's pre_run `sleep` is running under the node (so killing it interrupts a unit)."""
    for pid in descendants(node.pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"sleep"):
            return True
    return False


@pytest.fixture
def doomed_cluster() -> Iterator[RayCluster]:
    with ray_cluster(workers=1) as live:
        yield live  # type: ignore[misc]


def test_killed_worker_node_loses_nothing(doomed_cluster: RayCluster, tmp_path: Path) -> None:
    task = dataset_task(tmp_path / "rows.yaml", 120, pause=0.2)
    run_dir = tmp_path / "run"
    args = [str(BIN), "run", str(task), "--run-dir", str(run_dir)]
    args += ["--executor", "ray", "--ray-address", doomed_cluster.address]
    log = (tmp_path / "cli.log").open("w")
    proc = subprocess.Popen(args, cwd=tmp_path, env={**ray_env(), "NO_COLOR": "1"}, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 300
        while len(list(run_dir.rglob("task.json"))) < 20 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.2)
        while not running_a_unit(doomed_cluster.nodes[1]) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before the worker could be killed"
        doomed_cluster.kill_node(doomed_cluster.nodes[1])
        proc.wait(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        log.close()
    output = (tmp_path / "cli.log").read_text()
    assert proc.returncode == 1, output  # odd rows fail their criterion; nothing crashed
    records = [json.loads(p.read_text(encoding="utf-8")) for p in run_dir.rglob("task.json")]
    assert len(records) == 120, output
    statuses = sorted({r["final_status"] for r in records})
    assert statuses == ["FAILURE", "SUCCESS"], output
    assert "retrying on another node" in output  # the node died with units on it
    summary = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    assert summary["tasks_run"] == 120 and summary["tasks_succeeded"] == 60
