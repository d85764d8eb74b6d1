"""Fields every success criterion shares, and the early-stop block of live ones."""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, model_validator

from coder_eval.models.base import NonBlank, StrictModel

_NAMES_REFERENCE = re.compile(r"\bREFERENCE_DIR\b")


def names_reference(text: str) -> bool:
    """Whether a command or a path names the reference directory (`$REFERENCE_DIR`, `${REFERENCE_DIR}`)."""
    return bool(_NAMES_REFERENCE.search(text))


class StopEarlyPolicy(StrictModel):
    """Arms a live criterion for early stop; its presence alone is the arming."""

    on_pass: Literal["stop", "continue"] = Field(
        "continue", description="`stop` ends the run as soon as this criterion passes live."
    )
    decide_within: int | None = Field(
        None,
        ge=1,
        description="Tool-call steps after which an undecided criterion counts as a fail.",
    )


class BaseCriterion(StrictModel):
    """Shared fields: description, weight, pass threshold and suite gates."""

    type: str
    description: NonBlank = Field(description="What this criterion checks, shown in every report.")
    weight: float = Field(
        1.0,
        ge=0.0,
        allow_inf_nan=False,  # an infinite weight turns the weighted score into NaN
        description="Share of the weighted score. 0 makes the criterion informational (never gates).",
    )
    pass_threshold: float = Field(0.9, ge=0.0, le=1.0, description="Minimum score that counts as a pass.")
    suite_thresholds: dict[str, float] | None = Field(
        None,
        description="On dataset suites: minimum value per aggregated metric (e.g. accuracy, macro_f1).",
    )

    requires_agent: ClassVar[bool] = False
    """True when the criterion reads the agent's trajectory rather than files."""
    reads_files_only: ClassVar[bool] = False
    """True for read-only artifact checks that may run after an agent crash."""

    @property
    def is_gating(self) -> bool:
        return self.weight > 0

    @property
    def is_disabled(self) -> bool:
        """True for a criterion switched off with `enabled: false` (the judge criteria have the switch)."""
        return getattr(self, "enabled", True) is False

    @property
    def needs_files_before(self) -> bool:
        """True when grading compares the workspace with the files it held before the agent started
        (the engine then lists them, see `CheckContext.files_before`)."""
        return False

    @property
    def runs_after_failure(self) -> bool:
        """True when the criterion also runs on the diagnostic path after an agent crash or timeout."""
        return self.reads_files_only

    @property
    def sees_reference(self) -> bool:
        """Whether the reference solution is shown to this criterion while it runs (never otherwise).

        The built-in rule (docs/tasks.md, "The reference at grading"): a criterion that names it. A
        plugin's criterion that reads `ctx.reference_dir` overrides this.
        """
        return False

    @model_validator(mode="after")
    def _informational_cannot_gate_suite(self) -> BaseCriterion:
        if self.weight == 0 and self.suite_thresholds:
            raise ValueError(
                "a weight-0 (informational) criterion cannot set suite_thresholds; "
                "give it a positive weight or drop the thresholds"
            )
        return self


class LiveCriterion(BaseCriterion):
    """A criterion whose verdict can be observed while the agent is still working."""

    stop_early: StopEarlyPolicy | None = Field(
        None, description="Arms this criterion for early stop (see the early-stop guide)."
    )

    @model_validator(mode="after")
    def _informational_cannot_stop(self) -> LiveCriterion:
        if self.weight == 0 and self.stop_early is not None:
            raise ValueError(
                "a weight-0 (informational) criterion cannot set stop_early; "
                "give it a positive weight or remove the stop_early block"
            )
        return self
