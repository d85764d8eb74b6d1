"""A unit's configuration fingerprint: one digest per top-level field, recorded in task.json.

`--resume` compares the fingerprint of each planned unit with the one its record carries, so a
task whose criteria, prompt, agent or limits changed since it ran is never silently mixed with
grades made under the old configuration.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from coder_eval.common.shared_cache import SharedDerived
from coder_eval.engine.units import RunUnit
from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.task import TaskDefinition


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_digests: SharedDerived[dict[str, str]] = SharedDerived()


def _config_digests(definition: TaskDefinition, agent: BaseAgentConfig) -> dict[str, str]:
    resolved = definition.model_dump(mode="json", exclude={"agent"})
    fields = {name: _digest(value) for name, value in resolved.items()}
    fields["agent"] = _digest(agent.model_dump(mode="json"))
    return fields


def unit_fingerprint(unit: RunUnit) -> dict[str, str]:
    """Field name -> digest of the resolved task (its agent as this unit runs it) and dataset row."""
    definition, agent = unit.task.definition, unit.agent
    shared = _digests.get(definition, agent, compute=lambda: _config_digests(definition, agent))
    return {**shared, "row": _digest(unit.task.row)}


def changed_fields(recorded: dict[str, str] | None, current: dict[str, str]) -> list[str]:
    """Fields whose digest differs (added or removed fields count); none when nothing was recorded."""
    if not recorded:
        return []
    return sorted(k for k in recorded.keys() | current.keys() if recorded.get(k) != current.get(k))
