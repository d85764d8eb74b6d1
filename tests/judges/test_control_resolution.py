"""Resolution-time errors: early stop needs a cooperative agent and a single-shot run."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml

from coder_eval.agent import Agent, BaseAgentConfig, Turn, TurnEnd, register_agent
from coder_eval.agents.registry import AGENTS
from coder_eval.engine.experiment_plan import PlanInputs, plan_units
from coder_eval.loading.loader import SelectOptions, load_tasks
from coder_eval.models.agent import AGENT_CONFIGS

ARMED = {
    "type": "command_executed",
    "description": "ran it",
    "command_pattern": "x",
    "stop_early": {"on_pass": "stop"},
}


def _plan(tmp_path: Path, doc: dict[str, object]) -> tuple[int, list[str]]:
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(doc))
    report = load_tasks([str(path)], SelectOptions())
    plan = plan_units(report.tasks, PlanInputs(), cwd=tmp_path)
    return len(plan.units), [e.render() for e in plan.errors]


class _UnstoppableConfig(BaseAgentConfig):
    type: Literal["unstoppable-test-kind"] = "unstoppable-test-kind"


class _Unstoppable(Agent[_UnstoppableConfig]):
    async def run_turn(self, turn: Turn) -> TurnEnd:
        return TurnEnd()


def test_agent_without_cooperative_stop_is_rejected(tmp_path: Path) -> None:
    doc = {
        "task_id": "t",
        "description": "d",
        "initial_prompt": "p",
        "agent": {"type": "unstoppable-test-kind"},
        "success_criteria": [ARMED],
    }
    with AGENTS.scratch(), AGENT_CONFIGS.scratch():
        register_agent("unstoppable-test-kind", config=_UnstoppableConfig, cooperative_stop=False)(_Unstoppable)
        units, errors = _plan(tmp_path, doc)
    assert units == 0 and "cannot stop cooperatively" in errors[0] and "stop_early: false" in errors[0]


def test_armed_dialog_is_rejected_and_kill_switch_allows_it(tmp_path: Path) -> None:
    sim = {"enabled": True, "persona": "p", "goal": "g", "n_trials": 3}
    doc = {"task_id": "t", "description": "d", "initial_prompt": "p", "simulation": sim, "success_criteria": [ARMED]}
    units, errors = _plan(tmp_path, doc)
    assert units == 0 and "simulation" in errors[0]
    doc["run_limits"] = {"stop_early": False}
    units, errors = _plan(tmp_path, doc)
    assert errors == [] and units == 3
