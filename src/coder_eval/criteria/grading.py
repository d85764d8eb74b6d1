"""Grade every criterion of a task against one sandbox."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.common.safe_open import PlantedLinkError
from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.registry import checker_for
from coder_eval.criteria.scoring import all_gating_passed, anything_graded, weighted_score
from coder_eval.errors import CheckerMisuseError, CriterionUnavailableError
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.models.status import FinalStatus


@dataclass
class Grade:
    """The outcome of grading: results, score, status and any configuration errors."""

    results: list[CriterionResult]
    config_errors: list[str] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    """Criteria that could not run here (missing credential or extra); the run ends ERROR."""
    gate: bool | None = None
    """Set when another rule decides the verdict (the armed gate of an early-stopped run)."""
    unevaluated_gating: list[str] = field(default_factory=list)
    """Other gating criteria that were not evaluated (no checker in this install, say)."""

    @property
    def problems(self) -> list[str]:
        """Why the grade is ERROR: configuration errors, unavailable criteria, ungraded gates."""
        return [*self.config_errors, *self.unavailable, *self.unevaluated_gating]

    @property
    def weighted_score(self) -> float | None:
        return weighted_score(self.results)

    @property
    def status(self) -> FinalStatus:
        if self.problems:
            return FinalStatus.ERROR  # a verdict that skipped a gate is no verdict
        if not anything_graded(self.results):
            return FinalStatus.NOT_GRADED
        if self.gate is not None:
            return FinalStatus.SUCCESS if self.gate else FinalStatus.FAILURE
        return FinalStatus.SUCCESS if all_gating_passed(self.results) else FinalStatus.FAILURE


def _not_evaluated(spec: BaseCriterion, why: str) -> CriterionResult:
    return CriterionResult(
        criterion_type=spec.type,
        description=spec.description,
        score=0.0,
        details=why,
        evaluation_status="not_evaluated",
        pass_threshold=spec.pass_threshold,
        weight=spec.weight,
        gating=spec.is_gating,
    )


DISABLED_DETAILS = "disabled (enabled: false): not judged, no model call; counts as 1.0"


def _disabled(spec: BaseCriterion) -> CriterionResult:
    """A switched-off judge: full marks without a call, and details that say so in every report."""
    return CriterionResult(
        criterion_type=spec.type,
        description=spec.description,
        score=1.0,
        details=DISABLED_DETAILS,
        pass_threshold=spec.pass_threshold,
        weight=spec.weight,
        gating=spec.is_gating,
    )


def grade_one(spec: BaseCriterion, ctx: CheckContext) -> tuple[CriterionResult, str | None]:
    """One result, plus a configuration error message when the task itself is at fault."""
    result, config_error, _ = _grade_one(spec, ctx)
    return result, config_error


def _grade_one(spec: BaseCriterion, ctx: CheckContext) -> tuple[CriterionResult, str | None, str | None]:
    """(result, configuration error, why the criterion could not run here)."""
    if spec.is_disabled:
        return _disabled(spec), None, None
    if spec.requires_agent and ctx.turns is None:
        return _not_evaluated(spec, f"{spec.type} reads the agent's trajectory; no agent ran here"), None, None
    checker = checker_for(spec.type)
    if checker is None:
        return _not_evaluated(spec, f"this version of Coder Eval cannot grade {spec.type} criteria"), None, None
    try:
        return checker.check(spec, ctx), None, None
    except PlantedLinkError as exc:  # the agent's doing: the criterion fails, the task is not at fault
        result = _not_evaluated(spec, f"refused to follow a link out of the workspace: {exc}")
        result.evaluation_status = "evaluated"
        return result, None, None
    except CriterionUnavailableError as exc:
        result = _not_evaluated(spec, str(exc))
        result.error = f"{spec.type} ({spec.description}) could not run: {exc}"
        return result, None, result.error
    except CheckerMisuseError as exc:
        message = f"task configuration error in {spec.type} ({spec.description}): {exc}"
        result = _not_evaluated(spec, str(exc))
        result.error = message
        return result, message, None
    except Exception as exc:  # a checker bug must not lose the other results
        result = _not_evaluated(spec, "the checker crashed")
        result.evaluation_status = "evaluated"
        result.error = f"{exc.__class__.__name__}: {exc}"
        return result, None, None


def view_for(spec: BaseCriterion, ctx: CheckContext) -> CheckContext:
    """What one criterion is shown: the reference only when it sees it (`sees_reference`)."""
    if ctx.reference_dir is not None and ctx.scrubber is None:
        ctx.scrubber = ReferenceScrubber(ctx.reference_dir)
    dirs = {k: v for k, v in ctx.command_dirs.items() if k != "REFERENCE_DIR"}
    if spec.sees_reference:
        if "REFERENCE_DIR" in ctx.command_dirs:
            dirs["REFERENCE_DIR"] = ctx.command_dirs["REFERENCE_DIR"]
        return replace(ctx, command_dirs=dirs, commands_run=0)
    return replace(ctx, reference_dir=None, command_dirs=dirs, commands_run=0)


def _graded(spec: BaseCriterion, ctx: CheckContext) -> tuple[CriterionResult, str | None, str | None]:
    """One criterion in its own view, between the engine's hands when it grades a unit; scrubbed."""
    view = view_for(spec, ctx)
    notes: list[str] = []
    if ctx.grading is not None:
        view.command_dirs.update(ctx.grading.before(spec))
    try:
        result, config_error, unavailable = _grade_one(spec, view)
    finally:
        if ctx.grading is not None:
            notes = ctx.grading.after(spec, view.commands_run > 0)
    if notes:
        result.details = "; ".join(p for p in (result.details, *notes) if p)
    scrub = ctx.scrubber
    if scrub:
        near = spec.sees_reference
        result = scrub_result(result, scrub, near=near)
        config_error = scrub(config_error, near=near) if config_error else config_error
        unavailable = scrub(unavailable, near=near) if unavailable else unavailable
    return result, config_error, unavailable


_KEPT_AS_WRITTEN = frozenset({"criterion_type", "description", "evaluation_status", "result_kind", "transcript_path"})


def scrub_result(result: CriterionResult, scrub: ReferenceScrubber, *, near: bool = False) -> CriterionResult:
    """`result` with reference content removed from every text it holds (the task's own labels kept)."""
    update: dict[str, object] = {}
    for name, value in result:
        if name in _KEPT_AS_WRITTEN:
            continue
        if isinstance(value, str):
            update[name] = scrub(value, near=near)
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            update[name] = [scrub(v, near=near) for v in value]
    changed = {k: v for k, v in update.items() if v != getattr(result, k)}
    return result.model_copy(update=changed) if changed else result


def grade(criteria: Sequence[BaseCriterion], ctx: CheckContext) -> Grade:
    out = Grade(results=[])
    for spec in criteria:
        result, config_error, unavailable = _graded(spec, ctx)
        out.results.append(result)
        if config_error:
            out.config_errors.append(config_error)
        elif unavailable:
            out.unavailable.append(unavailable)
        elif result.gating and result.evaluation_status == "not_evaluated" and not _agentless(spec, ctx):
            out.unevaluated_gating.append(
                f"gating criterion {spec.type} ({spec.description}) was not evaluated: {result.details}"
            )
    return out


def _agentless(spec: BaseCriterion, ctx: CheckContext) -> bool:
    """Grading a tree with no trajectory (`evaluate DIR`): trajectory criteria are skipped, not errors."""
    return spec.requires_agent and ctx.turns is None
