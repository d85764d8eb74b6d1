"""file_matches_regex: binary regex search over a file."""

from __future__ import annotations

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_files import FileMatchesRegexCriterion
from coder_eval.models.results import CriterionResult


@register_criterion("file_matches_regex", spec=FileMatchesRegexCriterion)
class FileMatchesRegex(Criterion[FileMatchesRegexCriterion]):
    """Binary: the pattern is found in the file (or, with must_match false, is not).

    A missing file scores 0 either way: "must not match" asserts something about a
    file that exists, not that there is no file.
    """

    def evaluate(self, spec: FileMatchesRegexCriterion, ctx: CheckContext) -> CriterionResult:
        path, note = single_file(spec.path, ctx)
        if path is None:
            return self.result(spec, 0.0, details=note)
        found = bounded.search(spec.pattern, read_text(path, ctx.root, limit=spec.max_bytes, ctx=ctx), spec.flags)
        ok = found == spec.must_match
        verdict = "pattern found" if found else "pattern not found"
        expectation = "required" if spec.must_match else "forbidden"
        return self.result(spec, 1.0 if ok else 0.0, details=join_details(note, f"{verdict} ({expectation})"))
