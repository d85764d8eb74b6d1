"""The up-front pricing check: name the models a run pins that the rate card cannot price.

A missing rate never fails a run (costs become floors, `cost_complete: false`), but finding out
before the first task starts is when fixing the card is still cheap.
"""

from __future__ import annotations

import logging

from coder_eval.engine.units import RunUnit
from coder_eval.models.criteria_judges import (
    DEFAULT_JUDGE_MODEL,
    AgentJudgeCriterion,
    LlmJudgeCriterion,
)
from coder_eval.models.criteria_judges import SystemOneJudgeCriterion as _SystemOne
from coder_eval.pricing import unpriced_models

log = logging.getLogger(__name__)

UNPRICED_BACKENDS = ("script",)
"""Backends whose calls cost nothing, so coverage does not matter."""


def pinned_models(units: list[RunUnit]) -> list[str | None]:
    """Every model a unit names: its agent's, and its judges' (with the judge default filled in)."""
    models: list[str | None] = []
    for unit in units:
        models.append(unit.agent.model)
        for criterion in unit.task.definition.success_criteria:
            if criterion.is_disabled:
                continue
            if isinstance(criterion, LlmJudgeCriterion):
                models.append(criterion.model or DEFAULT_JUDGE_MODEL)
            elif isinstance(criterion, AgentJudgeCriterion):
                models.append(criterion.agent.model)
            elif isinstance(criterion, _SystemOne):
                models.append(criterion.model)
    return models


def pricing_coverage_warning(units: list[RunUnit], backend: str) -> str | None:
    """The warning for unpriced models (None when every pinned model is on the card)."""
    if backend in UNPRICED_BACKENDS:
        return None
    missing = unpriced_models(pinned_models(units))
    if not missing:
        return None
    return (
        f"no price on the rate card for {', '.join(missing)}: their cost will be missing and run totals "
        "will be floors (cost_complete: false). Add rates with coder_eval.pricing.register_pricing "
        "from a plugin, or fix the model name"
    )


def warn_unpriced(units: list[RunUnit], backend: str) -> str | None:
    message = pricing_coverage_warning(units, backend)
    if message:
        log.warning(message)
    return message
