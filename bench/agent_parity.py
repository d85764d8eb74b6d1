"""Parity matrix: the example suite under every installed agent kind on the scripted model.

For each kind (default: every implemented kind whose binary is found here), runs
`coder-eval run examples/tasks -T KIND -b script` into its own run directory and prints one
row per agent x task: status, score, tool calls (and their canonical kinds), gateway-counted
tokens, wall time and harness overhead, then whether every task got the same criterion
results on every agent.

- agent wall   = the sum of the task's turns' `duration_seconds` (the CLI at work);
- harness wall = the task's `duration_seconds` (sandbox, route, agent, grading, records);
- overhead     = harness wall - agent wall, shown as a share of the agent wall (aim: < 10%).

Usage: python bench/agent_parity.py [--agents codex,opencode] [--keep DIR]
Stdlib only (plus coder_eval for discovering the kinds); no key, no network.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "tasks"
RUN_TIMEOUT = 1800


@dataclass(frozen=True)
class Row:
    agent: str
    task: str
    status: str
    score: float
    criteria: tuple[tuple[str, float], ...]
    tool_calls: int
    tool_kinds: str
    tokens: int
    gateway_tokens: int
    wall: float
    agent_wall: float

    @property
    def overhead(self) -> float:
        return max(0.0, self.wall - self.agent_wall)


def installed_kinds() -> list[str]:
    """Implemented kinds whose binary is here (model-less kinds such as `none` are left out)."""
    from coder_eval.agents.registry import AGENTS

    kinds = []
    for name, kind in AGENTS.entries():
        if kind.has_implementation and not kind.model_less and kind.binary is not None and kind.binary.locate():
            kinds.append(name)
    return kinds


def run_suite(kind: str, run_dir: Path, tasks: Path = EXAMPLES) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "coder_eval", "run", str(tasks), "-T", kind, "-b", "script"]
    env = {k: v for k, v in os.environ.items() if k not in ("API_BACKEND", "PYTHONDONTWRITEBYTECODE")}
    return subprocess.run(
        [*cmd, "--run-dir", str(run_dir)], env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )


def rows_of(kind: str, run_dir: Path) -> list[Row]:
    rows = []
    for path in sorted(run_dir.rglob("task.json")):
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        turns = record.get("iterations") or []
        commands = [c for t in turns for c in t.get("commands") or []]
        kinds: dict[str, int] = {}
        for c in commands:
            kinds[c.get("tool_kind") or "?"] = kinds.get(c.get("tool_kind") or "?", 0) + 1
        usage = record.get("total_token_usage") or {}
        gateway = (record.get("environment_info") or {}).get("gateway_usage") or {}
        criteria = tuple(
            (str(r.get("description") or r.get("criterion_type")), float(r.get("score") or 0.0))
            for r in record.get("success_criteria_results") or []
        )
        rows.append(
            Row(
                agent=kind,
                task=str(record.get("task_id")),
                status=str(record.get("final_status")),
                score=float(record.get("weighted_score") or 0.0),
                criteria=criteria,
                tool_calls=len(commands),
                tool_kinds=" ".join(f"{k}:{n}" for k, n in sorted(kinds.items())),
                tokens=int(usage.get("input_tokens") or 0) + int(usage.get("output_tokens") or 0),
                gateway_tokens=int(gateway.get("input_tokens") or 0) + int(gateway.get("output_tokens") or 0),
                wall=float(record.get("duration_seconds") or 0.0),
                agent_wall=sum(float(t.get("duration_seconds") or 0.0) for t in turns),
            )
        )
    return rows


def differences(rows: list[Row]) -> list[str]:
    """Tasks whose criterion results differ between agents, described one per line."""
    by_task: dict[str, dict[str, tuple[tuple[str, float], ...]]] = {}
    for row in rows:
        by_task.setdefault(row.task, {})[row.agent] = row.criteria
    out = []
    for task, results in sorted(by_task.items()):
        if len(set(results.values())) > 1:
            out.append(f"{task}: " + "; ".join(f"{agent}={list(r)}" for agent, r in sorted(results.items())))
    return out


def table(rows: list[Row]) -> str:
    head = ["agent", "task", "status", "score", "calls", "kinds", "tokens", "wall s", "agent s", "overhead"]
    body = [
        [
            r.agent,
            r.task,
            r.status,
            f"{r.score:.3f}",
            str(r.tool_calls),
            r.tool_kinds,
            str(r.tokens),
            f"{r.wall:.1f}",
            f"{r.agent_wall:.1f}",
            f"{r.overhead:.2f}s {100 * r.overhead / r.agent_wall:.1f}%" if r.agent_wall else "-",
        ]
        for r in rows
    ]
    widths = [max(len(x) for x in col) for col in zip(head, *body, strict=False)]
    lines = ["  ".join(x.ljust(w) for x, w in zip(line, widths, strict=False)) for line in [head, *body]]
    return "\n".join(lines)


def per_agent(rows: list[Row]) -> str:
    lines = []
    for agent in sorted({r.agent for r in rows}):
        mine = [r for r in rows if r.agent == agent]
        wall, agent_wall = sum(r.wall for r in mine), sum(r.agent_wall for r in mine)
        share = 100 * (wall - agent_wall) / agent_wall if agent_wall else 0.0
        lines.append(
            f"{agent}: {len(mine)} tasks, agent wall {agent_wall:.1f}s, harness wall {wall:.1f}s, "
            f"overhead {wall - agent_wall:.2f}s = {share:.1f}% of agent wall"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", help="Comma list of kinds (default: every installed one).")
    parser.add_argument("--keep", type=Path, help="Keep the run directories here.")
    args = parser.parse_args()
    kinds = args.agents.split(",") if args.agents else installed_kinds()
    root = args.keep or Path(tempfile.mkdtemp(prefix="coder-eval-parity-"))
    rows: list[Row] = []
    for kind in kinds:
        proc = run_suite(kind, root / kind)
        found = rows_of(kind, root / kind)
        if not found:
            print(f"{kind}: no records (exit {proc.returncode}): {proc.stderr[-800:]}", file=sys.stderr)
        rows += found
    print(table(rows))
    print()
    print(per_agent(rows))
    diff = differences(rows)
    print("criterion results identical on every agent" if not diff else "DIFFERENCES:\n" + "\n".join(diff))
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
