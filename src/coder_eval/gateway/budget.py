"""The one budget rule, shared by the gateway (refuse the next call) and the engine (mark the unit).

A limit is exhausted once the spend reaches it: a unit that has spent exactly its cap has no
budget left, so the gateway refuses its next call and the engine marks it as over budget.
Both sides ask `Budget.exceeded`, so the two can never disagree about a unit at its cap.

Token limits count uncached input and output. Prompt-cache reads and writes count only when the
task says so (`run_limits.count_cached_input`, `run_limits.count_cache_creation`), as in the
reference system: a long cached conversation would otherwise exhaust an input cap it never paid
for in full. The USD limit always sees every bucket, priced at its own rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from coder_eval.models.task_parts import RunLimits
from coder_eval.models.telemetry import TokenUsage

BudgetKind = Literal["tokens", "usd"]


@dataclass(frozen=True)
class Budget:
    """Spending limits of one unit; every limit is optional. Cache buckets count only when asked to."""

    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    max_usd: float | None = None
    count_cached_input: bool = False
    """Cache reads count toward the input and total token limits."""
    count_cache_creation: bool = False
    """Cache writes count toward the input and total token limits."""

    @classmethod
    def of(cls, limits: RunLimits) -> Budget | None:
        """The budget a task's run limits set, or None when they set no spending limit."""
        budget = cls(
            limits.max_input_tokens,
            limits.max_output_tokens,
            limits.max_total_tokens,
            limits.max_usd,
            count_cached_input=limits.count_cached_input,
            count_cache_creation=limits.count_cache_creation,
        )
        return budget if budget.limited else None

    def counted_input(self, spent: TokenUsage) -> int:
        """The input tokens the token limits see: uncached, plus the cache buckets the task counts."""
        counted = spent.uncached_input_tokens
        if self.count_cached_input:
            counted += spent.cache_read_input_tokens
        if self.count_cache_creation:
            counted += spent.cache_creation_input_tokens
        return counted

    @property
    def limited(self) -> bool:
        """Whether any limit is set."""
        caps = (self.max_input_tokens, self.max_output_tokens, self.max_total_tokens, self.max_usd)
        return any(cap is not None for cap in caps)

    def exceeded(self, spent: TokenUsage, spent_usd: float | None) -> tuple[BudgetKind, str] | None:
        """Which limit `spent` has reached (tokens before USD) and a readable reason; None while within budget.

        `spent_usd` None (a spend that could not be priced) never exhausts the USD limit.
        """
        counted_input = self.counted_input(spent)
        token_limits = (
            ("input tokens", counted_input, self.max_input_tokens),
            ("output tokens", spent.output_tokens, self.max_output_tokens),
            ("total tokens", counted_input + spent.output_tokens, self.max_total_tokens),
        )
        for label, used, limit in token_limits:
            if limit is not None and used >= limit:
                return "tokens", f"{label} {used} of {limit} spent"
        if self.max_usd is not None and spent_usd is not None and spent_usd >= self.max_usd:
            return "usd", f"${spent_usd:.6f} of ${self.max_usd:.6f} spent"
        return None
