"""file_exists: binary, at least one file matches the path."""

from __future__ import annotations

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_files import FileExistsCriterion
from coder_eval.models.results import CriterionResult


@register_criterion("file_exists", spec=FileExistsCriterion)
class FileExists(Criterion[FileExistsCriterion]):
    """Binary: does at least one file match `spec.path`?

    Unlike the content checks, a glob matching several files passes here: the
    question is existence, not which file to grade.
    """

    def evaluate(self, spec: FileExistsCriterion, ctx: CheckContext) -> CriterionResult:
        res = ctx.resolve(spec.path)
        if not res.matches:
            return self.result(spec, 0.0, details=f"{spec.path} does not exist")
        detail = f"resolved: {res.describe()}" if res.is_glob else f"{spec.path} exists"
        return self.result(spec, 1.0, details=detail)
