"""JUnit XML for CI test-report ingestion: one testcase per task replicate, grouped by variant.

The run.json rows are the spine; a row's task.json, when the caller could load it, only adds
detail to a failure body. Status mapping goes through `FinalStatus.category` so it agrees with
every other report: failed → <failure>, error → <error>, not graded → <skipped>.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

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
    """Drop the characters XML 1.0 cannot carry, which would make the whole report unparsable."""
    return _ILLEGAL_XML.sub("", text)


def render_junit(
    summary: RunSummary,
    results: dict[int, EvaluationResult],
    *,
    suite_gates: list[SuiteGate] | None = None,
) -> str:
    """The run as a JUnit document. `results` maps a row index in `summary.task_results` to its task."""
    root = ET.Element("testsuites", {"name": "coder-eval"})
    by_variant: dict[str, list[int]] = {}
    for index, row in enumerate(summary.task_results):
        by_variant.setdefault(str(row.get("variant_id", "default")), []).append(index)
    for variant, indices in by_variant.items():
        suite = _testsuite(root, variant)
        for index in indices:
            _add_task_case(suite, summary.task_results[index], results.get(index))
    if suite_gates:
        suite = _testsuite(root, SUITE_GATES)
        for suite_id, passed, detail in sorted(suite_gates):
            _add_gate_case(suite, suite_id, passed=passed, detail=detail)
    if summary.skipped_tasks:
        suite = _testsuite(root, SKIPPED_TASKS)
        for skipped in summary.skipped_tasks:
            attrs = {"classname": "coder_eval.skipped", "name": xml_safe(skipped.path), "time": _seconds(0.0)}
            case = ET.SubElement(suite, "testcase", attrs)
            ET.SubElement(case, "skipped", {"message": xml_safe(truncate(skipped.reason, MESSAGE_LIMIT))})
    _total_up(root, summary.total_duration_seconds)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


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


def _total_up(root: ET.Element, wall_clock: float) -> None:
    """Fill the count and time attributes CI tools read, per suite and for the whole document."""
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(case.find("failure") is not None for case in cases),
            "errors": sum(case.find("error") is not None for case in cases),
            "skipped": sum(case.find("skipped") is not None for case in cases),
        }
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(sum(float(case.get("time", "0")) for case in cases)))
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(wall_clock))


def _seconds(value: object) -> str:
    return f"{float(value) if isinstance(value, int | float) else 0.0:.3f}"
