"""Reading a judge's verdict: a forced tool call's arguments, or a judge agent's final JSON message."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

VERDICT_TOOL = "submit_verdict"
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0.0, "maximum": 1.0, "description": "Grade from 0.0 to 1.0."},
        "rationale": {"type": "string", "description": "Why, in a few sentences."},
    },
    "required": ["score", "rationale"],
}


class VerdictError(ValueError):
    """The judge's answer carries no usable verdict."""


@dataclass(frozen=True)
class Verdict:
    score: float
    rationale: str
    raw: dict[str, Any]


def verdict_from_args(args: dict[str, Any]) -> Verdict:
    """Validate a verdict mapping: `score` present, numeric, finite, clamped to [0, 1]."""
    if "score" not in args:
        raise VerdictError(f"the verdict has no score (keys: {', '.join(map(str, args)) or 'none'})")
    raw_score = args["score"]
    if isinstance(raw_score, bool):
        raise VerdictError(f"the verdict's score {raw_score!r} is not a number")
    try:
        score = float(raw_score)
    except (TypeError, ValueError):
        raise VerdictError(f"the verdict's score {raw_score!r} is not a number") from None
    if not math.isfinite(score):
        raise VerdictError(f"the verdict's score {raw_score!r} is not finite")
    return Verdict(max(0.0, min(1.0, score)), str(args.get("rationale", "")), dict(args))


def forced_verdict(tool_calls: list[tuple[str, dict[str, Any]]], tool: str = VERDICT_TOOL) -> dict[str, Any]:
    """The arguments of the forced tool call, or VerdictError when the judge never made it."""
    for name, args in tool_calls:
        if name == tool:
            return args
    raise VerdictError(f"the judge returned no verdict (it never called {tool})")


_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def verdict_from_text(text: str) -> Verdict:
    """A judge agent's final message: a JSON object with score and rationale (fenced or bare)."""
    candidates = [m.group(1) for m in _FENCED.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    for blob in reversed(candidates):
        try:
            parsed = json.loads(blob)
        except json.JSONDecodeError:
            continue
        if isinstance(parsed, dict):
            return verdict_from_args(parsed)
    raise VerdictError(f"the judge's final message is not a JSON verdict: {text[:200]!r}")
