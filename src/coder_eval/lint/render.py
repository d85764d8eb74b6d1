"""Lint output: a table for people, JSON for scripts, SARIF 2.1.0 for code-scanning uploads."""

from __future__ import annotations

import json
from pathlib import Path

from coder_eval import __version__
from coder_eval.lint.findings import RULES, Finding

SARIF_LEVEL = {"error": "error", "warning": "warning", "note": "note"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def counts(findings: list[Finding]) -> dict[str, int]:
    return {level: sum(f.severity == level for f in findings) for level in ("error", "warning", "note")}


def render_json(findings: list[Finding], *, tasks_checked: int) -> str:
    return json.dumps(
        {
            "tasks_checked": tasks_checked,
            "counts": counts(findings),
            "findings": [f.model_dump() for f in findings],
        },
        indent=2,
    )


def _uri(path: str, base: Path) -> str:
    p = Path(path).resolve()
    try:
        return p.relative_to(base.resolve()).as_posix()
    except ValueError:
        return p.as_uri()


def render_sarif(findings: list[Finding], *, base: Path) -> str:
    """One run of the `coder-eval lint` tool; paths relative to `base` (the repository root in CI)."""
    used = sorted({f.rule_id for f in findings} | set(RULES))
    rules = [
        {
            "id": rule_id,
            "name": RULES[rule_id].name,
            "shortDescription": {"text": RULES[rule_id].summary},
            "help": {"text": RULES[rule_id].fix},
            "defaultConfiguration": {"level": SARIF_LEVEL[RULES[rule_id].severity]},
        }
        for rule_id in used
    ]
    results = [
        {
            "ruleId": f.rule_id,
            "ruleIndex": used.index(f.rule_id),
            "level": SARIF_LEVEL[f.severity],
            "message": {"text": f"{f.task_id}: {f.message}. Fix: {f.fix}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.file, base)},
                        "region": {"startLine": f.line},
                    }
                }
            ],
        }
        for f in findings
    ]
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "coder-eval lint",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2)


def render_text(findings: list[Finding], *, tasks_checked: int) -> str:
    """`file:line: severity CEnnn name [task]: message` lines, then a fix line, then the tally."""
    lines = []
    for f in sorted(findings, key=lambda f: (f.file, f.line, f.rule_id)):
        lines.append(f"{f.file}:{f.line}: {f.severity} {f.rule_id} {f.rule} [{f.task_id}]: {f.message}")
        lines.append(f"    fix: {f.fix}")
    c = counts(findings)
    lines.append(
        f"{tasks_checked} task(s) checked: {c['error']} error(s), {c['warning']} warning(s), {c['note']} note(s)"
    )
    return "\n".join(lines) + "\n"
