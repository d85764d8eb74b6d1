"""skill-creator expectations a deterministic check can decide, recognised by their wording.

skill-creator's grader is a model reading the transcript and the outputs; many expectations,
though, say something a check decides without one. Only these shapes are recognised, each with
its operands quoted (backticks, double or single quotes), so a sentence about quality never
becomes a file check by accident:

| expectation | criterion |
| --- | --- |
| "`report.md` exists" / "`report.md` is created" / "creates `report.md`" | `file_exists` |
| "`report.md` contains `Total`" / "... does not contain ..." | `file_contains` (includes / excludes) |
| "the reply mentions `42`" / "the response contains ..." / "... does not mention ..." | `output_matches` (reply) |
| "runs `pytest -q`" / "the command `make` was run" | `command_executed` (any shell tool, the text as a substring) |
| "the `pdf` skill is used" / "uses the `pdf` skill" / "... is not used" | `skill_triggered` (this skill only) |

Anything else is left to a judge (`llm_judge`). An optional leading "The agent", "Claude" or
"It" and a final period are ignored; matching is case-insensitive except inside the quotes.
"""

from __future__ import annotations

import re
from typing import Any

_Q = r"(?:`(?P<{n}>[^`]+)`|\"(?P<{n}2>[^\"]+)\"|'(?P<{n}3>[^']+)')"


def _quoted(name: str) -> str:
    return _Q.format(n=name)


_SUBJECT = r"^(?:(?:the agent|claude|it|the run)\s+)?"
_END = r"\s*\.?\s*$"
_PATH, _TEXT = _quoted("path"), _quoted("text")
_NOT = r"(?P<neg>does not |doesn't |do not |never )?"

_FILE_EXISTS = [
    re.compile(_SUBJECT + r"(?:a |the )?(?:file |output )?(?:named |called )?" + _PATH + r"(?: file)?\s+"
               r"(?:exists|is created|was created|is written|was written|has been created|is produced|was produced)"
               + _END, re.IGNORECASE),
    re.compile(_SUBJECT + r"(?:creates|created|writes|wrote|produces|produced|saves|saved)\s+"
               r"(?:a |the )?(?:file |output )?(?:named |called )?" + _PATH + _END, re.IGNORECASE),
]  # fmt: skip
_FILE_CONTAINS = re.compile(
    _SUBJECT + r"(?:the )?(?:file )?" + _PATH + r"\s+" + _NOT + r"(?:contains?|includes?)\s+" + _TEXT + _END,
    re.IGNORECASE,
)
_REPLY = re.compile(
    _SUBJECT + r"(?:the )?(?:final )?(?:reply|response|answer|message)\s+" + _NOT
    + r"(?:contains?|includes?|mentions?|says?)\s+" + _TEXT + _END,
    re.IGNORECASE,
)  # fmt: skip
_COMMAND = [
    re.compile(_SUBJECT + r"(?:runs|ran|executes|executed|invokes|invoked)\s+(?:the command\s+)?" + _quoted("cmd")
               + _END, re.IGNORECASE),
    re.compile(_SUBJECT + r"(?:the )?command\s+" + _quoted("cmd") + r"\s+(?:is|was)\s+(?:run|executed)" + _END,
               re.IGNORECASE),
]  # fmt: skip
_SKILL = [
    re.compile(_SUBJECT + r"(?:the )?(?:`(?P<s>[^`]+)`|(?P<s2>[\w-]+))\s+skill\s+(?:is|was)\s+(?P<neg>not\s+)?"
               r"(?:used|triggered|invoked|loaded|consulted)" + _END, re.IGNORECASE),
    re.compile(_SUBJECT + r"(?P<neg>does not |doesn't |never )?(?:uses?|used|invokes?|invoked|triggers?|triggered)"
               r"\s+the\s+(?:`(?P<s>[^`]+)`|(?P<s2>[\w-]+))\s+skill" + _END, re.IGNORECASE),
]  # fmt: skip


def _group(match: re.Match[str], name: str) -> str:
    for key in (name, f"{name}2", f"{name}3"):
        value = match.groupdict().get(key)
        if value:
            return value
    return ""


def deterministic(text: str, skill: str) -> dict[str, Any] | None:
    """The criterion body (no description or weight) that decides `text`, or None for a judge."""
    sentence = " ".join(text.split())
    for pattern in _FILE_EXISTS:
        if (m := pattern.match(sentence)) is not None:
            return {"type": "file_exists", "path": _group(m, "path")}
    if (m := _FILE_CONTAINS.match(sentence)) is not None:
        key = "excludes" if m.group("neg") else "includes"
        return {"type": "file_contains", "path": _group(m, "path"), key: [_group(m, "text")]}
    if (m := _REPLY.match(sentence)) is not None:
        body: dict[str, Any] = {"type": "output_matches", "source": "reply", "pattern": re.escape(_group(m, "text"))}
        if m.group("neg"):
            body["match"] = "absent"
        return body
    for pattern in _COMMAND:
        if (m := pattern.match(sentence)) is not None:
            return {"type": "command_executed", "tool_name": "Bash", "command_pattern": re.escape(_group(m, "cmd"))}
    for pattern in _SKILL:
        if (m := pattern.match(sentence)) is not None and _group(m, "s") == skill:
            return {"type": "skill_triggered", "skill_name": skill, "expected_skill": "" if m.group("neg") else skill}
    return None


_NAMED = re.compile(r"`([^`\s]+[./][^`\s]*)`")


def named_file(text: str) -> str | None:
    """The first backticked path in a sentence (it holds a `.` or a `/`), for a judge to be shown."""
    match = _NAMED.search(text)
    if match is None or match.group(1).startswith("/") or ".." in match.group(1).split("/"):
        return None
    return match.group(1)
