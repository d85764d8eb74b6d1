"""Terminal statuses of a task and the reporting bucket each falls in."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

Category = Literal["succeeded", "failed", "error", "ungraded"]


class FinalStatus(StrEnum):
    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"
    TIMEOUT = "TIMEOUT"
    MAX_TURNS_EXHAUSTED = "MAX_TURNS_EXHAUSTED"
    TOKEN_BUDGET_EXCEEDED = "TOKEN_BUDGET_EXCEEDED"
    COST_BUDGET_EXCEEDED = "COST_BUDGET_EXCEEDED"
    ERROR = "ERROR"
    BUILD_FAILED = "BUILD_FAILED"
    NOT_GRADED = "NOT_GRADED"

    @property
    def category(self) -> Category:
        return _CATEGORY[self]

    @property
    def icon(self) -> str:
        return _ICON[self]

    @property
    def is_execution_fact(self) -> bool:
        """A status grading may never overwrite: it records what happened to the run itself."""
        return self in _EXECUTION_FACTS


_CATEGORY: dict[FinalStatus, Category] = {
    FinalStatus.SUCCESS: "succeeded",
    FinalStatus.FAILURE: "failed",
    FinalStatus.TIMEOUT: "failed",
    FinalStatus.MAX_TURNS_EXHAUSTED: "failed",
    FinalStatus.TOKEN_BUDGET_EXCEEDED: "failed",
    FinalStatus.COST_BUDGET_EXCEEDED: "failed",
    FinalStatus.ERROR: "error",
    FinalStatus.BUILD_FAILED: "error",
    FinalStatus.NOT_GRADED: "ungraded",
}
_ICON: dict[FinalStatus, str] = {
    FinalStatus.SUCCESS: "+",
    FinalStatus.FAILURE: "-",
    FinalStatus.TIMEOUT: "T",
    FinalStatus.MAX_TURNS_EXHAUSTED: "M",
    FinalStatus.TOKEN_BUDGET_EXCEEDED: "#",
    FinalStatus.COST_BUDGET_EXCEEDED: "$",
    FinalStatus.ERROR: "!",
    FinalStatus.BUILD_FAILED: "B",
    FinalStatus.NOT_GRADED: "?",
}
_EXECUTION_FACTS = frozenset(
    {
        FinalStatus.TIMEOUT,
        FinalStatus.ERROR,
        FinalStatus.BUILD_FAILED,
        FinalStatus.TOKEN_BUDGET_EXCEEDED,
        FinalStatus.COST_BUDGET_EXCEEDED,
    }
)
