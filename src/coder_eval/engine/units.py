"""A run unit: one (task, variant, replicate) with its resolved agent configuration."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder_eval.loading.loader import LoadedTask
from coder_eval.models.agent import DEFAULT_AGENT_KIND, BaseAgentConfig, agent_config_class, parse_agent_config
from coder_eval.records.layout import replicate_dir

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunUnit:
    task: LoadedTask
    agent: BaseAgentConfig
    variant_id: str = "default"
    replicate_index: int = 0
    lineage: dict[str, Any] | None = field(default=None, compare=False)
    oracle: bool = False
    """Run as its task's oracle: a reference with `solve` is applied by that command (engine/oracle_solve.py)."""

    @property
    def task_id(self) -> str:
        return self.task.task_id

    def directory(self, run_dir: Path) -> Path:
        return replicate_dir(run_dir, self.variant_id, self.task_id, self.replicate_index)


def resolve_agent(task: LoadedTask, type_override: str | None = None) -> BaseAgentConfig:
    """The task's agent config, or the default kind's; `type_override` re-parses it as another kind.

    Fields the new kind does not know are dropped (and logged), so `--type none` can smoke
    a suite written for another agent.
    """
    config = task.definition.agent or parse_agent_config({"type": DEFAULT_AGENT_KIND})
    if type_override is None or type_override == config.type:
        return config
    target = agent_config_class(type_override)
    fields = config.model_dump(exclude_unset=True, exclude={"type"})
    dropped = sorted(k for k in fields if k not in target.model_fields)
    if dropped:
        log.info("%s: --type %s drops agent fields %s", task.task_id, type_override, ", ".join(dropped))
    kept = {k: v for k, v in fields.items() if k in target.model_fields}
    return target.model_validate({**kept, "type": type_override})


def expand_units(
    tasks: list[LoadedTask], *, repeats: int = 1, type_override: str | None = None, variant_id: str = "default"
) -> list[RunUnit]:
    return [RunUnit(task, resolve_agent(task, type_override), variant_id, i) for task in tasks for i in range(repeats)]
