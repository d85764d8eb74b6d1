"""JUnit XML for CI test-report ingestion: one testcase per task replicate, grouped by variant.

The run.json rows are the spine; a row's task.json, when the caller could load it, only adds
detail to a failure body. Status mapping goes through `FinalStatus.category` so it agrees with
every other report: failed → <failure>, error → <error>, not graded → <skipped>.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from coder_eval.common.spool import TextSpool
from coder_eval.common.untrusted_text import clean_text
from coder_eval.models.results import CriterionResult, EvaluationResult, criterion_title, score_against_threshold
from coder_eval.models.run import RunSummary
from coder_eval.reports.format import (
    format_score,
    replicate_suffix,
    row_status,
    truncate,
)

BODY_LIMIT = 4000
MESSAGE_LIMIT = 200
SUITE_GATES = "suite-gates"
SKIPPED_TASKS = "skipped-tasks"

# Everything XML 1.0 forbids: C0 controls other than tab/LF/CR, lone surrogates, U+FFFE/U+FFFF.
_ILLEGAL_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

SuiteGate = tuple[str, bool, str]


def xml_safe(text: str) -> str:
    """Drop escape sequences (CI tools print these messages on terminals) and the characters XML
    1.0 cannot carry, which would make the whole report unparsable."""
    return _ILLEGAL_XML.sub("", clean_text(text))


def render_junit(
    summary: RunSummary,
    results: dict[int, EvaluationResult],
    *,
    suite_gates: list[SuiteGate] | None = None,
) -> str:
    """The run as a JUnit document. `results` maps a row index in `summary.task_results` to its task."""
    by_variant: dict[str, list[int]] = {}
    for index, row in enumerate(summary.task_results):
        by_variant.setdefault(str(row.get("variant_id", "default")), []).append(index)
    cases = ((summary.task_results[i], results.get(i)) for indices in by_variant.values() for i in indices)
    return "".join(junit_chunks(summary, cases, suite_gates=suite_gates))


_XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
_TOTALS = ("tests", "failures", "errors", "skipped")


def junit_chunks(
    summary: RunSummary,
    cases: Iterable[tuple[Mapping[str, Any], EvaluationResult | None]],
    *,
    suite_gates: list[SuiteGate] | None = None,
) -> Iterator[str]:
    """The JUnit document in pieces, one test case at a time, from (row, its task or None) pairs.

    A variant's rows must come together (run.json's row order has them so). The counts of a
    suite and of the document precede their cases, so the cases wait in spools until they are
    known; the pieces joined are what `ElementTree` gives for the whole tree, indented.
    """
    with TextSpool() as suites, TextSpool() as pending:
        document = _Document(suites, pending)
        note = summary.progress_note()
        if note:  # CI readers see a partial run as an error, not as a short green report
            case = ET.Element("testcase", {"classname": "coder_eval.run", "name": "run-completed", "time": "0"})
            ET.SubElement(case, "error", {"message": xml_safe(note), "type": "interrupted"}).text = xml_safe(note)
            document.add("run", case)
            document.close_suite()
        for row, result in cases:
            holder = ET.Element("testsuite")
            _add_task_case(holder, row, result)
            document.add(str(row.get("variant_id", "default")), holder[0])
        document.close_suite()
        for suite_id, passed, detail in sorted(suite_gates or []):
            holder = ET.Element("testsuite")
            _add_gate_case(holder, suite_id, passed=passed, detail=detail)
            document.add(SUITE_GATES, holder[0])
        document.close_suite()
        for skipped in summary.skipped_tasks:
            attrs = {"classname": "coder_eval.skipped", "name": xml_safe(skipped.path), "time": _seconds(0.0)}
            case = ET.Element("testcase", attrs)
            ET.SubElement(case, "skipped", {"message": xml_safe(truncate(skipped.reason, MESSAGE_LIMIT))})
            document.add(SKIPPED_TASKS, case)
        document.close_suite()
        root = ET.Element("testsuites", {"name": "coder-eval"})
        document.totals.stamp(root, _seconds(summary.total_duration_seconds))
        if not len(suites):
            yield _XML_HEAD + ET.tostring(root, encoding="unicode") + "\n"
            return
        yield _XML_HEAD + _open_tag(root)
        yield from suites
        yield "\n</testsuites>\n"


class _Totals:
    """The counts and time of a testsuite (or, summed over suites, of the document)."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.counts = dict.fromkeys(_TOTALS, 0)
        self.time = 0.0

    def add_case(self, case: ET.Element) -> None:
        self.counts["tests"] += 1
        self.counts["failures"] += case.find("failure") is not None
        self.counts["errors"] += case.find("error") is not None
        self.counts["skipped"] += case.find("skipped") is not None
        self.time += float(case.get("time", "0"))

    def add(self, suite: _Totals) -> None:
        for key in _TOTALS:
            self.counts[key] += suite.counts[key]

    def stamp(self, element: ET.Element, time: str) -> None:
        for key in _TOTALS:
            element.set(key, str(self.counts[key]))
        element.set("time", time)


class _Document:
    """Test cases in document order: a new suite starts when the suite name changes or on `close_suite`."""

    def __init__(self, suites: TextSpool, pending: TextSpool) -> None:
        self.suites, self.pending = suites, pending  # finished suites' text; the open suite's cases
        self.totals = _Totals()
        self.open: _Totals | None = None

    def add(self, suite_name: str, case: ET.Element) -> None:
        if self.open is not None and self.open.name != suite_name:
            self.close_suite()
        if self.open is None:
            self.open = _Totals(suite_name)
        self.open.add_case(case)
        ET.indent(case, level=2)  # as deep as a case sits in the whole tree
        self.pending.add(ET.tostring(case, encoding="unicode"))

    def close_suite(self) -> None:
        if self.open is not None:
            _spool_suite(self.suites, self.open, self.pending)
            self.totals.add(self.open)
            self.open = None


def _spool_suite(suites: TextSpool, suite: _Totals, cases: TextSpool) -> None:
    """Move a finished suite's cases, under its opening tag, from `cases` into `suites`, indented."""
    element = _testsuite(ET.Element("testsuites"), suite.name)
    suite.stamp(element, _seconds(suite.time))
    suites.add("\n  " + _open_tag(element))
    for case in cases:
        suites.add("\n    " + case)
    suites.add("\n  </testsuite>")
    cases.clear()


def _open_tag(element: ET.Element) -> str:
    empty = ET.tostring(element, encoding="unicode")  # `<tag a="..." />`: no children, no text
    return empty[: -len(" />")] + ">"


def _testsuite(root: ET.Element, name: str) -> ET.Element:
    return ET.SubElement(root, "testsuite", {"name": xml_safe(name)})


def _add_task_case(suite: ET.Element, row: Mapping[str, Any], result: EvaluationResult | None) -> None:
    variant = str(row.get("variant_id", "default"))
    classname = f"coder_eval.{variant}"
    if row.get("suite_id"):
        classname += f".{row['suite_id']}"
    name = f"{row.get('task_id', '')}{replicate_suffix(int(row.get('replicate_index') or 0))}"
    case = ET.SubElement(
        suite,
        "testcase",
        {"classname": xml_safe(classname), "name": xml_safe(name), "time": _seconds(row.get("duration"))},
    )
    status = row_status(row)
    category = status.category
    if category == "failed":
        _child(case, "failure", message=status.value, kind=status.value, body=_failure_body(row, result))
    elif category == "error":
        text = _error_text(row, result)
        message = text.splitlines()[0] if text else status.value
        _child(case, "error", message=truncate(message, MESSAGE_LIMIT), kind=status.value, body=text)
    elif category == "ungraded":
        ET.SubElement(case, "skipped", {"message": "not graded"})


def _add_gate_case(suite: ET.Element, suite_id: str, *, passed: bool, detail: str) -> None:
    attrs = {"classname": "coder_eval.suite_gates", "name": xml_safe(suite_id), "time": _seconds(0.0)}
    case = ET.SubElement(suite, "testcase", attrs)
    if not passed:
        _child(case, "failure", message="suite gate not met", kind="SUITE_GATE", body=detail)


def _child(case: ET.Element, tag: str, *, message: str, kind: str, body: str) -> None:
    element = ET.SubElement(case, tag, {"message": xml_safe(message), "type": xml_safe(kind)})
    element.text = xml_safe(truncate(body, BODY_LIMIT))


def _failure_body(row: Mapping[str, Any], result: EvaluationResult | None) -> str:
    """Why a task failed: each failed gating criterion when task.json is at hand, else the row."""
    lines = [f"status: {row_status(row).value}", f"score: {format_score(row.get('weighted_score'))}"]
    if result is not None:
        for criterion in result.success_criteria_results:
            if criterion.outcome == "fail":
                lines += _failed_criterion_lines(criterion)
    message = result.error_message if result is not None else row.get("error_message")
    if message:
        lines.append(f"error: {message}")
    return "\n".join(lines)


def _failed_criterion_lines(criterion: CriterionResult) -> list[str]:
    notes = (("details", criterion.details), ("error", criterion.error or ""))
    head = f"- {criterion_title(criterion)} ({score_against_threshold(criterion)})"
    return [head, *(f"  {label}: {text}" for label, text in notes if text)]


def _error_text(row: Mapping[str, Any], result: EvaluationResult | None) -> str:
    if result is None:
        return str(row.get("error_message") or "")
    parts = [result.error_message, result.error_details, result.error_log_tail]
    return "\n\n".join(part for part in parts if part)


def _seconds(value: object) -> str:
    return f"{float(value) if isinstance(value, int | float) else 0.0:.3f}"
