"""An agent whose harness is reached over loopback never lands in a network namespace of its own."""

from __future__ import annotations

from typing import Any

import pytest

from coder_eval.engine.control_checks import control_problem
from coder_eval.models.task import TaskDefinition


def _task(**sandbox: Any) -> TaskDefinition:
    return TaskDefinition.model_validate(
        {
            "task_id": "t",
            "description": "d",
            "initial_prompt": "p",
            "sandbox": sandbox,
            "success_criteria": [{"type": "file_exists", "path": "a", "description": "a"}],
        }
    )


@pytest.mark.parametrize(
    ("sandbox", "refused"),
    [
        ({"driver": "docker"}, True),
        ({"driver": "docker", "docker": {"network": "bridge"}}, True),
        ({"driver": "bubblewrap"}, True),
        ({"driver": "bubblewrap", "network": "host"}, False),
        ({"driver": "auto"}, False),
        ({"driver": "tempdir"}, False),
    ],
)
def test_antigravity_refuses_drivers_that_cut_its_harness_off(sandbox: dict[str, Any], refused: bool) -> None:
    problem = control_problem(_task(**sandbox), "antigravity")
    assert (problem is not None) == refused
    if problem is not None:
        message, where, fix = problem
        assert where == "sandbox.driver" and "loopback" in message and "tempdir" in fix


@pytest.mark.parametrize("kind", ["claude-code", "pi", "gemini-cli"])
def test_other_agents_run_under_any_driver(kind: str) -> None:
    assert control_problem(_task(driver="bubblewrap"), kind) is None
