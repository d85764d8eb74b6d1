"""classification_match: normalisation, sentinels, case sensitivity."""

from __future__ import annotations

import pytest
from helpers import check

from coder_eval.models.results import ClassificationCriterionResult

LABELS = ["positive", "negative"]


@pytest.mark.parametrize(
    ("files", "expected", "case_sensitive", "observed", "score"),
    [
        ({"r.txt": "positive\n"}, "positive", False, "positive", 1.0),
        ({"r.txt": "  POSITIVE  "}, "positive", False, "positive", 1.0),
        ({"r.txt": "POSITIVE"}, "positive", True, "(other)", 0.0),
        ({"r.txt": "negative"}, "positive", False, "negative", 0.0),
        ({"r.txt": "neutral"}, "positive", False, "(other)", 0.0),
        ({"r.txt": "   \n"}, "positive", False, "(none)", 0.0),
        ({}, "positive", False, "(none)", 0.0),
        ({"r.txt": "Negative"}, "NEGATIVE", False, "negative", 1.0),
    ],
)
def test_labels(sandbox, files, expected, case_sensitive, observed, score):
    result = check(
        sandbox(files),
        type="classification_match",
        path="r.txt",
        expected_label=expected,
        allowed_labels=LABELS,
        case_sensitive=case_sensitive,
    )
    assert isinstance(result, ClassificationCriterionResult)
    assert result.observed_label == observed
    assert result.score == score
