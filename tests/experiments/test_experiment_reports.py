"""experiment.md/.html and variant.md/.html: verdicts, intervals, chart, self-containment."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest

from coder_eval.experiments.build import build_experiment_result
from coder_eval.experiments.stats import wilson_interval
from coder_eval.models.results import EvaluationResult
from coder_eval.reports.experiment_html import render_experiment_html, render_variant_html
from coder_eval.reports.experiment_markdown import render_experiment_markdown, render_variant_markdown

Row = Callable[..., EvaluationResult]


def test_markdown_clear_winner(clear_win: list[EvaluationResult]) -> None:
    text = render_experiment_markdown(
        build_experiment_result("skill-ab", "Does the skill help?", ["A", "B"], clear_win)
    )
    assert "# Experiment skill-ab" in text
    assert "**B better than A on 6 of 6 tasks (N = 6 tasks × " in text and "mean +0.60, 95% CI [+0." in text
    assert "## Comparison: `B` vs `A`" in text
    assert "| Paired t-test p | < 0.001 |" in text
    assert "| Wilcoxon signed-rank p | 0.031 |" in text
    assert "| Tasks B better / A better / tied | 6 / 0 / 0 |" in text
    wilson = wilson_interval(18, 18)
    assert wilson is not None
    assert f"[{wilson.low * 100:.1f}%, 100.0%]" in text  # B passes all 18 graded rows
    assert re.search(
        r"\| task-0 \| 0\.280 \[0\.\d{3}, 0\.\d{3}\] \| 0\.880 \[0\.\d{3}, 0\.\d{3}\] \| `B` \| 0\.600 \| 3 \|", text
    )
    assert "```text" in text and "█" in text


def test_markdown_indistinguishable(indistinguishable: list[EvaluationResult]) -> None:
    text = render_experiment_markdown(build_experiment_result("same", "", ["A", "B"], indistinguishable))
    assert "**Inconclusive (B vs A): neither the paired test nor the interval" in text and "95% CI [−0." in text
    assert "replicates per arm would likely decide it" in text or "more replicates alone" in text, text


def test_markdown_reports_unmeasured_rows(clear_win: list[EvaluationResult], row: Row) -> None:
    rows = [*clear_win, row("task-0", "A", None, 3)]
    text = render_experiment_markdown(build_experiment_result("exp", "", ["A", "B"], rows))
    assert "(1 unmeasured row excluded)." in text
    assert "| Unmeasured replicates excluded | 1 |" in text


def test_markdown_without_two_arms_has_no_comparison(clear_win: list[EvaluationResult], row: Row) -> None:
    rows = [*clear_win, row("task-0", "C", 0.5)]
    text = render_experiment_markdown(build_experiment_result("exp", "", ["A", "B", "C"], rows))
    assert "## Comparison" not in text
    assert "| task-1 | 0.310 [" in text and "| n/a | `B` |" in text


def test_markdown_escapes_pipes(row: Row) -> None:
    text = render_experiment_markdown(build_experiment_result("exp", "a | b", ["A"], [row("t|1", "A", 0.5)]))
    assert "t\\|1" in text and "a \\| b" in text


def test_variant_markdown(clear_win: list[EvaluationResult]) -> None:
    result = build_experiment_result("exp", "", ["A", "B"], clear_win)
    text = render_variant_markdown(result.variant_aggregates["B"], clear_win)
    assert text.startswith("# Variant B")
    assert "- **Pass rate:** 100.0% · CI [" in text
    assert "| task-0 | 3 | + + + | 0.880 | [0." in text
    assert "task-5" in text


def _assert_self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"https?://", page), "the page must not reference network resources"
    assert "<link" not in page and "src=" not in page


def test_experiment_html(clear_win: list[EvaluationResult]) -> None:
    page = render_experiment_html(build_experiment_result("skill-ab", "<b>desc</b>", ["A", "B"], clear_win))
    _assert_self_contained(page)
    svg = ET.fromstring(page[page.index("<svg") : page.index("</svg>") + len("</svg>")])
    assert svg.tag == "svg" and len(svg.findall("rect")) >= 12  # well-formed, a bar per task and variant
    assert page.count('class="whisker"') >= 3 * 12  # each bar has a CI whisker and two caps
    assert "B better than A on 6 of 6 tasks (N = 6 tasks" in page and "mean +0.60, 95% CI [+0." in page
    assert "&lt;b&gt;desc&lt;/b&gt;" in page and "<b>desc</b>" not in page


def test_html_escapes_hostile_ids(row: Row) -> None:
    rows = [row("<script>x</script>", "A", 0.4), row("<script>x</script>", "B", 0.6)]
    page = render_experiment_html(build_experiment_result("exp", "", ["A", "B"], rows))
    assert "<script>" not in page
    assert "&lt;script&gt;" in page


@pytest.mark.parametrize("scores", [[0.5, 0.7], [None]])
def test_variant_html(row: Row, scores: list[float | None]) -> None:
    rows = [row("t1", "solo", s, i) for i, s in enumerate(scores)]
    result = build_experiment_result("exp", "", ["solo"], rows)
    page = render_variant_html(result.variant_aggregates["solo"], rows)
    _assert_self_contained(page)
    assert "<h1>Variant solo</h1>" in page and "<svg" in page
