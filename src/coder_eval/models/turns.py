"""Turn accounting and tool inventory of one result, for the run.json row and the reports."""

from __future__ import annotations

from typing import Any

from coder_eval.models.results import EvaluationResult


def agent_turns(result: EvaluationResult) -> int:
    """Agent-loop turns: the agent's own count per user turn when it reports one, else its replies."""
    return sum(t.num_turns if t.num_turns is not None else t.assistant_turn_count for t in result.iterations)


def visible_turns(result: EvaluationResult) -> int:
    """Entries in the run's timeline: one per resolved tool call."""
    return sum(len(t.commands) for t in result.iterations)


def has_final_reply(result: EvaluationResult) -> bool:
    """The last user turn ended with text from the agent (not a crash, cap or silent stop)."""
    if not result.iterations:
        return False
    last = result.iterations[-1]
    return bool(last.agent_output.strip()) and not last.crashed


def _resolved(result: EvaluationResult) -> dict[str, Any]:
    resolved = (result.task_config or {}).get("resolved")
    return resolved if isinstance(resolved, dict) else {}


def expected_turns(result: EvaluationResult) -> int | None:
    """`run_limits.expected_turns` as the unit ran with it (the resolved config on the record)."""
    value = (_resolved(result).get("run_limits") or {}).get("expected_turns")
    return value if isinstance(value, int) else None


def over_expected_turns(row: dict[str, Any]) -> bool:
    """A run.json row whose agent used more turns than its soft target."""
    target = row.get("expected_turns")
    return isinstance(target, int) and int(row.get("total_turns") or 0) > target


def installed_tools(result: EvaluationResult) -> list[str]:
    """What the sandbox installed or shadowed for the agent: Python and npm packages, recorded CLIs."""
    sandbox = _resolved(result).get("sandbox") or {}
    tools: list[str] = []
    tools += [f"python:{p}" for p in ((sandbox.get("python") or {}).get("env_packages") or [])]
    tools += [f"npm:{p}" for p in ((sandbox.get("node") or {}).get("packages") or [])]
    tools += [f"record_cli:{spec.get('tool')}" for spec in (sandbox.get("record_cli") or []) if isinstance(spec, dict)]
    return tools
