"""The single-file HTML pages for a run and for one task."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser

from coder_eval.models.results import CriterionResult, EarlyStopInfo
from coder_eval.models.status import FinalStatus
from coder_eval.records.summary import build_run_summary
from coder_eval.reports.html import render_run_html, render_task_html

PAYLOAD = '<script>alert("x")</script>'


class _TagCollector(HTMLParser):
    """Collects every start tag with its attributes, to inspect what the page would load."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _TagCollector()
    parser.feed(page)
    return parser.tags


def _details_block(page: str, marker: str) -> str:
    """The <details> element whose summary mentions `marker`."""
    blocks = re.findall(r"<details>.*?</details>", page, flags=re.S)
    return next(block for block in blocks if marker in block.split("</summary>")[0])


def test_run_page_is_one_self_contained_document(summary, results):
    page = render_run_html(summary, list(results.values()))
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    assert "http://" not in page and "https://" not in page
    for tag, attrs in _tags(page):
        assert "src" not in attrs, tag
        assert tag != "link"
        href = attrs.get("href")
        assert href is None or href.startswith("#")


def test_run_header_shows_counts_and_rates(summary, results):
    page = render_run_html(summary, list(results.values()))
    assert "<h1>Coder Eval run 2026-11-30_10-00-00</h1>" in page
    for chip in ("6 run", "2 succeeded", "2 failed", "1 errors", "1 not graded"):
        assert f"<span>{chip}</span>" in page
    assert "Pass rate <strong>40.0%</strong>" in page
    assert "error share 20.0%" in page
    assert "total ≥ $0.09" in page and "Cost is incomplete for 1 task(s)" in page


def test_empty_run_shows_pass_rate_as_not_available():
    page = render_run_html(build_run_summary("empty", []), [])
    assert "Pass rate <strong>n/a</strong>" in page
    assert "No tasks were run." in page


def test_status_badges_are_coloured_by_category(summary, results):
    page = render_run_html(summary, list(results.values()))
    assert '<span class="badge cat-succeeded" title="succeeded">+ SUCCESS</span>' in page
    assert '<span class="badge cat-failed" title="failed">T TIMEOUT</span>' in page
    assert '<span class="badge cat-error" title="error">! ERROR</span>' in page
    assert '<span class="badge cat-ungraded" title="not graded">? NOT_GRADED</span>' in page


def test_task_table_is_sortable_and_none_score_reads_na(summary, results):
    page = render_run_html(summary, list(results.values()))
    assert '<table class="sortable">' in page
    assert page.count("<tr><td data-v=") == 6
    assert '<td class="num" data-v="-1.0">n/a</td>' in page


def test_informational_criterion_is_tagged_and_excluded_from_tally(summary, results):
    page = render_run_html(summary, list(results.values()))
    block = _details_block(page, "write-report")
    # Gating criteria: file_exists (fail), llm_judge (not evaluated), run_command (pass).
    assert "1/3 passed" in block
    assert '<tr class="outcome-info"><td>○ informational — not gated</td><td>commands_efficiency</td>' in block
    assert '<tr class="outcome-fail"><td>✗ fail</td><td>file_exists</td>' in block
    assert '<tr class="outcome-skipped"><td>– not evaluated</td><td>llm_judge</td>' in block


def test_every_result_is_expandable_with_replicate_suffix(summary, results):
    page = render_run_html(summary, list(results.values()))
    assert page.count("<details>") == len(results)
    assert "<strong>hello-world [rep 1]</strong>" in page
    assert "Sandbox crashed while starting the agent" in _details_block(page, "crashy")


def test_stopped_early_badge(result_factory):
    stop = EarlyStopInfo(reason="criterion_failed", deciding_criterion_type="skill_triggered")
    result = result_factory("early", FinalStatus.FAILURE, weighted_score=0.0, early_stop=stop)
    page = render_run_html(build_run_summary("r", [result]), [result])
    assert page.count('<span class="badge early" title="criterion_failed">stopped early</span>') == 2
    task_page = render_task_html(result)
    assert "stopped early" in task_page and "criterion_failed (skill_triggered)" in task_page


def test_agent_strings_are_escaped_everywhere(result_factory):
    criterion = CriterionResult(criterion_type="file_contains", description=PAYLOAD, score=0.0, details=PAYLOAD)
    result = result_factory("evil<b>", FinalStatus.FAILURE, weighted_score=0.0, success_criteria_results=[criterion])
    for page in (render_run_html(build_run_summary("r", [result]), [result]), render_task_html(result)):
        assert PAYLOAD not in page
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
        assert "evil&lt;b&gt;" in page and "evil<b>" not in page
        assert [tag for tag, _ in _tags(page)].count("script") == 1


def test_skipped_tasks_are_listed(summary, results):
    page = render_run_html(summary, list(results.values()))
    assert "<li>tasks/broken.yaml: invalid YAML on line 3</li>" in page


def test_task_page_lists_turns_and_tool_calls(results):
    page = render_task_html(results["success"])
    assert "<h1>Task hello-world</h1>" in page
    assert "http://" not in page and "https://" not in page
    assert "1/1 passed" in page
    assert "<h2>Turns</h2>" in page
    assert "Turn 1: 2 tool call(s)" in page
    assert "<td>Bash</td><td>success</td>" in page and "<td>Write</td>" in page
    assert "{&quot;command&quot;: &quot;run Bash&quot;}" in page
    assert '<td class="num">1.2k</td><td>no</td>' in page


def test_task_page_without_turns_says_so(results):
    page = render_task_html(results["ungraded"])
    assert "No turns were recorded." in page
    assert "score n/a" in page
    assert "0/0 passed" in page


def test_task_page_lists_the_network_policy_and_each_egress_attempt(result_factory):
    from coder_eval.models.network import NetworkEvent, NetworkRecord

    when = datetime(2026, 11, 30, 10, 0, 1, tzinfo=UTC)
    events = [
        NetworkEvent(
            host="pypi.example",
            port=443,
            allowed=True,
            reason="pip index (PIP_INDEX_URL)",
            method="CONNECT",
            phase="pre_run",
            started_at=when,
            duration_ms=12.0,
            bytes_out=900,
            bytes_in=5000,
        ),
        NetworkEvent(
            host=PAYLOAD, port=443, allowed=False, reason="not in allow_hosts", phase="agent", started_at=when
        ),
    ]
    record = NetworkRecord(mode="allowlist", allow_hosts=["pypi.example:443"], events=events)
    result = result_factory("net", FinalStatus.FAILURE, weighted_score=0.0, network=record)
    page = render_task_html(result)
    table = page.split("<h3>Network</h3>", 1)[1].split("</table>", 1)[0]
    assert "network allowlist; allowed: pypi.example:443" in table
    assert "pypi.example:443" in table and "allowed" in table and "5000" in table and "pre_run" in table
    assert "denied" in table and "not in allow_hosts" in table and PAYLOAD not in page
    empty = render_task_html(result_factory("quiet", FinalStatus.SUCCESS, network=NetworkRecord(mode="none")))
    assert "network none; no egress attempts" in empty
