"""The criterion contract: a checker turns (spec, context) into a CriterionResult.

`Criterion.evaluate(spec, ctx)` is the native hook. `BaseCriterion` is the checker base of the
reference system's plugin guide (`_check_impl` or `_check_impl_async`, given the criterion, a
sandbox view and the trajectory), adapted onto `evaluate` so such a checker runs unchanged.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from coder_eval.common.ignore import IgnoreRules
from coder_eval.common.process import ExecResult, run_shell
from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.criteria import bounded
from coder_eval.criteria.paths import Resolution, resolve_paths
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CheckerMisuseError
from coder_eval.models.criteria_base import BaseCriterion as CriterionSpec
from coder_eval.models.results import CriterionResult
from coder_eval.models.telemetry import TurnRecord
from coder_eval.sandbox.cli_recorder import CliLog
from coder_eval.sandbox.deadline import Deadline
from coder_eval.sandbox.env_allowlist import allowlisted_env
from coder_eval.sandbox.environment import Command, SandboxEnvironment

if TYPE_CHECKING:
    from coder_eval.judges.services import JudgeServices

SpecT = TypeVar("SpecT", bound=CriterionSpec)

__all__ = ["BaseCriterion", "CheckContext", "Criterion", "register_criterion"]


class GradingControl(Protocol):
    """The engine's hands around each criterion of a unit's grading (see `grading.grade`)."""

    def before(self, spec: CriterionSpec) -> dict[str, str]:
        """Ready the unit for `spec`: shows the reference when `spec` sees it; variables for its commands."""
        ...

    def after(self, spec: CriterionSpec, ran_commands: bool) -> list[str]:
        """`spec` is done: ends what it started, withdraws the reference; notes for its result."""
        ...


@dataclass
class CheckContext:
    """Everything a checker may read: the sandbox, the task's directories, the trajectory."""

    root: Path
    ignore: IgnoreRules = field(default_factory=IgnoreRules.with_overrides)
    task_dir: Path | None = None
    reference_dir: Path | None = None
    turns: list[TurnRecord] | None = None
    path_prepend: list[Path] = field(default_factory=list)
    base_env: dict[str, str] | None = None
    environment: SandboxEnvironment | None = None
    """Where criterion commands run; without one they run on the host in `root`."""
    command_dirs: dict[str, str] = field(default_factory=dict)
    """TASK_DIR / REFERENCE_DIR as commands see them inside the sandbox (default: the host paths)."""
    judges: JudgeServices | None = None
    """Model routes, dialog and transcript directory for judge criteria (None outside a run)."""
    deadline: Deadline | None = None
    """The unit's deadline: file reads stop when it passes (commands are cut by the environment)."""
    cli_log: CliLog | None = None
    """The harness-owned log of record_cli calls (None: no recorder ran; `cli_called` reads the workspace)."""
    scrubber: ReferenceScrubber | None = None
    """Removes reference content from what criteria persist (built from `reference_dir` when unset)."""
    grading: GradingControl | None = None
    """Set by the engine for a unit's grading: processes ended and the reference shown per criterion."""
    commands_run: int = 0
    """Commands this context ran in the sandbox (the engine ends their leftovers after the criterion)."""
    files_before: frozenset[str] | None = None
    """Workspace-relative files present when the agent started (None: not listed; see `created_files`)."""

    def reference_scrubber(self) -> ReferenceScrubber:
        if self.scrubber is None:
            self.scrubber = ReferenceScrubber(self.reference_dir)
        return self.scrubber

    def resolve(self, pattern: str) -> Resolution:
        return resolve_paths(self.root, pattern, self.ignore)

    def _start_env(self) -> dict[str, str]:
        if self.base_env is not None:
            return dict(self.base_env)
        if self.environment is not None:
            return self.environment.base_env()
        return allowlisted_env()

    def _extras(self, start: dict[str, str]) -> dict[str, str]:
        """What criterion commands get on top of the sandbox's environment."""
        extra: dict[str, str] = {}
        if self.task_dir is not None:
            extra["TASK_DIR"] = str(self.task_dir)
        if self.reference_dir is not None:
            extra["REFERENCE_DIR"] = str(self.reference_dir)
        extra.update(self.command_dirs)
        if self.path_prepend:
            extra["PATH"] = os.pathsep.join([*map(str, self.path_prepend), start.get("PATH", "")])
        return extra

    def command_env(self) -> dict[str, str]:
        """Environment for criterion commands: TASK_DIR, REFERENCE_DIR and mock dirs on PATH."""
        start = self._start_env()
        return {**start, **self._extras(start)}

    def run(self, command: str, timeout: float) -> ExecResult:
        """Run a criterion's shell command in the sandbox (its leftovers are killed when it ends)."""
        self.commands_run += 1
        if self.environment is None:
            return run_shell(command, cwd=self.root, env=self.command_env(), timeout=timeout)
        start = self._start_env()
        extra = {**({} if self.base_env is None else start), **self._extras(start)}
        return self.environment.exec(Command(shell=command, env=extra), timeout=timeout)


class Criterion(ABC, Generic[SpecT]):
    """Base checker. Subclasses implement `evaluate`; `check` adds the shared bookkeeping."""

    criterion_type: ClassVar[str]

    def check(self, spec: SpecT, ctx: CheckContext) -> CriterionResult:
        """Run the check. Subclasses override `evaluate`, not this."""
        try:
            return self.evaluate(spec, ctx)
        except bounded.UnreadableFileError as exc:  # the agent's file or output, not the task, is at fault
            return self.result(spec, 0.0, details=str(exc))

    @abstractmethod
    def evaluate(self, spec: SpecT, ctx: CheckContext) -> CriterionResult:
        """Score `spec` against `ctx`. Raise CheckerMisuseError for task-configuration errors."""

    def result(
        self,
        spec: SpecT,
        score: float,
        *,
        details: str = "",
        error: str | None = None,
        cls: type[CriterionResult] = CriterionResult,
        **extra: Any,
    ) -> CriterionResult:
        return cls(
            criterion_type=spec.type,
            description=spec.description,
            score=max(0.0, min(1.0, score)),
            details=details,
            error=error,
            pass_threshold=self.pass_threshold(spec),
            weight=spec.weight,
            gating=spec.is_gating,
            **extra,
        )

    def pass_threshold(self, spec: SpecT) -> float:
        return spec.pass_threshold


def single_file(spec_path: str, ctx: CheckContext) -> tuple[Path | None, str]:
    """The one file a content check grades, or (None, why not).

    Content checks need exactly one match: an ambiguous glob scores 0 and lists the
    matches instead of silently grading one of them.
    """
    res = ctx.resolve(spec_path)
    if not res.matches:
        return None, f"{spec_path} does not exist" if not res.is_glob else f"no file matches {spec_path}"
    if len(res.matches) > 1:
        count = len(res.matches)
        return None, f"{spec_path} is ambiguous: it matches {count} files ({res.describe()}); narrow the pattern"
    path = res.matches[0]
    if path.is_dir():
        return None, f"{spec_path} is a directory, not a file"
    note = f"resolved: {res.rel(path)}" if res.is_glob else ""
    return path, note


def read_text(
    path: Path, root: Path | None = None, *, limit: int | None = None, ctx: CheckContext | None = None
) -> str:
    """A file's text, refusing (UnreadableFileError) what is not a regular file of at most `limit`
    bytes (default `bounded.MAX_READ_BYTES`); with `root` (the workspace) it is read without
    following links out of it (see safe_open); with `ctx` the read stops at the unit's deadline."""
    return bounded.read_text(path, root=root, limit=limit, deadline=None if ctx is None else ctx.deadline)


def join_details(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


@dataclass(frozen=True)
class SandboxView:
    """The `sandbox` a reference-style checker receives: where the workspace is, and its files."""

    ctx: CheckContext

    @property
    def sandbox_dir(self) -> Path:
        """The workspace (host path)."""
        return self.ctx.root

    working_directory = sandbox_dir

    def resolve_files(self, pattern: str) -> list[Path]:
        """Workspace files a path or glob names (paths outside the workspace raise CheckerMisuseError)."""
        return list(self.ctx.resolve(pattern).matches)


@dataclass(frozen=True)
class ContextView:
    """The `context` a reference-style checker receives."""

    ctx: CheckContext
    route: None = None
    """Model routes are not offered to plugin checkers (judges have their own plumbing)."""

    @property
    def reference_dir(self) -> Path | None:
        return self.ctx.reference_dir

    @property
    def task_dir(self) -> Path | None:
        return self.ctx.task_dir

    @property
    def turn_records(self) -> list[TurnRecord] | None:
        return self.ctx.turns


def _overrides(cls: type[Any], name: str) -> bool:
    return any(name in vars(klass) for klass in cls.__mro__ if klass is not BaseCriterion and klass is not object)


class BaseCriterion(Criterion[SpecT]):
    """A checker as the reference system's plugin guide writes one.

    Implement exactly one of `_check_impl` (sync) or `_check_impl_async`; both are called as
    `(criterion, sandbox, *, turn_records=..., context=...)`, and an older signature with a
    `reference_code=None` third parameter works too. `check` is final. The returned result gets
    the criterion's threshold, weight and gating, and its score is clamped to [0, 1].
    Register it with a bare `@register_criterion`; its spec is the generic parameter.
    """

    def __init_subclass__(cls, *, abstract: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "check" in vars(cls):
            raise TypeError(f"{cls.__qualname__} overrides check(), which is final; implement _check_impl instead")
        if abstract:
            return
        sync, async_ = _overrides(cls, "_check_impl"), _overrides(cls, "_check_impl_async")
        if sync == async_:
            what = "both" if sync else "neither"
            raise TypeError(
                f"{cls.__qualname__} implements {what} of _check_impl and _check_impl_async; implement exactly one "
                "(or pass abstract=True for a shared base)"
            )

    def _check_impl(self, criterion: SpecT, sandbox: Any, *args: Any, **kwargs: Any) -> CriterionResult:
        raise NotImplementedError  # replaced by the subclass (one of the two hooks)

    async def _check_impl_async(self, criterion: SpecT, sandbox: Any, *args: Any, **kwargs: Any) -> CriterionResult:
        raise NotImplementedError

    def evaluate(self, spec: SpecT, ctx: CheckContext) -> CriterionResult:
        keywords = {"turn_records": ctx.turns, "context": ContextView(ctx)}
        if _overrides(type(self), "_check_impl"):
            result: Any = self._check_impl(spec, SandboxView(ctx), **keywords)
        else:
            result = _run_coroutine(self._check_impl_async(spec, SandboxView(ctx), **keywords))
        return self._settled(spec, result)

    def _settled(self, spec: SpecT, result: Any) -> CriterionResult:
        if not isinstance(result, CriterionResult):
            raise TypeError(f"{type(self).__qualname__} returned {type(result).__name__}, not a CriterionResult")
        return result.model_copy(
            update={
                "score": max(0.0, min(1.0, result.score)),
                "pass_threshold": self.pass_threshold(spec),
                "weight": spec.weight,
                "gating": spec.is_gating,
                "criterion_type": result.criterion_type or spec.type,
                "description": result.description or spec.description,
            }
        )


def _run_coroutine(coroutine: Any) -> Any:
    """Run an async checker from the grading thread (which has no event loop of its own)."""
    if not inspect.iscoroutine(coroutine):
        return coroutine
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    coroutine.close()
    raise CheckerMisuseError("an async checker was called from inside a running event loop; call it from a thread")
