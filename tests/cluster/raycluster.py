"""A throwaway Ray cluster on this machine: a head and worker nodes via `ray start --block`, loopback only.

Each node is one `ray start --block` process in its own session; stopping or killing a node is
signalling that process group, which takes the node's raylet and workers with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

RAY = Path(sys.executable).with_name("ray")
START_TIMEOUT = 90.0


def ray_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env.update(
        RAY_AUTH_MODE="disabled",  # Ray refuses to start without an explicit choice
        RAY_USAGE_STATS_ENABLED="0",
        # notice a killed node within a few seconds instead of half a minute
        RAY_health_check_period_ms="1000",
        RAY_health_check_timeout_ms="1000",
        RAY_health_check_failure_threshold="3",
    )
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RayCluster:
    temp_dir: Path
    port: int = field(default_factory=free_port)
    nodes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: list[Path] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _start(self, args: list[str], log: Path) -> subprocess.Popen[bytes]:
        self.logs.append(log)
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [str(RAY), "start", "--block", "--node-ip-address", "127.0.0.1", "--disable-usage-stats", *args],
                env=ray_env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        self.nodes.append(proc)
        return proc

    def start_head(self, cpus: int = 1) -> None:
        self._start(
            [
                "--head",
                f"--port={self.port}",
                f"--num-cpus={cpus}",
                "--include-dashboard=false",
                f"--temp-dir={self.temp_dir}",
                f"--node-manager-port={free_port()}",
                f"--object-manager-port={free_port()}",
            ],
            self.temp_dir.parent / f"{self.temp_dir.name}-head.log",
        )
        self.wait_started(0)

    def add_worker(self, cpus: int = 1) -> subprocess.Popen[bytes]:
        index = len(self.nodes)
        proc = self._start(
            [f"--address={self.address}", f"--num-cpus={cpus}"],
            self.temp_dir.parent / f"{self.temp_dir.name}-node{index}.log",
        )
        self.wait_started(index)
        return proc

    def alive_nodes(self) -> int:
        script = (
            f"import ray,logging;ray.init(address={self.address!r},logging_level=logging.ERROR,log_to_driver=False);"
            "print(sum(1 for n in ray.nodes() if n['Alive']))"
        )
        try:
            proc = subprocess.run(
                [sys.executable, "-c", script], env=ray_env(), capture_output=True, text=True, timeout=30
            )
        except subprocess.TimeoutExpired:
            return 0
        lines = proc.stdout.strip().splitlines()
        return int(lines[-1]) if proc.returncode == 0 and lines else 0

    def wait_started(self, index: int) -> None:
        """Until node `index` says its runtime started (it has joined the cluster by then)."""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.nodes[index].poll() is not None:
                raise RuntimeError(f"ray node {index} exited early; see {self.logs[index]}")
            if "Ray runtime started" in self.logs[index].read_text(errors="replace"):
                return
            time.sleep(0.2)
        raise RuntimeError(f"ray node {index} did not start in {START_TIMEOUT:g}s; see {self.logs[index]}")

    def kill_node(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL the node: its `ray start` process and every process under it (Ray workers start new sessions)."""
        tree = [proc.pid, *descendants(proc.pid)]
        for pid in tree:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)

    def stop(self) -> None:
        for proc in reversed(self.nodes):
            if proc.poll() is None:
                self.kill_node(proc)


def descendants(root: int) -> list[int]:
    """Every live process below `root` (children first found through /proc's parent links)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out: list[int] = []
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@contextlib.contextmanager
def ray_cluster(workers: int = 1, head_cpus: int = 1) -> object:
    """A head (`head_cpus` CPUs) plus `workers` worker nodes of one CPU each; killed on exit."""
    root = Path(tempfile.mkdtemp(prefix="rc", dir="/tmp"))  # Ray's socket paths must stay short
    cluster = RayCluster(root / "ray")
    try:
        cluster.start_head(head_cpus)
        for _ in range(workers):
            cluster.add_worker()
        yield cluster
    finally:
        cluster.stop()


def dataset_task(path: Path, rows: int, *, pause: float = 0.0) -> Path:
    """A `none`-agent dataset: even rows pass, odd rows fail their criterion; optional sleep per row."""
    command = f"sleep {pause} && " if pause else ""
    path.write_text(
        yaml.safe_dump(
            {
                "task_id": "rows",
                "description": "an agentless dataset for the ray executor",
                "agent": {"type": "none"},
                "dataset": {
                    "rows": [{"id": f"r{i:04d}", "word": "even" if i % 2 == 0 else "odd"} for i in range(rows)]
                },
                "pre_run": [{"command": command + "printf even > out.txt"}],
                "success_criteria": [
                    {
                        "type": "file_contains",
                        "path": "out.txt",
                        "includes": ["${row.word}"],
                        "description": "row is even",
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def verdicts(run_dir: Path) -> dict[str, tuple[str, Any]]:
    """task id -> (final status, weighted score) from every task.json under `run_dir`."""
    out: dict[str, tuple[str, Any]] = {}
    for path in run_dir.rglob("task.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        out[record["task_id"]] = (record["final_status"], record["weighted_score"])
    return out


CLI_BIN = Path(sys.executable).with_name("coder-eval")


def cli(*args: str | Path, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """The coder-eval CLI on the local executor, bounded by `timeout`."""
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    return subprocess.run(
        [str(CLI_BIN), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
