"""Adaptive replicates: the experiment file's `adaptive:` block and the record a run keeps (adaptive.json).

With `repeats: auto` (or `--repeats auto`) an experiment of two arms runs replicates in rounds and
stops adding them to a task once more could not change the paired verdict (docs/experiments.md,
"Adaptive replicates"). The record says which rule ended each task and how many units the run
spent against the fixed design of `max_repeats` replicates for every task and arm.
"""

from __future__ import annotations

from pydantic import Field, computed_field, model_validator

from coder_eval.models.base import RecordModel, StrictModel

ADAPTIVE_JSON = "adaptive.json"


class AdaptiveConfig(StrictModel):
    """The settings of adaptive replicates; each one may also come from the command line."""

    max_repeats: int | None = Field(
        None, ge=2, le=1000, description="Most replicates per task and arm (default 10); the fixed design's count."
    )
    min_repeats: int | None = Field(
        None, ge=2, le=1000, description="Replicates per task and arm in the first round (default 2)."
    )
    confidence: float | None = Field(
        None, ge=0.5, lt=1.0, description="Confidence of the verdict and of the sequential test (default 0.95)."
    )
    effect_size: float | None = Field(
        None,
        gt=0.0,
        lt=1.0,
        description="Smallest difference in mean score worth detecting (default 0.2): the first bets are sized "
        "for it, and a task whose confidence sequence fits inside ± this stops.",
    )

    @model_validator(mode="after")
    def _order(self) -> AdaptiveConfig:
        if self.min_repeats is not None and self.max_repeats is not None and self.min_repeats > self.max_repeats:
            raise ValueError(f"min_repeats ({self.min_repeats}) is above max_repeats ({self.max_repeats})")
        return self


class AdaptiveTask(RecordModel):
    """One task of an adaptive run: how far it went and why it stopped."""

    task_id: str = Field(description="The task.")
    replicates: int = Field(0, description="Replicates run per arm.")
    pairs: int = Field(0, description="Replicate indices both arms measured (the paired differences).")
    rule: str | None = Field(
        None, description="What stopped it: verdict, futile, decided, negligible, max-repeats; None if it never did."
    )
    stopped_after_round: int | None = Field(None, description="The round after which it stopped.")
    detail: str = Field("", description="The rule's reason in words.")
    mean_difference: float | None = Field(None, description="Mean of its paired differences (B − A).")
    low: float = Field(-1.0, description="Low end of its confidence sequence for the mean difference.")
    high: float = Field(1.0, description="High end of its confidence sequence.")


class AdaptiveRecord(RecordModel):
    """adaptive.json: the settings, every round's outcome so far, and the spend against the fixed design."""

    arms: list[str] = Field(default_factory=list, description="The two arms: A (first) and B.")
    max_repeats: int = Field(description="Cap of replicates per task and arm.")
    min_repeats: int = Field(description="Replicates per task and arm in the first round.")
    confidence: float = Field(description="Confidence of the verdict and the sequential test.")
    effect_size: float = Field(description="Smallest difference in mean score worth detecting.")
    tasks_total: int = Field(0, description="Tasks compared.")
    rounds: int = Field(0, description="Rounds completed.")
    units_spent: int = Field(0, description="Units of the adaptive schedule with a record.")
    units_fixed_design: int = Field(0, description="max_repeats × tasks × arms: what the fixed design runs.")
    e_better: float = Field(1.0, description="Run-level sequential e-value that B is better.")
    e_worse: float = Field(1.0, description="Run-level sequential e-value that A is better.")
    bar: float = Field(0.0, description="The e-value either direction needs: 2 / (1 − confidence).")
    finished: bool = Field(False, description="Every task stopped by a rule (not by an interrupt or spend limit).")
    stop_reason: str = Field("", description="Why the run stopped adding replicates, in words.")
    tasks: list[AdaptiveTask] = Field(default_factory=list, description="Each task's progress and stopping rule.")

    @model_validator(mode="after")
    def _sane(self) -> AdaptiveRecord:
        if self.units_spent < 0 or self.units_fixed_design < 0:
            raise ValueError("unit counts cannot be negative")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def saving(self) -> float | None:
        """Share of the fixed design's units not spent (None without a fixed design)."""
        if not self.units_fixed_design:
            return None
        return 1 - self.units_spent / self.units_fixed_design

    def settings_key(self) -> tuple[int, int, float, float, tuple[str, ...]]:
        """What a resumed run must repeat to continue the same decision procedure."""
        return (self.max_repeats, self.min_repeats, self.confidence, self.effect_size, tuple(self.arms))

    def spent_sentence(self) -> str:
        """`46 of 100 units (fixed design: 10 replicates × 5 tasks × 2 arms), 54% saved`."""
        arms = len(self.arms) or 2
        text = (
            f"{self.units_spent} of {self.units_fixed_design} units (fixed design: {self.max_repeats} replicates × "
            f"{self.tasks_total} tasks × {arms} arms)"
        )
        if self.saving is not None:
            text += f", {self.saving:.0%} saved"
        return text
