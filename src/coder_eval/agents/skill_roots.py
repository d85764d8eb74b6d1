"""Where the skills of an agent's `plugins` live: the directories that hold `<name>/SKILL.md`.

A plugin root may hold its skills directly or under `skills/`; the kinds that take skill search
paths (pi, gemini-cli, antigravity) are given whichever of the two directly contains them.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.models.agent import BaseAgentConfig


def skill_roots(config: BaseAgentConfig) -> list[Path]:
    """Each plugin's directory of skills (`<root>/skills` or `<root>`), when it has any."""
    roots: list[Path] = []
    for plugin in config.plugins:
        root = Path(plugin.path).expanduser()
        for candidate in (root / "skills", root):
            if candidate.is_dir() and any(candidate.glob("*/SKILL.md")):
                roots.append(candidate.resolve())
                break
    return roots
