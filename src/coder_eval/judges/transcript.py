"""The judge transcript: what the judge was asked and answered, written to `judge-<n>.yaml`.

The captured text is capped at `max_transcript_chars`, shared 60/30/10 between the verdict (and a
judge agent's tool calls), the prompt and the system prompt; a cut marks the transcript truncated.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field


class JudgeTranscript(BaseModel):
    criterion_index: int
    criterion_type: str
    description: str
    route: str = ""
    model: str | None = None
    system: str = ""
    prompt: str = ""
    verdict: str = ""
    tool_calls: list[str] = Field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    duration_seconds: float = 0.0
    error: str | None = None
    truncated: bool = False


def _cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def capped(transcript: JudgeTranscript, max_chars: int) -> JudgeTranscript:
    """The transcript within `max_chars` (verdict+tools 60%, prompt 30%, system 10%)."""
    verdict, cut_v = _cut(transcript.verdict, int(max_chars * 0.6))
    room = max(0, int(max_chars * 0.6) - len(verdict))
    tools: list[str] = []
    cut_t = False
    for line in transcript.tool_calls:
        if len(line) > room:
            cut_t = True
            break
        tools.append(line)
        room -= len(line)
    prompt, cut_p = _cut(transcript.prompt, int(max_chars * 0.3))
    system, cut_s = _cut(transcript.system, max_chars - int(max_chars * 0.6) - int(max_chars * 0.3))
    truncated = transcript.truncated or cut_v or cut_t or cut_p or cut_s
    return transcript.model_copy(
        update={"verdict": verdict, "tool_calls": tools, "prompt": prompt, "system": system, "truncated": truncated}
    )


def write_transcript(out_dir: Path, transcript: JudgeTranscript, max_chars: int) -> str:
    """Write `judge-<n>.yaml` in `out_dir`; returns its file name (relative to the unit directory)."""
    name = f"judge-{transcript.criterion_index}.yaml"
    data: dict[str, Any] = capped(transcript, max_chars).model_dump(mode="json")
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / name
    partial = target.with_suffix(".yaml.partial")
    partial.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    os.replace(partial, target)  # a reader never sees half a transcript
    return name
