"""file_created: whether the agent created a file matching a glob (a file there before never counts)."""

from __future__ import annotations

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.created_files import created_files, glob_regex
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_trajectory import FileCreatedCriterion
from coder_eval.models.results import CriterionResult

_SHOWN = 5


@register_criterion("file_created", spec=FileCreatedCriterion)
class FileCreated(Criterion[FileCreatedCriterion]):
    """Binary: with `exists` (the default) some created file matches; without it, none does."""

    def evaluate(self, spec: FileCreatedCriterion, ctx: CheckContext) -> CriterionResult:
        created = created_files(ctx.root, ctx.files_before)
        wanted = glob_regex(spec.path)
        hits = [p for p in created if wanted.match(p)]
        ok = bool(hits) == spec.exists
        if hits:
            shown = ", ".join(hits[:_SHOWN]) + (f" (+{len(hits) - _SHOWN} more)" if len(hits) > _SHOWN else "")
            seen = f"created {shown}"
        else:
            seen = f"no created file matches {spec.path} ({len(created)} created)"
        expected = "expected" if spec.exists else "forbidden"
        return self.result(spec, 1.0 if ok else 0.0, details=f"{seen}; a match is {expected}")
