"""output_matches: a regex over the agent's reply, its transcript, the files it created, or one file."""

from __future__ import annotations

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.created_files import created_files
from coder_eval.criteria.registry import register_criterion
from coder_eval.criteria.transcript_text import last_reply, transcript_text
from coder_eval.models.criteria_trajectory import OutputMatchesCriterion
from coder_eval.models.results import CriterionResult

_WHAT = {
    "reply": "the agent's last reply",
    "transcript": "the transcript",
    "created_files": "the list of files the agent created",
}


@register_criterion("output_matches", spec=OutputMatchesCriterion)
class OutputMatches(Criterion[OutputMatchesCriterion]):
    """Binary: `contains` (found), `absent` (never found) or `count` (found exactly `count` times).

    With source `file` the file must exist whatever the mode: `absent` asserts something about a
    file that is there, not that there is no file.
    """

    def evaluate(self, spec: OutputMatchesCriterion, ctx: CheckContext) -> CriterionResult:
        note = ""
        if spec.source == "file":
            assert spec.path is not None
            path, note = single_file(spec.path, ctx)
            if path is None:
                return self.result(spec, 0.0, details=note)
            text, what = read_text(path, ctx.root, limit=spec.max_bytes, ctx=ctx), f"file {spec.path}"
        elif spec.source == "created_files":
            text, what = "\n".join(created_files(ctx.root, ctx.files_before)), _WHAT[spec.source]
        elif spec.source == "transcript":
            text, what = transcript_text(ctx.turns or []), _WHAT[spec.source]
        else:
            text, what = last_reply(ctx.turns or []), _WHAT[spec.source]
        if spec.match == "count":
            found = bounded.count_matches(spec.pattern, text, spec.flags)
            ok, verdict = found == spec.count, f"{found} match(es) in {what} (expected {spec.count})"
        else:
            hit = bounded.search(spec.pattern, text, spec.flags)
            ok = hit == (spec.match == "contains")
            verdict = f"pattern {'found' if hit else 'not found'} in {what} ({spec.match} expected)"
        return self.result(spec, 1.0 if ok else 0.0, details=join_details(note, verdict))
