"""Engine fixtures: the demo plugin agent registered in-process, and a task builder."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.engine.orchestrator import RunOptions, run_unit
from coder_eval.engine.units import RunUnit, resolve_agent
from coder_eval.loading.loader import expand_dataset, read_task_file
from coder_eval.models.results import EvaluationResult
from coder_eval.plugins import Registrar

PLUGIN = Path(__file__).resolve().parents[1] / "fixtures" / "demo_agent_plugin"


@pytest.fixture(scope="session", autouse=True)
def demo_agent() -> None:
    sys.path.insert(0, str(PLUGIN))
    import demo_agent as plugin

    plugin.register(Registrar())


def base_task(**overrides: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "task_id": "demo",
        "description": "a demo task",
        "initial_prompt": "write out.txt",
        "agent": {"type": "none"},
        "success_criteria": [
            {"type": "file_contains", "path": "out.txt", "includes": ["hello"], "description": "out.txt says hello"}
        ],
    }
    doc.update(overrides)
    return doc


@pytest.fixture
def run_task(tmp_path: Path) -> Callable[..., EvaluationResult]:
    """Write a task doc to tmp, run it through the orchestrator, return its result."""

    def run(
        doc: dict[str, Any],
        *,
        grade: bool = True,
        type_override: str | None = None,
        options: dict[str, Any] | None = None,
        replicate: int = 0,
    ) -> EvaluationResult:
        task_file = tmp_path / "tasks" / f"{doc['task_id']}.yaml"
        task_file.parent.mkdir(parents=True, exist_ok=True)
        task_file.write_text(yaml.safe_dump(doc))
        loaded = read_task_file(task_file)
        task = expand_dataset(loaded.definition, loaded.raw, task_file, warnings=tuple(loaded.warnings))[0]
        unit = RunUnit(task, resolve_agent(task, type_override), replicate_index=replicate)
        opts = RunOptions(run_dir=tmp_path / "run", grade=grade, **(options or {}))
        return asyncio.run(run_unit(unit, opts))

    return run
