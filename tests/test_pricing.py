"""Table-driven tests for the rate card: id normalization, cost per bucket, plugin registration."""

from __future__ import annotations

import uuid

import pytest

from coder_eval import pricing
from coder_eval.pricing import (
    BUILTIN_RATES,
    ModelPricing,
    calculate_cost,
    normalize_model_id,
    pricing_for,
    register_pricing,
    unpriced_models,
)

RATE = ModelPricing(input=2.0, output=10.0, cache_write=2.5, cache_read=0.2)


def fresh_model() -> str:
    return f"test-model-{uuid.uuid4().hex[:12]}"


# --- normalize_model_id ---------------------------------------------------------------------------

NORMALIZE_CASES = [
    pytest.param("claude-sonnet-4-5", "claude-sonnet-4-5", id="bare"),
    pytest.param("claude-sonnet-4-5-20250929", "claude-sonnet-4-5", id="date-suffix"),
    pytest.param("claude-3-5-haiku-20241022", "claude-3-5-haiku", id="date-suffix-older-naming"),
    pytest.param("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", id="bedrock-date-and-version"),
    pytest.param("anthropic.claude-haiku-4-5-v1:0", "claude-haiku-4-5", id="bedrock-version-only"),
    pytest.param("eu.anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4-1", id="eu-region"),
    pytest.param("us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4", id="us-region"),
    pytest.param("apac.anthropic.claude-sonnet-4-20250514-v2:0", "claude-sonnet-4", id="apac-region-v2"),
    pytest.param("global.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", id="global-region"),
    pytest.param("us.claude-sonnet-4-5", "claude-sonnet-4-5", id="region-without-vendor"),
    pytest.param("anthropic/claude-opus-4-5", "claude-opus-4-5", id="vendor-slash"),
    pytest.param("openai/gpt-5-mini", "gpt-5-mini", id="openai-slash"),
    pytest.param("google/gemini-2.5-pro", "gemini-2.5-pro", id="google-slash"),
    pytest.param("vertex_ai/gemini-2.5-flash", "gemini-2.5-flash", id="vertex-slash"),
    pytest.param("bedrock/anthropic.claude-sonnet-4", "claude-sonnet-4", id="bedrock-slash-then-dot"),
    pytest.param(
        "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", id="litellm-bedrock-region"
    ),
    pytest.param("openrouter/qwen/qwen3-coder", "qwen3-coder", id="router-path-last-segment"),
    pytest.param("  Claude-Sonnet-4-5  ", "claude-sonnet-4-5", id="case-and-whitespace"),
    pytest.param("gpt-4.1", "gpt-4.1", id="dots-kept"),
    pytest.param("claude-sonnet-4-5-2025", "claude-sonnet-4-5-2025", id="short-number-is-not-a-date"),
    pytest.param("europe.claude-x", "europe.claude-x", id="unknown-region-kept"),
]


@pytest.mark.parametrize(("raw", "bare"), NORMALIZE_CASES)
def test_normalize_model_id(raw: str, bare: str) -> None:
    assert normalize_model_id(raw) == bare


@pytest.mark.parametrize("raw", [c.values[0] for c in NORMALIZE_CASES])
def test_normalize_is_idempotent(raw: str) -> None:
    once = normalize_model_id(raw)
    assert normalize_model_id(once) == once


# --- calculate_cost -------------------------------------------------------------------------------

COST_CASES = [
    # (uncached_input, output, cache_creation, cache_read) against claude-sonnet-4-5: 3 / 15 / 3.75 / 0.30
    pytest.param((1_000_000, 0, 0, 0), 3.0, id="uncached-input"),
    pytest.param((0, 1_000_000, 0, 0), 15.0, id="output"),
    pytest.param((0, 0, 1_000_000, 0), 3.75, id="cache-write"),
    pytest.param((0, 0, 0, 1_000_000), 0.30, id="cache-read"),
    pytest.param((1_000, 500, 2_000, 10_000), (1_000 * 3 + 500 * 15 + 2_000 * 3.75 + 10_000 * 0.3) / 1e6, id="mixed"),
    pytest.param((0, 0, 0, 0), 0.0, id="nothing-used"),
    pytest.param((1, 0, 0, 0), 3e-6, id="one-token"),
]


@pytest.mark.parametrize(("tokens", "usd"), COST_CASES)
def test_calculate_cost_buckets(tokens: tuple[int, int, int, int], usd: float) -> None:
    assert calculate_cost("claude-sonnet-4-5", *tokens) == pytest.approx(usd)


@pytest.mark.parametrize(
    ("model", "usd"),
    [
        pytest.param("claude-opus-4-1", 15.0 + 75.0, id="opus-4-1"),
        pytest.param("claude-opus-4-5-20251101", 5.0 + 25.0, id="opus-4-5-dated"),
        pytest.param("eu.anthropic.claude-haiku-4-5-20251001-v1:0", 1.0 + 5.0, id="haiku-bedrock"),
        pytest.param("openai/gpt-5", 1.25 + 10.0, id="gpt-5-vendor"),
        pytest.param("scripted", 0.0, id="zero-rate-is-free"),
    ],
)
def test_calculate_cost_by_model(model: str, usd: float) -> None:
    assert calculate_cost(model, 1_000_000, 1_000_000) == pytest.approx(usd)


def test_cache_buckets_default_to_zero() -> None:
    assert calculate_cost("gpt-5", 1_000_000, 0) == calculate_cost("gpt-5", 1_000_000, 0, 0, 0)


@pytest.mark.parametrize("model", ["", None, "no-such-model", "claude-sonnet-9", "anthropic.mystery-v1:0"], ids=repr)
def test_unknown_model_costs_none_not_zero(model: str | None) -> None:
    assert calculate_cost(model, 1_000, 1_000) is None
    assert pricing_for(model) is None


def test_zero_rate_model_is_priced_at_zero() -> None:
    cost = calculate_cost("scripted", 10**9, 10**9, 10**9, 10**9)
    assert cost == 0.0 and cost is not None


@pytest.mark.parametrize(
    ("rate", "tokens", "usd"),
    [
        pytest.param(RATE, (2_000_000, 0, 0, 0), 4.0, id="input"),
        pytest.param(RATE, (0, 300_000, 0, 0), 3.0, id="output"),
        pytest.param(RATE, (0, 0, 400_000, 0), 1.0, id="write"),
        pytest.param(RATE, (0, 0, 0, 5_000_000), 1.0, id="read"),
        pytest.param(ModelPricing(0, 0, 0, 0), (5, 5, 5, 5), 0.0, id="all-zero"),
    ],
)
def test_model_pricing_cost(rate: ModelPricing, tokens: tuple[int, int, int, int], usd: float) -> None:
    assert rate.cost(*tokens) == pytest.approx(usd)


# --- register_pricing -----------------------------------------------------------------------------


def test_plugin_rate_is_used() -> None:
    model = fresh_model()
    assert calculate_cost(model, 1, 1) is None
    register_pricing({model: RATE})
    assert calculate_cost(model, 1_000_000, 0) == pytest.approx(2.0)
    assert calculate_cost(f"eu.anthropic.{model}-20250101-v1:0", 0, 1_000_000) == pytest.approx(10.0)


def test_plugin_zero_rate_prices_to_zero() -> None:
    model = fresh_model()
    register_pricing({model: ModelPricing(0.0, 0.0, 0.0, 0.0)})
    assert calculate_cost(model, 1_000, 1_000) == 0.0


@pytest.mark.parametrize(
    "again",
    [
        pytest.param(lambda m: {m: RATE}, id="same-key"),
        pytest.param(lambda m: {m.upper(): RATE}, id="same-key-other-case"),
        pytest.param(lambda m: {f"{m}-20250101": RATE}, id="dated-alias"),
        pytest.param(lambda m: {m: ModelPricing(2.0, 10.0, 2.5, 0.2)}, id="equal-instance"),
    ],
)
def test_identical_reregistration_is_a_noop(again) -> None:  # type: ignore[no-untyped-def]
    model = fresh_model()
    register_pricing({model: RATE})
    register_pricing(again(model))
    assert pricing_for(model) == RATE


@pytest.mark.parametrize(
    ("key", "rate"),
    [
        pytest.param("claude-sonnet-4-5", ModelPricing(1.0, 1.0, 1.0, 1.0), id="builtin-key"),
        pytest.param("anthropic.claude-sonnet-4-5-20250929-v1:0", ModelPricing(1.0, 1.0, 1.0, 1.0), id="builtin-alias"),
        pytest.param("scripted", ModelPricing(0.0, 0.0, 0.0, 0.01), id="builtin-zero-rate"),
    ],
)
def test_conflict_with_builtin_raises(key: str, rate: ModelPricing) -> None:
    bare = normalize_model_id(key)
    before = BUILTIN_RATES[bare]
    with pytest.raises(ValueError, match="already registered"):
        register_pricing({key: rate})
    assert pricing_for(key) == before


def test_builtin_rate_may_be_restated() -> None:
    register_pricing({"claude-haiku-4-5": BUILTIN_RATES["claude-haiku-4-5"]})
    assert pricing_for("claude-haiku-4-5") == BUILTIN_RATES["claude-haiku-4-5"]


@pytest.mark.parametrize(
    "alias",
    [pytest.param(lambda m: m, id="same-key"), pytest.param(lambda m: f"us.{m}-20250101", id="aliased-key")],
)
def test_conflict_with_plugin_rate_raises(alias) -> None:  # type: ignore[no-untyped-def]
    model = fresh_model()
    register_pricing({model: RATE})
    with pytest.raises(ValueError, match="refusing to replace"):
        register_pricing({alias(model): ModelPricing(9.0, 9.0, 9.0, 9.0)})
    assert pricing_for(model) == RATE


@pytest.mark.parametrize("conflict_position", ["first", "middle", "last"])
def test_batch_is_all_or_nothing(conflict_position: str) -> None:
    new = [fresh_model(), fresh_model()]
    conflict = ("claude-opus-4", ModelPricing(0.1, 0.1, 0.1, 0.1))
    items = [(new[0], RATE), (new[1], RATE)]
    items.insert({"first": 0, "middle": 1, "last": 2}[conflict_position], conflict)
    with pytest.raises(ValueError):
        register_pricing(dict(items))
    assert [pricing_for(m) for m in new] == [None, None]
    assert pricing_for("claude-opus-4") == BUILTIN_RATES["claude-opus-4"]


@pytest.mark.parametrize(
    "second_key",
    [pytest.param(lambda m: m.upper(), id="case-alias"), pytest.param(lambda m: f"{m}-20250101", id="dated-alias")],
)
def test_conflict_inside_one_batch_raises(second_key) -> None:  # type: ignore[no-untyped-def]
    model, other = fresh_model(), fresh_model()
    with pytest.raises(ValueError, match="refusing to replace"):
        register_pricing({other: RATE, model: RATE, second_key(model): ModelPricing(7.0, 7.0, 7.0, 7.0)})
    assert pricing_for(model) is None and pricing_for(other) is None


def test_consistent_aliases_inside_one_batch() -> None:
    model = fresh_model()
    register_pricing({model: RATE, f"{model}-20250101": RATE})
    assert pricing_for(model) == RATE


def test_empty_batch() -> None:
    before = pricing.PRICING.names()
    register_pricing({})
    assert pricing.PRICING.names() == before


# --- unpriced_models ------------------------------------------------------------------------------

UNPRICED_CASES = [
    pytest.param([], [], id="empty"),
    pytest.param(["claude-sonnet-4-5", "gpt-5"], [], id="all-priced"),
    pytest.param([None, ""], [], id="unset-models-skipped"),
    pytest.param(["zz-model", "aa-model", "zz-model"], ["aa-model", "zz-model"], id="sorted-unique"),
    pytest.param(["eu.anthropic.claude-sonnet-4-5-v1:0", "Mystery-1"], ["Mystery-1"], id="as-written"),
    pytest.param(["scripted", None, "nope"], ["nope"], id="free-model-is-priced"),
]


@pytest.mark.parametrize(("models", "expected"), UNPRICED_CASES)
def test_unpriced_models(models: list[str | None], expected: list[str]) -> None:
    assert unpriced_models(models) == expected


def test_unpriced_until_registered() -> None:
    model = fresh_model()
    assert unpriced_models([model, "gpt-5"]) == [model]
    register_pricing({model: RATE})
    assert unpriced_models([model, "gpt-5"]) == []
