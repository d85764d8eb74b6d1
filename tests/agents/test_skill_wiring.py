"""Where each kind's skills come from: the plugin roots' skills directories, for Codex and OpenCode."""

from __future__ import annotations

import json
from pathlib import Path

from coder_eval.agents.codex.command import install_skills
from coder_eval.agents.codex.config import CodexConfig
from coder_eval.agents.opencode.command import config_content
from coder_eval.agents.opencode.config import OpenCodeConfig
from coder_eval.agents.skill_roots import skill_roots


def skill(root: Path, name: str, body: str = "do it") -> Path:
    (root / name).mkdir(parents=True)
    (root / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {name} things\n---\n{body}\n")
    return root


def plugins(*paths: Path) -> list[dict[str, str]]:
    return [{"type": "local", "path": str(p)} for p in paths]


def test_roots_are_declared_then_skills_then_the_root_itself(tmp_path: Path) -> None:
    declared = tmp_path / "declared"
    skill(declared / "custom", "a")
    (declared / ".claude-plugin").mkdir()
    (declared / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "p", "skills": "./custom"}))
    conventional = tmp_path / "conventional"
    skill(conventional / "skills", "b")
    bare = skill(tmp_path / "bare", "c")
    escaping = tmp_path / "escaping"
    skill(escaping / "skills", "d")
    (escaping / ".claude-plugin").mkdir()
    (escaping / ".claude-plugin" / "plugin.json").write_text(json.dumps({"skills": "../conventional/skills"}))
    empty = tmp_path / "empty"
    empty.mkdir()
    config = CodexConfig(plugins=plugins(declared, conventional, bare, escaping, empty))  # type: ignore[arg-type]
    assert skill_roots(config) == [
        (declared / "custom").resolve(),
        (conventional / "skills").resolve(),
        bare.resolve(),
        (escaping / "skills").resolve(),  # a manifest pointing out of its plugin is not followed
    ]


def test_codex_gets_copies_in_its_home(tmp_path: Path) -> None:
    first = skill(tmp_path / "one" / "skills", "greet", "first")
    second = skill(tmp_path / "two" / "skills", "greet", "second")
    skill(second, "other")
    config = CodexConfig(plugins=plugins(first.parent, second.parent))  # type: ignore[arg-type]
    home = tmp_path / "home"
    assert install_skills(home, config) == ["greet", "other"]
    assert "first" in (home / "skills" / "greet" / "SKILL.md").read_text()  # the first plugin wins a shared name
    assert install_skills(tmp_path / "bare-home", CodexConfig()) == []


def test_opencode_gets_skills_paths(tmp_path: Path) -> None:
    root = skill(tmp_path / "p" / "skills", "greet").parent
    with_skills = config_content(OpenCodeConfig(plugins=plugins(root)), "http://gw/v1", "k")  # type: ignore[arg-type]
    assert with_skills["skills"] == {"paths": [str((root / "skills").resolve())]}
    assert "skills" not in config_content(OpenCodeConfig(), "http://gw/v1", "k")
