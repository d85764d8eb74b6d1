"""file_contains: fractional, required strings present and forbidden strings absent."""

from __future__ import annotations

from pathlib import Path

from coder_eval.criteria.base import CheckContext, Criterion, join_details, single_file
from coder_eval.criteria.bounded import found_substrings
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_files import FileContainsCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.sandbox.deadline import Deadline


def substring_scores(
    source: str | Path,
    includes: list[str],
    excludes: list[str],
    root: Path | None = None,
    *,
    limit: int | None = None,
    deadline: Deadline | None = None,
) -> tuple[list[float], list[str]]:
    """One score per active category (includes, excludes) and the strings that let it down.

    `source` is the text, or a file path that is streamed (constant memory, at most `limit` bytes,
    stopping at `deadline`); with `root` the file is reached without following links out of the
    workspace.
    """
    if isinstance(source, Path):
        hits = found_substrings(source, [*includes, *excludes], root, limit=limit, deadline=deadline)
    else:
        hits = {s for s in [*includes, *excludes] if s in source}
    scores: list[float] = []
    notes: list[str] = []
    if includes:
        missing = [s for s in includes if s not in hits]
        scores.append((len(includes) - len(missing)) / len(includes))
        if missing:
            notes.append("missing: " + ", ".join(repr(s) for s in missing))
    if excludes:
        present = [s for s in excludes if s in hits]
        scores.append((len(excludes) - len(present)) / len(excludes))
        if present:
            notes.append("forbidden present: " + ", ".join(repr(s) for s in present))
    return scores, notes


@register_criterion("file_contains", spec=FileContainsCriterion)
class FileContains(Criterion[FileContainsCriterion]):
    """Fractional: the mean of the includes-found share and the excludes-absent share."""

    def evaluate(self, spec: FileContainsCriterion, ctx: CheckContext) -> CriterionResult:
        path, note = single_file(spec.path, ctx)
        if path is None:
            return self.result(spec, 0.0, details=note)
        scores, notes = substring_scores(
            path, spec.includes, spec.excludes, root=ctx.root, limit=spec.max_bytes, deadline=ctx.deadline
        )
        score = sum(scores) / len(scores)
        return self.result(spec, score, details=join_details(note, *notes) or "all strings as expected")
