"""Where the skills of an agent's `plugins` live: the directories that hold `<name>/SKILL.md`.

A plugin root may hold its skills directly, under `skills/`, or where its
`.claude-plugin/plugin.json` says (`"skills": "./path"`); the kinds that take skill search paths
(pi, gemini-cli, antigravity, codex, opencode) are given the first of those that directly
contains them, never a plugin root that only nests them (a recursive scan of a root could meet
a self-referential link).
"""

from __future__ import annotations

import json
from pathlib import Path

from coder_eval.models.agent import BaseAgentConfig


def _declared(root: Path) -> list[Path]:
    """The skills directory a Claude Code plugin manifest names, if it names one inside the root."""
    try:
        manifest = json.loads((root / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    declared = manifest.get("skills") if isinstance(manifest, dict) else None
    if not isinstance(declared, str):
        return []
    candidate = (root / declared).resolve()
    return [candidate] if candidate.is_relative_to(root.resolve()) else []


def skill_dirs(root: Path) -> list[Path]:
    """The skills (`<name>/` holding SKILL.md) of one skills directory, by name."""
    return sorted(p.parent for p in root.glob("*/SKILL.md"))


def skill_roots(config: BaseAgentConfig) -> list[Path]:
    """Each plugin's directory of skills (declared, `<root>/skills` or `<root>`), when it has any."""
    roots: list[Path] = []
    for plugin in config.plugins:
        root = Path(plugin.path).expanduser()
        for candidate in (*_declared(root), root / "skills", root):
            if candidate.is_dir() and any(candidate.glob("*/SKILL.md")):
                roots.append(candidate.resolve())
                break
    return roots
