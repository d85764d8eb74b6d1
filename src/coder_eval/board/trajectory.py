"""Two units' trajectories side by side: their tool calls aligned, where they diverged, tokens and time per step.

A unit's steps are its tool calls, plus each model reply that called no tool, in order. Steps are
aligned with difflib's SequenceMatcher on a coarse key, the tool's kind (or name) and its target
(the command, path, pattern or URL with the unit's own workspace path taken out), so the same
action lines up even when its arguments differ; an aligned pair whose full arguments differ is
`changed`. The first step that is not the same on both sides is where the units diverged.

Tokens: a step carries the tokens of the model reply nearest to it in time (a reply that asked
for several calls is counted once, on the first). Records written before tool calls kept their
start time cannot be attributed, and the payload says so.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from coder_eval.models.results import EvaluationResult
from coder_eval.models.telemetry import AssistantMessage, CommandTelemetry, TurnRecord

TARGET_KEYS = ("command", "cmd", "file_path", "filePath", "absolute_path", "path", "pattern", "url", "query", "name")
TEXT_CHARS = 200
"""Characters of a target, an argument or a reply kept per step."""
MAX_STEPS = 2000
"""Steps per unit the diff aligns; a longer trajectory is cut and the payload says so."""
_SANDBOX_ROOT = re.compile(r"(?:/[^\s/'\"]+)*/\.sandboxes/[^\s/'\"]+/?")


@dataclass
class Step:
    index: int
    turn: int
    kind: str
    tool: str
    target: str
    arguments: dict[str, str]
    status: str
    duration_ms: float | None
    tokens: int | None
    output_tokens: int | None
    offset_s: float | None
    sub_agent: bool

    @property
    def coarse(self) -> tuple[str, str]:
        return (self.kind, self.target)

    @property
    def fine(self) -> str:
        return json.dumps([self.kind, self.target, self.arguments], sort_keys=True)

    def as_json(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def _clip(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1] + "…"


def workspace_roots(result: EvaluationResult) -> list[str]:
    """Paths that name this unit's workspace in its tool calls (taken out so two units compare)."""
    python_env = result.environment_info.get("python_env")
    venv = python_env.get("venv") if isinstance(python_env, dict) else None
    return [venv[: -len(".venv")]] if isinstance(venv, str) and venv.endswith("/.venv") else []


def normalize(text: str, roots: list[str]) -> str:
    for root in roots:
        text = text.replace(root, "")
    return _SANDBOX_ROOT.sub("", text)


def _target(params: dict[str, Any], roots: list[str]) -> str:
    for key in TARGET_KEYS:
        value = params.get(key)
        if isinstance(value, str) and value:
            return _clip(normalize(value, roots))
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return _clip(normalize(" ".join(value), roots))
    return ""


def _arguments(params: dict[str, Any], roots: list[str]) -> dict[str, str]:
    out = {}
    for key, value in sorted(params.items()):
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
        out[key] = _clip(normalize(text, roots))
    return out


def _tokens(message: AssistantMessage) -> tuple[int, int]:
    u = message.token_usage
    return u.input_tokens + u.output_tokens, u.output_tokens


def _nearest(at: datetime | None, messages: list[AssistantMessage]) -> int | None:
    if at is None:
        return None
    timed = [(abs((m.timestamp - at).total_seconds()), i) for i, m in enumerate(messages) if m.timestamp is not None]
    return min(timed)[1] if timed else None


def _turn_steps(turn: TurnRecord, roots: list[str], start: datetime | None) -> list[Step]:
    messages = [m for m in turn.messages if isinstance(m, AssistantMessage)]
    owner: dict[int, int | None] = {}
    for n, call in enumerate(turn.commands):
        same = [m for m in messages if m.parent_tool_use_id == call.parent_tool_use_id]
        near = _nearest(call.started_at, same)
        owner[n] = None if near is None else messages.index(same[near])
    counted: set[int] = set()
    items: list[tuple[float, int, Step]] = []
    for n, call in enumerate(turn.commands):
        m = owner[n]
        tokens = output = None
        if m is not None and m not in counted:
            counted.add(m)
            tokens, output = _tokens(messages[m])
        when = call.started_at
        items.append((_seconds(when, start), n, _tool_step(call, turn.iteration, roots, tokens, output, when, start)))
    for i, message in enumerate(messages):
        if i in counted or not message.content.strip():
            continue
        tokens, output = _tokens(message)
        when = message.timestamp
        step = Step(
            0,
            turn.iteration,
            "reply",
            "reply",
            _clip(message.content.strip().splitlines()[0]),
            {},
            "",
            None,
            tokens,
            output,
            _offset(when, start),
            message.parent_tool_use_id is not None,
        )
        items.append((_seconds(when, start), len(turn.commands) + i, step))
    if any(c.started_at is None for c in turn.commands):  # no times: tools in their recorded order, replies last
        items.sort(key=lambda item: (item[2].kind == "reply", item[1]))
    else:
        items.sort(key=lambda item: (item[0], item[1]))
    return [step for _, _, step in items]


def _seconds(at: datetime | None, start: datetime | None) -> float:
    offset = _offset(at, start)
    return float("inf") if offset is None else offset


def _offset(at: datetime | None, start: datetime | None) -> float | None:
    if at is None or start is None:
        return None
    return round((at - start).total_seconds(), 3)


def _tool_step(
    call: CommandTelemetry,
    turn: int,
    roots: list[str],
    tokens: int | None,
    output: int | None,
    when: datetime | None,
    start: datetime | None,
) -> Step:
    return Step(
        0,
        turn,
        call.tool_kind or call.tool_name,
        call.tool_name,
        _target(call.parameters, roots),
        _arguments(call.parameters, roots),
        call.status,
        call.duration_ms,
        tokens,
        output,
        _offset(when, start),
        call.parent_tool_use_id is not None,
    )


def unit_steps(result: EvaluationResult) -> tuple[list[Step], bool]:
    """The unit's steps in order, and whether its record lets tokens be attributed to steps."""
    roots = workspace_roots(result)
    start = result.iterations[0].timestamp if result.iterations else None
    steps: list[Step] = []
    for turn in result.iterations:
        steps += _turn_steps(turn, roots, start)
    for i, step in enumerate(steps):
        step.index = i + 1
    timed = all(c.started_at is not None for t in result.iterations for c in t.commands)
    return steps, timed


def _summary(result: EvaluationResult, run_id: str, path: str, steps: list[Step], timed: bool) -> dict[str, Any]:
    u = result.total_token_usage
    return {
        "run_id": run_id,
        "path": path,
        "task_id": result.task_id,
        "variant_id": result.variant_id,
        "replicate_index": result.replicate_index,
        "status": result.final_status.value,
        "score": result.weighted_score,
        "agent": result.agent_type,
        "model": result.model_used,
        "duration": result.duration_seconds,
        "tokens": u.input_tokens + u.output_tokens,
        "steps": len(steps),
        "tokens_attributed": timed,
        "truncated": len(steps) > MAX_STEPS,
    }


def _changed(a: Step, b: Step) -> list[str]:
    """The argument names whose values differ between two aligned steps."""
    names = sorted(set(a.arguments) | set(b.arguments))
    return [n for n in names if a.arguments.get(n) != b.arguments.get(n)]


def align(left: list[Step], right: list[Step]) -> list[dict[str, Any]]:
    """Rows of the side-by-side view: `same`, `changed` (same action, other arguments), `only_left`, `only_right`."""
    matcher = difflib.SequenceMatcher(None, [s.coarse for s in left], [s.coarse for s in right], autojunk=False)
    rows: list[dict[str, Any]] = []
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            for a, b in zip(left[a0:a1], right[b0:b1], strict=True):
                kind = "same" if a.fine == b.fine else "changed"
                rows.append({"kind": kind, "left": a.as_json(), "right": b.as_json(), "differs": _changed(a, b)})
            continue
        pairs = max(a1 - a0, b1 - b0) if op == "replace" else 0
        for i in range(pairs):
            old: Step | None = left[a0 + i] if a0 + i < a1 else None
            new: Step | None = right[b0 + i] if b0 + i < b1 else None
            kind = "replaced" if old and new else ("only_left" if old else "only_right")
            rows.append({"kind": kind, "left": old and old.as_json(), "right": new and new.as_json(), "differs": []})
        if op == "delete":
            rows += [{"kind": "only_left", "left": a.as_json(), "right": None, "differs": []} for a in left[a0:a1]]
        if op == "insert":
            rows += [{"kind": "only_right", "left": None, "right": b.as_json(), "differs": []} for b in right[b0:b1]]
    return rows


def diff_payload(left: tuple[str, str, EvaluationResult], right: tuple[str, str, EvaluationResult]) -> dict[str, Any]:
    """Two units ((run id, unit path, record) each) aligned step by step, with where they diverged."""
    (run_a, path_a, a), (run_b, path_b, b) = left, right
    steps_a, timed_a = unit_steps(a)
    steps_b, timed_b = unit_steps(b)
    rows = align(steps_a[:MAX_STEPS], steps_b[:MAX_STEPS])
    diverged = next((i for i, row in enumerate(rows) if row["kind"] != "same"), None)
    return {
        "left": _summary(a, run_a, path_a, steps_a, timed_a),
        "right": _summary(b, run_b, path_b, steps_b, timed_b),
        "rows": rows,
        "diverged_at": diverged,
        "same_task": a.task_id == b.task_id,
        "identical": diverged is None,
        "similarity": round(
            difflib.SequenceMatcher(None, [s.fine for s in steps_a], [s.fine for s in steps_b], autojunk=False).ratio(),
            3,
        ),
    }
