"""Exceptions for mistakes a user can fix, each carrying where and how.

A traceback means a bug in Coder Eval; anything a user wrote wrong raises one of
these, and the CLI renders it as one paragraph with an exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Problem:
    """One thing wrong with an input file: where it is and what to do about it."""

    message: str
    field_path: str = ""
    hint: str = ""

    def render(self, file: Path | str | None = None) -> str:
        where = str(file) if file else ""
        if self.field_path:
            where = f"{where}: {self.field_path}" if where else self.field_path
        text = f"{where}: {self.message}" if where else self.message
        if self.hint:
            text = f"{text} ({self.hint})"
        return text


class CoderEvalError(Exception):
    """Base class for every error Coder Eval reports to a user without a traceback."""

    exit_code = 2


@dataclass
class TaskConfigError(CoderEvalError):
    """A task (or dataset, or template) file is invalid.

    Holds every problem found in one file so a user fixes them in one pass.
    """

    file: Path | str | None
    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__init__(self.render())

    @classmethod
    def single(cls, file: Path | str | None, message: str, field_path: str = "", hint: str = "") -> TaskConfigError:
        return cls(file, [Problem(message, field_path, hint)])

    def render(self) -> str:
        return "; ".join(p.render(self.file) for p in self.problems) or f"{self.file}: invalid task"


class UsageError(CoderEvalError):
    """The command line itself is wrong (bad option, missing path)."""


class CheckerMisuseError(CoderEvalError):
    """A criterion is configured in a way no agent behaviour could satisfy.

    Raised, for example, when a criterion names a path outside the sandbox. It is
    reported as a task-configuration error, never booked as the agent's failure.
    """


class RecordError(CoderEvalError):
    """A run directory or one of its records is missing or unreadable."""


class CriterionUnavailableError(CoderEvalError):
    """A criterion cannot be evaluated on this machine (a missing credential or optional extra).

    The run ends ERROR with this message: the agent's work was never graded, so a 0 would lie.
    """
