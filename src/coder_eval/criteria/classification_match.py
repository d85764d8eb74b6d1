"""classification_match: the label written to a file against the expected label."""

from __future__ import annotations

from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_files import ClassificationMatchCriterion
from coder_eval.models.results import ClassificationCriterionResult, CriterionResult

NO_LABEL = "(none)"
OTHER_LABEL = "(other)"


def canonical_label(raw: str, allowed: list[str], *, case_sensitive: bool) -> str:
    """The allowed label `raw` denotes, or the (none)/(other) sentinels."""
    text = raw.strip()
    if not text:
        return NO_LABEL
    for label in allowed:
        if (label.strip() == text) if case_sensitive else (label.strip().lower() == text.lower()):
            return label.strip()
    return OTHER_LABEL


@register_criterion("classification_match", spec=ClassificationMatchCriterion)
class ClassificationMatch(Criterion[ClassificationMatchCriterion]):
    """Binary: the predicted label (file content, normalised) equals the expected label.

    Missing or empty files observe `(none)`, labels outside the allowed set `(other)`,
    so suite confusion matrices show both as real failure classes.
    """

    def evaluate(self, spec: ClassificationMatchCriterion, ctx: CheckContext) -> CriterionResult:
        path, note = single_file(spec.path, ctx)
        observed = (
            NO_LABEL
            if path is None
            else canonical_label(
                read_text(path, ctx.root, ctx=ctx), spec.allowed_labels, case_sensitive=spec.case_sensitive
            )
        )
        expected = canonical_label(spec.expected_label, spec.allowed_labels, case_sensitive=spec.case_sensitive)
        if expected in (NO_LABEL, OTHER_LABEL):
            expected = spec.expected_label.strip()
        ok = observed == expected
        detail = join_details(note, f"observed {observed!r}, expected {expected!r}")
        return self.result(
            spec,
            1.0 if ok else 0.0,
            details=detail,
            cls=ClassificationCriterionResult,
            observed_label=observed,
            expected_label=expected,
        )
