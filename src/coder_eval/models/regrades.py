"""Re-grades of recorded units (`coder-eval flaky --regrade N`), kept in the run's regrades.json.

Each re-grade grades a fresh copy of a unit's preserved workspace with the unit's recorded
task and trajectory, so the agent played no part in it: when two grades of the same unit
disagree, the grader is at fault. The file keeps every re-grade made so far, so a later
`coder-eval flaky RUN_DIR` uses them without grading again.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from coder_eval.models.base import RecordModel
from coder_eval.models.results import CriterionResult
from coder_eval.models.status import FinalStatus

DETAIL_CHARS = 300
"""A criterion's details and error are kept to this many characters: enough to tell two grades apart."""


def _clip(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


class CriterionGrade(RecordModel):
    """One criterion's outcome in one grade, in a compact form."""

    criterion_type: str = Field(description="The criterion's type.")
    description: str = Field("", description="Its description from the task file.")
    score: float = Field(0.0, description="Score from 0 to 1.")
    passed: bool = Field(False, description="Evaluated and at or above its threshold.")
    evaluated: bool = Field(True, description="False when the criterion was skipped.")
    details: str = Field("", description="What the checker found (clipped).")
    error: str | None = Field(None, description="Why it could not be checked, if so (clipped).")

    @classmethod
    def of(cls, result: CriterionResult) -> CriterionGrade:
        return cls(
            criterion_type=result.criterion_type,
            description=result.description,
            score=result.score,
            passed=result.passed,
            evaluated=result.evaluation_status == "evaluated",
            details=_clip(result.details) or "",
            error=_clip(result.error),
        )

    @property
    def title(self) -> str:
        return f"{self.criterion_type}: {self.description}" if self.description else self.criterion_type

    @property
    def reason(self) -> str:
        """The first line of the error, else of the details: what the checker said."""
        text = self.error or self.details or ""
        return text.strip().splitlines()[0] if text.strip() else ""


class Regrade(RecordModel):
    """One re-grade of a unit's preserved workspace."""

    at: datetime = Field(description="When the re-grade ran.")
    final_status: FinalStatus | None = Field(None, description="The status the criteria gave; None when not graded.")
    weighted_score: float | None = Field(None, description="The weighted score the criteria gave.")
    criteria: list[CriterionGrade] = Field(default_factory=list, description="Each criterion's outcome, in order.")
    comparable: bool = Field(
        True, description="False when this grade cannot be compared (the copy was incomplete, grading failed)."
    )
    note: str | None = Field(None, description="Why it is not comparable, or what else happened.")


class UnitRegrades(RecordModel):
    """Every re-grade of one unit, and the grade the run recorded for it."""

    task_id: str = Field(description="The unit's task.")
    variant_id: str = Field("default", description="The unit's variant.")
    replicate_index: int = Field(0, description="The unit's replicate.")
    recorded: list[CriterionGrade] = Field(
        default_factory=list, description="The criteria as the run graded them (task.json when first re-graded)."
    )
    regrades: list[Regrade] = Field(default_factory=list, description="The re-grades, oldest first.")


class RunRegrades(RecordModel):
    """regrades.json: a run's re-grades, keyed by the unit's directory relative to the run."""

    units: dict[str, UnitRegrades] = Field(default_factory=dict, description="Unit directory -> its re-grades.")
