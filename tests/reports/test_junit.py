"""The JUnit XML report CI systems ingest."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.run import RunSummary
from coder_eval.models.status import FinalStatus
from coder_eval.records.summary import build_run_summary
from coder_eval.reports.junit import render_junit


def _full(summary: RunSummary, results: dict[str, EvaluationResult]) -> dict[int, EvaluationResult]:
    """Map each row index to its result, the way a caller that loaded every task.json would."""
    by_key = {(r.variant_id, r.task_id, r.replicate_index): r for r in results.values()}
    return {
        i: by_key[(row["variant_id"], row["task_id"], row["replicate_index"])]
        for i, row in enumerate(summary.task_results)
    }


def _parse(xml: str) -> ET.Element:
    return ET.fromstring(xml.encode("utf-8"))


def _case(root: ET.Element, name: str) -> ET.Element:
    matches = [case for case in root.iter("testcase") if case.get("name") == name]
    assert len(matches) == 1, name
    return matches[0]


@pytest.fixture
def report(summary: RunSummary, results: dict[str, EvaluationResult]) -> ET.Element:
    return _parse(render_junit(summary, _full(summary, results)))


def test_document_starts_with_declaration_and_parses(summary, results):
    xml = render_junit(summary, _full(summary, results))
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites')
    assert _parse(xml).tag == "testsuites"


def test_one_testsuite_per_variant_with_counts(report):
    suites = {suite.get("name"): suite for suite in report.findall("testsuite")}
    assert list(suites) == ["default", "treatment", "skipped-tasks"]
    default = suites["default"]
    assert (default.get("tests"), default.get("failures"), default.get("errors"), default.get("skipped")) == (
        "5",
        "1",
        "1",
        "1",
    )
    assert default.get("time") == "62.500"
    treatment = suites["treatment"]
    assert (treatment.get("tests"), treatment.get("failures"), treatment.get("errors")) == ("1", "1", "0")
    assert treatment.get("time") == "184.000"
    assert (report.get("tests"), report.get("failures"), report.get("errors"), report.get("skipped")) == (
        "7",
        "2",
        "1",
        "2",
    )
    (skipped,) = suites["skipped-tasks"].findall("testcase")
    assert skipped.get("name") == "tasks/broken.yaml"
    assert skipped.find("skipped").get("message") == "invalid YAML on line 3"  # type: ignore[union-attr]


def test_classname_and_name_rules(report):
    assert _case(report, "hello-world").get("classname") == "coder_eval.default"
    replicate = _case(report, "hello-world [rep 1]")
    assert replicate.get("classname") == "coder_eval.treatment"
    assert replicate.get("time") == "184.000"
    assert _case(report, "qa-suite.row-3").get("classname") == "coder_eval.default.qa-suite"


def test_status_mapping(report):
    assert list(_case(report, "hello-world")) == []
    assert list(_case(report, "qa-suite.row-3")) == []
    failure = _case(report, "write-report").find("failure")
    assert failure is not None and failure.get("message") == "FAILURE" and failure.get("type") == "FAILURE"
    timeout = _case(report, "hello-world [rep 1]").find("failure")
    assert timeout is not None and timeout.get("type") == "TIMEOUT"
    error = _case(report, "crashy").find("error")
    assert error is not None
    assert error.get("message") == "Sandbox crashed while starting the agent"
    assert error.get("type") == "ERROR"
    assert "Traceback: boom" in (error.text or "")
    skipped = _case(report, "execute-only").find("skipped")
    assert skipped is not None and skipped.get("message") == "not graded"


def test_failure_body_lists_only_failed_gating_criteria(report):
    failure = _case(report, "write-report").find("failure")
    assert failure is not None
    body = failure.text or ""
    assert "- file_exists: report.txt is written (score 0.000 < threshold 0.900)" in body
    assert "details: no file matched report.txt" in body
    assert "commands_efficiency" not in body
    assert "llm_judge" not in body
    assert "run_command" not in body


def test_failure_falls_back_to_the_row_without_task_json(summary):
    root = _parse(render_junit(summary, {}))
    timeout = _case(root, "hello-world [rep 1]").find("failure")
    assert timeout is not None
    assert "score: 0.500" in (timeout.text or "")
    assert "error: task timed out after 180s" in (timeout.text or "")
    error = _case(root, "crashy").find("error")
    assert error is not None and error.text == "Sandbox crashed while starting the agent"


def test_failure_body_is_capped(result_factory):
    criteria = [
        CriterionResult(criterion_type="file_check", description=f"check {n}", score=0.0, details="y" * 900)
        for n in range(10)
    ]
    result = result_factory("big", FinalStatus.FAILURE, weighted_score=0.0, success_criteria_results=criteria)
    failure = _parse(render_junit(build_run_summary("r", [result]), {0: result})).find(".//failure")
    assert failure is not None
    assert len(failure.text or "") <= 4000


def test_suite_gates_become_their_own_testsuite(summary):
    gates = [("qa-suite", False, "accuracy 0.70 < 0.80"), ("other", True, "all thresholds met")]
    root = _parse(render_junit(summary, {}, suite_gates=gates))
    suite = root.find("testsuite[@name='suite-gates']")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    failed = suite.find("testcase[@name='qa-suite']/failure")
    assert failed is not None and failed.text == "accuracy 0.70 < 0.80"
    assert suite.find("testcase[@name='other']/failure") is None
    assert root.get("tests") == "9" and root.get("failures") == "3"  # 6 rows, 2 gates, 1 skipped file


def test_illegal_xml_characters_are_removed(result_factory):
    result = result_factory(
        "ctl\x01task",
        FinalStatus.ERROR,
        weighted_score=0.0,
        error_message="bad \x00byte\x1b[31m and <tag> & \ufffe",
    )
    xml = render_junit(build_run_summary("r", [result]), {0: result})
    root = _parse(xml)
    case = _case(root, "ctltask")
    error = case.find("error")
    assert error is not None
    assert error.text == "bad byte and <tag> & "  # the whole ANSI sequence goes, not just its ESC
    assert "\x00" not in xml and "\x1b" not in xml


def test_unknown_status_in_a_row_reports_as_an_error(summary):
    row = next(row for row in summary.task_results if row["task_id"] == "write-report")
    row["status"] = "FROM_THE_FUTURE"
    error = _case(_parse(render_junit(summary, {})), "write-report").find("error")
    assert error is not None and error.get("type") == "ERROR"


@pytest.mark.parametrize("gates", [None, [("default/s", False, "accuracy 0.5 < 0.9\nline two"), ("a/b", True, "")]])
def test_document_is_exactly_what_elementtree_gives_for_the_whole_tree(summary, results, gates):
    """The document is written one case at a time; it must read as ElementTree's indented whole tree."""
    xml = render_junit(summary, _full(summary, results), suite_gates=gates)
    root = _parse(xml)
    for element in root.iter():  # drop the indentation, then let ElementTree indent it again
        if element.text is not None and not element.text.strip():
            element.text = None
        element.tail = None
    ET.indent(root)
    assert xml == '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def test_an_empty_run_is_one_empty_element():
    xml = render_junit(build_run_summary("r", []), {})
    assert xml.endswith('<testsuites name="coder-eval" tests="0" failures="0" errors="0" skipped="0" time="0.000" />\n')
