"""file_check: existence plus includes, excludes and regex sub-checks."""

from __future__ import annotations

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.file_contains import substring_scores
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_files import FileCheckCriterion, RegexCheck
from coder_eval.models.results import CriterionResult


def regex_score(text: str, patterns: list[RegexCheck]) -> tuple[float, list[str]]:
    misses = []
    for p in patterns:
        found = bounded.search(p.pattern, text, p.flags)
        if found != p.must_match:
            misses.append(("unexpected match: " if found else "no match: ") + repr(p.pattern))
    return (len(patterns) - len(misses)) / len(patterns), misses


@register_criterion("file_check", spec=FileCheckCriterion)
class FileCheck(Criterion[FileCheckCriterion]):
    """Fractional: the mean over the active sub-check categories; a missing file is 0.

    Only non-empty categories count, so a check with just `includes` scores the
    includes share alone. With no sub-checks it is a pure existence check.
    """

    def evaluate(self, spec: FileCheckCriterion, ctx: CheckContext) -> CriterionResult:
        path, note = single_file(spec.path, ctx)
        if path is None:
            return self.result(spec, 0.0, details=note)
        if not (spec.includes or spec.excludes or spec.patterns):
            return self.result(spec, 1.0, details=join_details(note, "file exists"))
        scores, notes = substring_scores(
            path, spec.includes, spec.excludes, root=ctx.root, limit=spec.max_bytes, deadline=ctx.deadline
        )
        if spec.patterns:
            score, misses = regex_score(read_text(path, ctx.root, limit=spec.max_bytes, ctx=ctx), spec.patterns)
            scores.append(score)
            notes.extend(misses)
        return self.result(spec, sum(scores) / len(scores), details=join_details(note, *notes) or "all checks pass")
