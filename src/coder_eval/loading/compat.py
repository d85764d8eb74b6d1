"""Task files written for the reference system: what loads with a warning instead of an error.

Only the top level of a task file is lenient. A key there that no field knows is dropped before
validation and reported (with a did-you-mean), so a suite written for another version still
loads; keys the reference once used and no longer reads (`STALE_KEYS`) say that they are
ignored. Everything nested stays strict: a typo inside `sandbox:` or a criterion is still an
error. Legacy criterion aliases are rewritten by the criterion parser (`models/criteria.py`);
this module only reports them, so the warning points at the line the author wrote.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coder_eval.common.suggest import did_you_mean
from coder_eval.loading.yaml_source import LineMap
from coder_eval.models.criteria import LEGACY_CRITERION_ALIASES
from coder_eval.models.task import TaskDefinition

MIGRATE_HINT = "`coder-eval migrate FILE` rewrites it"

STALE_KEYS: dict[str, str] = {
    "max_iterations": "turn caps live in run_limits.max_turns",
    "llm_reviewer": "grade with an llm_judge criterion instead",
}
"""Top-level keys of older reference versions that nothing reads any more, and what replaced them."""


@dataclass(frozen=True)
class LoadWarning:
    """Something a task file says that loads, but not as written: an ignored key, a legacy form."""

    message: str
    field: str
    line: int | None = None
    hint: str = ""

    def render(self) -> str:
        where = f"{self.field} (line {self.line})" if self.line is not None else self.field
        text = f"{where}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


def lenient_top_level(raw: dict[str, Any], lines: LineMap) -> tuple[dict[str, Any], list[LoadWarning]]:
    """The document without the top-level keys no field knows, and a warning for each one dropped."""
    known = TaskDefinition.model_fields
    kept: dict[str, Any] = {}
    warnings: list[LoadWarning] = []
    for key, value in raw.items():
        name = str(key)
        if name in known:
            kept[key] = value
            continue
        line = lines.get((name,))
        if name in STALE_KEYS:
            warnings.append(
                LoadWarning("is no longer used and is ignored", name, line, f"{STALE_KEYS[name]}; {MIGRATE_HINT}")
            )
        else:
            hint = did_you_mean(name, list(known)) or "it is not a task field; remove it if it is not meant for you"
            warnings.append(LoadWarning("unknown top-level key, ignored", name, line, hint))
    warnings.extend(_alias_warnings(kept, lines))
    return kept, warnings


def _alias_warnings(raw: dict[str, Any], lines: LineMap) -> list[LoadWarning]:
    criteria = raw.get("success_criteria")
    if not isinstance(criteria, list):
        return []
    out = []
    for i, item in enumerate(criteria):
        kind = item.get("type") if isinstance(item, dict) else None
        if isinstance(kind, str) and kind in LEGACY_CRITERION_ALIASES:
            target, forced = LEGACY_CRITERION_ALIASES[kind]
            fixed = ", ".join(f"{k}: {v}" for k, v in forced.items())
            out.append(
                LoadWarning(
                    f"{kind} is a legacy alias, read as {target} with {fixed}",
                    f"success_criteria[{i}].type",
                    lines.get(("success_criteria", i, "type")),
                    MIGRATE_HINT,
                )
            )
    return out
