"""docs/agents/tool-kinds.md shows each agent's tool names by canonical kind; keep it true."""

from __future__ import annotations

from pathlib import Path

from coder_eval.agents import vocabularies as v
from coder_eval.models.tools import ToolVocabulary

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents" / "tool-kinds.md"
AGENTS: dict[str, ToolVocabulary] = {
    "claude-code": v.CLAUDE_CODE_TOOLS,
    "codex": v.CODEX_TOOLS,
    "opencode": v.OPENCODE_TOOLS,
    "pi": v.PI_TOOLS,
    "gemini-cli": v.GEMINI_CLI_TOOLS,
    "antigravity": v.ANTIGRAVITY_TOOLS,
}
KINDS = ("shell", "read", "write", "edit", "patch", "search", "list", "fetch", "task", "todo", "skill")


def table() -> str:
    lines = ["| kind | " + " | ".join(AGENTS) + " |", "| --- |" + " --- |" * len(AGENTS)]
    for kind in KINDS:
        cells = []
        for vocab in AGENTS.values():
            names = [name for name, k in vocab.tools.items() if k == kind]
            cells.append(", ".join(f"`{n}`" for n in names) or "—")
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def test_doc_table_matches_the_vocabularies() -> None:
    text = DOC.read_text(encoding="utf-8")
    start, end = "<!-- tool-kinds:start -->\n", "\n<!-- tool-kinds:end -->"
    shown = text[text.index(start) + len(start) : text.index(end)]
    assert shown == table(), "the table is out of date: paste table() from this test into the doc"
