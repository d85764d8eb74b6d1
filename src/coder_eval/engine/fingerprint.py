"""A unit's configuration fingerprint: one digest per top-level field, recorded in task.json.

`--resume` compares the fingerprint of each planned unit with the one its record carries, so a
task whose criteria, prompt, agent or limits changed since it ran is never silently mixed with
grades made under the old configuration.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from coder_eval.engine.units import RunUnit


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


_known: dict[tuple[int, int], tuple[object, object, dict[str, str]]] = {}
"""(id(definition), id(agent)) -> their digests: the rows of a dataset share one definition and
one agent, so they are digested once. Bounded; holding both objects keeps their ids from being
reused while cached."""


def _config_digests(unit: RunUnit) -> dict[str, str]:
    definition, agent = unit.task.definition, unit.agent
    hit = _known.get((id(definition), id(agent)))
    if hit is not None and hit[0] is definition and hit[1] is agent:
        return hit[2]
    resolved = definition.model_dump(mode="json", exclude={"agent"})
    fields = {name: _digest(value) for name, value in resolved.items()}
    fields["agent"] = _digest(agent.model_dump(mode="json"))
    if len(_known) >= 64:
        _known.clear()
    _known[(id(definition), id(agent))] = (definition, agent, fields)
    return fields


def unit_fingerprint(unit: RunUnit) -> dict[str, str]:
    """Field name -> digest of the resolved task (its agent as this unit runs it) and dataset row."""
    return {**_config_digests(unit), "row": _digest(unit.task.row)}


def changed_fields(recorded: dict[str, str] | None, current: dict[str, str]) -> list[str]:
    """Fields whose digest differs (added or removed fields count); none when nothing was recorded."""
    if not recorded:
        return []
    return sorted(k for k in recorded.keys() | current.keys() if recorded.get(k) != current.get(k))
