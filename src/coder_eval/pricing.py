"""Model prices and the cost of token usage.

Rates are USD per million tokens in four buckets: uncached input, output, cache
write, cache read. A model missing from the card has no price: its cost is None,
never 0, so totals built on it are flagged incomplete rather than silently low.
Plugins add rates with `register_pricing` (idempotent, never overriding a rate).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from coder_eval.models.registry import Registry


@dataclass(frozen=True)
class ModelPricing:
    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(self, uncached_input: int, output: int, cache_creation: int = 0, cache_read: int = 0) -> float:
        return (
            uncached_input * self.input
            + output * self.output
            + cache_creation * self.cache_write
            + cache_read * self.cache_read
        ) / 1_000_000


# Public list prices; keys are bare model ids (aliases map onto them below).
BUILTIN_RATES: dict[str, ModelPricing] = {
    "claude-opus-4-1": ModelPricing(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4": ModelPricing(15.0, 75.0, 18.75, 1.50),
    "claude-opus-4-5": ModelPricing(5.0, 25.0, 6.25, 0.50),
    "claude-sonnet-4": ModelPricing(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-5": ModelPricing(3.0, 15.0, 3.75, 0.30),
    "claude-sonnet-4-6": ModelPricing(3.0, 15.0, 3.75, 0.30),
    "claude-haiku-4-5": ModelPricing(1.0, 5.0, 1.25, 0.10),
    "claude-3-5-haiku": ModelPricing(0.80, 4.0, 1.0, 0.08),
    "claude-3-7-sonnet": ModelPricing(3.0, 15.0, 3.75, 0.30),
    "gpt-5": ModelPricing(1.25, 10.0, 0.0, 0.125),
    "gpt-5-mini": ModelPricing(0.25, 2.0, 0.0, 0.025),
    "gpt-5-codex": ModelPricing(1.25, 10.0, 0.0, 0.125),
    "gpt-4.1": ModelPricing(2.0, 8.0, 0.0, 0.50),
    "o4-mini": ModelPricing(1.10, 4.40, 0.0, 0.275),
    "gemini-2.5-pro": ModelPricing(1.25, 10.0, 0.0, 0.31),
    "gemini-2.5-flash": ModelPricing(0.30, 2.50, 0.0, 0.075),
    "scripted": ModelPricing(0.0, 0.0, 0.0, 0.0),
}

PRICING: Registry[ModelPricing] = Registry("model price")
"""Bare model id -> rates: the built-in card plus what plugins add (never replacing a rate)."""
for _model, _rate in BUILTIN_RATES.items():
    PRICING.add(_model, _rate)

_VENDOR_PREFIX = re.compile(r"^(?:(?:us|eu|apac|global)\.)?(?:anthropic|openai|google|vertex_ai|bedrock)[./]")
_REGION_PREFIX = re.compile(r"^(?:us|eu|apac|global)\.")
_VERSION_SUFFIX = re.compile(r"(?:-\d{8})?(?:-v\d+(?::\d+)?)?$")


def normalize_model_id(model: str) -> str:
    """Strip vendor/region prefixes and date/version suffixes: `eu.anthropic.claude-x-20250101-v1:0` -> `claude-x`."""
    bare = model.strip().lower()
    previous = None
    while bare != previous:  # stacked prefixes, e.g. LiteLLM's `bedrock/us.anthropic.claude-x`
        previous = bare
        bare = _REGION_PREFIX.sub("", _VENDOR_PREFIX.sub("", bare))
    if "/" in bare:
        bare = bare.rsplit("/", 1)[-1]
    return _VERSION_SUFFIX.sub("", bare)


def register_pricing(rates: dict[str, ModelPricing]) -> None:
    """Add plugin rates. Identical re-registration is a no-op; a different rate for a known key raises.

    All-or-nothing: a conflict anywhere leaves every rate unregistered.
    """
    staged: dict[str, ModelPricing] = {}
    for key, rate in rates.items():
        bare = normalize_model_id(key)
        existing = staged.get(bare) or PRICING.find(bare)
        if existing is not None and existing != rate:
            raise ValueError(f"pricing for {key!r} is already registered as {existing}; refusing to replace it")
        staged[bare] = rate  # two keys of one batch that normalize alike must agree too
    for bare, rate in staged.items():
        PRICING.add(bare, rate)


def pricing_for(model: str | None) -> ModelPricing | None:
    if not model:
        return None
    return PRICING.find(normalize_model_id(model))


def calculate_cost(
    model: str | None, uncached_input: int, output: int, cache_creation: int = 0, cache_read: int = 0
) -> float | None:
    """USD cost of one usage record, or None when the model has no price."""
    rate = pricing_for(model)
    if rate is None:
        return None
    return rate.cost(uncached_input, output, cache_creation, cache_read)


def unpriced_models(models: list[str | None]) -> list[str]:
    """Models (as written) the card cannot price, for an up-front warning."""
    return sorted({m for m in models if m and pricing_for(m) is None})
