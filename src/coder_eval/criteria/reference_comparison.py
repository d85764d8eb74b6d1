"""reference_comparison: continuous, how similar the agent's file is to one reference-solution file.

The score comes from `coder_eval.similarity` (ast, token or complexity) and passes at
`similarity_threshold`. Details carry file names and numbers only: the reference's text
must never reach a run record.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CheckerMisuseError
from coder_eval.models.criteria_judges import ReferenceComparisonCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.similarity import similarity


def reference_path(spec: ReferenceComparisonCriterion, ctx: CheckContext) -> Path:
    """The reference file to compare against; raises CheckerMisuseError when the task cannot supply it."""
    name = spec.reference_file
    if ctx.reference_dir is None:
        raise CheckerMisuseError(
            f"reference_file {name!r} needs a reference solution, but the task has none; "
            "add a `reference: {directory: ...}` block holding that file"
        )
    current = ctx.reference_dir
    for part in Path(name).parts:
        current = current / part
        if current.is_symlink():
            raise CheckerMisuseError(
                f"reference_file {name!r} goes through a symlink, and symlinks are dropped when the "
                "reference is staged; put a real file in the reference directory"
            )
    if not current.is_file():
        what = "is a directory" if current.is_dir() else "does not exist"
        raise CheckerMisuseError(
            f"reference_file {name!r} {what} in the reference directory; "
            "name a file that the reference directory contains"
        )
    return current


@register_criterion("reference_comparison", spec=ReferenceComparisonCriterion)
class ReferenceComparison(Criterion[ReferenceComparisonCriterion]):
    """Continuous: similarity of the agent's file to a reference file, passing at similarity_threshold."""

    def pass_threshold(self, spec: ReferenceComparisonCriterion) -> float:
        return spec.similarity_threshold

    def evaluate(self, spec: ReferenceComparisonCriterion, ctx: CheckContext) -> CriterionResult:
        reference = reference_path(spec, ctx)
        agent, note = single_file(spec.agent_file, ctx)
        if agent is None:
            return self.result(spec, 0.0, details=note)
        report = similarity(
            read_text(agent, ctx.root, ctx=ctx),
            read_text(reference, ctx=ctx),
            spec.comparison_method,
            filename=spec.reference_file,
        )
        summary = (
            f"{spec.comparison_method} similarity {report.score:.3f} against reference "
            f"{spec.reference_file} (threshold {spec.similarity_threshold})"
        )
        return self.result(spec, report.score, details=join_details(note, summary, report.details))
