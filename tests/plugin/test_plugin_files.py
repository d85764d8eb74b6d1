"""The Claude Code plugin's files: manifests, skill tool policies, references, generated criteria page."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from coder_eval.docs_gen import criteria_reference, criterion_models
from coder_eval.models.criteria import criterion_types, spec_type

REPO = Path(__file__).resolve().parents[2]
PLUGIN = REPO / "plugins" / "coder-eval"
SKILLS = ("init", "check-skill", "task", "lint-tasks", "analyze", "ci")


def frontmatter(skill: str) -> tuple[dict[str, Any], str]:
    text = (PLUGIN / "skills" / skill / "SKILL.md").read_text(encoding="utf-8")
    _, head, body = text.split("---", 2)
    return yaml.safe_load(head), body


def tools(value: str) -> list[str]:
    return [t.strip() for t in re.split(r",(?![^(]*\))", value) if t.strip()]


def test_marketplace_lists_the_plugin_at_its_path() -> None:
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    (entry,) = market["plugins"]
    assert market["name"] == entry["name"] == "coder-eval"
    manifest = json.loads((REPO / entry["source"] / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "coder-eval" and manifest["version"] == entry["version"]


def test_six_skills_with_their_tool_policies() -> None:
    assert sorted(p.name for p in (PLUGIN / "skills").iterdir()) == sorted(SKILLS)
    for skill in SKILLS:
        meta, body = frontmatter(skill)
        assert meta["name"] == skill and len(meta["description"]) < 1024 and body.strip()
        explicit_only = meta.get("disable-model-invocation", False)
        assert explicit_only == (skill in ("init", "ci")), skill
    allowed = tools(frontmatter("lint-tasks")[0]["allowed-tools"])
    assert allowed == ["Read", "Glob", "Grep"]
    denied = tools(frontmatter("lint-tasks")[0]["disallowed-tools"])
    assert {"Write", "Edit", "Bash"} <= set(denied)
    assert "Never modify" in frontmatter("lint-tasks")[1]
    for skill in ("analyze", "ci"):
        assert not any(t.startswith("Bash") for t in tools(frontmatter(skill)[0]["allowed-tools"])), skill
    for skill in ("init", "task", "check-skill"):
        assert "Bash(coder-eval:*)" in tools(frontmatter(skill)[0]["allowed-tools"]), skill


def test_every_reference_a_skill_names_ships_with_the_plugin() -> None:
    for skill in SKILLS:
        _, body = frontmatter(skill)
        for ref in re.findall(r"`(reference/[\w./-]+)`", body):
            assert (PLUGIN / ref).is_file(), f"{skill} names {ref}, which the plugin does not ship"
    for name in ("criteria.md", "task-rubric.md", "cli-setup.md", "run-layout.md", "repo-layout.md"):
        assert (PLUGIN / "reference" / name).is_file()


def test_criteria_reference_is_generated_from_the_models() -> None:
    shipped = (PLUGIN / "reference" / "criteria.md").read_text(encoding="utf-8")
    assert shipped == criteria_reference(), "stale: run `python -m coder_eval.docs_gen`"
    shipped_types = {spec_type(m) for m in criterion_models()}
    assert len(shipped_types) == 20 and shipped_types <= set(criterion_types())
    for kind in shipped_types:
        assert f"## `{kind}`" in shipped


def test_activation_template_validates_once_filled_in(tmp_path: Path) -> None:
    template = (PLUGIN / "reference" / "templates" / "activation-suite.yaml").read_text(encoding="utf-8")
    task = tmp_path / "activation.yaml"
    task.write_text(template.replace("SKILL_NAME", "greet"), encoding="utf-8")
    env = {**os.environ, "SKILL_SOURCE_PATH": str(tmp_path), "ANTHROPIC_API_KEY": "sk-placeholder"}
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "plan", str(task)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 rows" in proc.stdout


def test_ci_template_uses_the_action_inputs() -> None:
    workflow = yaml.safe_load((PLUGIN / "reference" / "templates" / "ci-workflow.yml").read_text(encoding="utf-8"))
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    (step,) = [s for s in workflow["jobs"]["eval"]["steps"] if s.get("id") == "coder-eval"]
    assert set(step["with"]) <= set(action["inputs"])
    assert workflow["permissions"] == {"contents": "read"}
    assert "pull_request_target" not in workflow[True if True in workflow else "on"]
