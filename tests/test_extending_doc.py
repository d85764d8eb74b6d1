"""docs/extending.md stays true: its examples are imported and a task runs with all of them."""

from __future__ import annotations

import contextlib
import json
import re
import sys
import types
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from coder_eval.agents.registry import AGENTS
from coder_eval.criteria.registry import CHECKERS
from coder_eval.engine.run import RunRequest, run_pipeline
from coder_eval.gateway.protocol_names import PROTOCOLS
from coder_eval.gateway.thread import GatewayThread
from coder_eval.gateway.types import ModelReply, ModelRequest
from coder_eval.models.agent import AGENT_CONFIGS
from coder_eval.models.criteria import CRITERION_SPECS
from coder_eval.models.sandbox import SANDBOX_DRIVERS
from coder_eval.pricing import PRICING, calculate_cost
from coder_eval.sandbox.drivers import DRIVERS

DOC = Path(__file__).resolve().parents[1] / "docs" / "extending.md"
BLOCK = re.compile(r"```python\n# example: (\w+)\n(.*?)```", re.S)


def examples() -> dict[str, str]:
    return {name: code for name, code in BLOCK.findall(DOC.read_text(encoding="utf-8"))}


@pytest.fixture
def loaded() -> Iterator[dict[str, types.ModuleType]]:
    """Import every example as its own module; every registry is restored afterwards."""
    registries = (AGENTS, AGENT_CONFIGS, CHECKERS, CRITERION_SPECS, DRIVERS, SANDBOX_DRIVERS, PROTOCOLS, PRICING)
    modules: dict[str, types.ModuleType] = {}
    with contextlib.ExitStack() as stack:
        for registry in registries:
            stack.enter_context(registry.scratch())
        for name, code in examples().items():
            module = types.ModuleType(f"extending_example_{name}")
            sys.modules[module.__name__] = module
            exec(compile(code, f"docs/extending.md ({name})", "exec"), module.__dict__)
            modules[name] = module
        yield modules
        for module in modules.values():
            sys.modules.pop(module.__name__, None)


def test_the_page_has_every_example() -> None:
    assert set(examples()) == {"agent", "criterion", "driver", "protocol", "pricing"}


def test_agent_criterion_and_driver_examples_run_a_task(loaded: dict[str, types.ModuleType], tmp_path: Path) -> None:
    task = tmp_path / "task.yaml"
    task.write_text(
        yaml.safe_dump(
            {
                "task_id": "from-the-docs",
                "description": "the documented agent, criterion and driver together",
                "initial_prompt": "first line\nsecond line\nthird line\n",
                "agent": {"type": "note-taker", "file": "NOTES.md"},
                "sandbox": {"driver": "labelled"},
                "success_criteria": [
                    {"type": "line_count", "path": "NOTES.md", "at_least": 3, "description": "three lines"},
                    {"type": "run_command", "command": 'test "$SANDBOX_LABEL" = labelled', "description": "label"},
                ],
            }
        )
    )
    outcome = run_pipeline(RunRequest(paths=[str(task)], run_dir=tmp_path / "run"))
    (result,) = outcome.results
    assert result.final_status.value == "SUCCESS", result.error_message
    assert result.success_criteria_results[0].details == "3 lines"
    assert [c.tool_name for t in result.iterations for c in t.commands] == ["Write"]


class _Says:
    async def reply(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text=f"you said: {request.last_user_text}")


def test_protocol_example_serves_through_the_gateway(loaded: dict[str, types.ModuleType]) -> None:
    with GatewayThread("script") as gateway:
        route = gateway.open_route("docs/echo/00", source=_Says())
        body = json.dumps({"model": "m", "prompt": "hello"}).encode()
        request = urllib.request.Request(f"{route.base_url}/echo/v1/complete", data=body, method="POST")
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=10) as response:
            answer = json.loads(response.read())
    assert answer["text"] == "you said: hello" and answer["usage"]["output"] > 0
    (call,) = route.calls
    assert call.protocol == "echo_json" and call.status == 200


def test_pricing_example_prices_its_model(loaded: dict[str, types.ModuleType]) -> None:
    assert calculate_cost("my-model-v1", 1_000_000, 1_000_000) == pytest.approx(10.0)
