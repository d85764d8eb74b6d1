"""A generated suite of task files in the reference system's style, one legacy form or 0.12 field per file.

`write_corpus(root)` lays the suite out as a git work tree (so a template at its root is "in the
task's repository"), with the prompt files, solutions and templates the tasks name. `REMOVED`
lists the files that use a removed form: they fail to load until `coder-eval migrate` rewrites them.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

HEAD = """\
task_id: {task_id}
description: "{task_id}: written for the reference system"
initial_prompt: "Write out.txt"
"""
CHECK = """\
success_criteria:
  - type: file_exists
    path: out.txt
    description: out.txt exists
"""

FORMS: dict[str, str] = {
    "unknown_key": HEAD + "owner: team-x  # a key of the team's own tooling\n" + CHECK,
    "stale_max_iterations": HEAD + "max_iterations: 10\n" + CHECK,
    "stale_llm_reviewer": HEAD + "llm_reviewer:\n  enabled: true\n  model: some-model\n" + CHECK,
    "alias_command_not_executed": HEAD
    + """\
success_criteria:
  # the agent must never delete the repository
  - type: command_not_executed
    description: no rm -rf
    tool_name: Bash
    command_pattern: "rm -rf"
    min_count: 2   # legacy files sometimes carry a stray count; the alias wins
""",
    "node_env_packages": HEAD + "sandbox:\n  node:\n    env_packages: [left-pad@1.3.0]\n" + CHECK,
    "python_env_packages": HEAD + "sandbox:\n  python:\n    env_packages: [pytest]\n" + CHECK,
    "reference_file": HEAD
    + """\
reference:
  file: solutions/answer.py
success_criteria:
  - type: reference_comparison
    description: close to the reference
    agent_file: answer.py
    comparison_method: ast
""",
    "reference_code": HEAD
    + """\
reference:
  code: |
    def add(a, b):
        return a + b
success_criteria:
  - type: reference_comparison
    description: close to the reference
    agent_file: calc.py
""",
    "initial_prompt_file": """\
task_id: initial_prompt_file
description: the prompt lives in a file
initial_prompt_file: prompts/write_out.md
"""
    + CHECK,
    "expected_commands": HEAD + "expected_commands: 6\n" + CHECK,
    "judges_disabled": HEAD
    + """\
success_criteria:
  - {type: file_exists, path: out.txt, description: out.txt exists}
  - {type: llm_judge, description: llm, prompt: grade it, enabled: false}
  - {type: agent_judge, description: agent, prompt: grade it, enabled: false}
  - type: system_one_judge
    description: rubric
    prompt: grade it
    enabled: false
    questions:
      ok: {type: noul, instructions: is it ok?}
""",
    "simulation_disabled": HEAD + "simulation:\n  enabled: false\n" + CHECK,
    "run_command_read_only": HEAD
    + """\
success_criteria:
  - type: run_command
    description: out.txt can be read
    command: cat out.txt
    read_only: true
""",
    "run_limits_cache": HEAD
    + "run_limits:\n  max_input_tokens: 50000\n  count_cached_input: true\n  count_cache_creation: false\n"
    + CHECK,
    "template_include_patterns": HEAD
    + """\
sandbox:
  template_sources:
    - type: template_dir
      path: ../../templates/starter
      include_patterns: ["dist/*.js"]
"""
    + CHECK,
    "agent_context_window": HEAD + "agent:\n  type: codex\n  context_window: 128000\n" + CHECK,
    "system_one_judge_endpoint": HEAD
    + """\
success_criteria:
  - type: system_one_judge
    description: rubric on our own judge server
    prompt: Grade out.txt.
    files: [out.txt]
    base_url: http://127.0.0.1:9/judge
    api_key_env: OWN_JUDGE_KEY
    scoring: argmax
    timeout_seconds: 30
    max_state_chars: 20000
    questions:
      quality: {type: score, instructions: how good?, criteria: [bad, ok, good]}
""",
}
"""File stem -> task file text. Every file sits in tasks/<stem>/ so each has its own directory."""

# plan checks the credentials a run would use: the default backend's keys, and the key the
# system_one_judge endpoint above names. Tests about task forms set them to placeholders.
CREDENTIALS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OWN_JUDGE_KEY")
REMOVED = frozenset({"reference_file", "reference_code"})
"""Forms that no longer load: `coder-eval migrate` rewrites them."""

WARNS = {
    "unknown_key": "unknown top-level key",
    "stale_max_iterations": "no longer used",
    "stale_llm_reviewer": "no longer used",
    "alias_command_not_executed": "legacy alias",
}
"""Forms that load with a warning (and what it says); migrate removes all but the unknown key's."""

EXPERIMENT = """\
experiment_id: reference-defaults
description: the 0.12 experiment shortcuts
defaults:
  driver: tempdir
  template_sources:
    - type: template_dir
      path: ../templates/overlay
variants:
  - variant_id: baseline
"""


def write_corpus(root: Path) -> dict[str, Path]:
    """Write the suite under `root`; returns stem -> task file."""
    (root / ".git").mkdir(parents=True, exist_ok=True)  # a work tree: templates/ is in the tasks' repository
    for rel in ("templates/starter/main.py", "templates/starter/dist/app.js", "templates/overlay/HINTS.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n", encoding="utf-8")
    (root / "experiments").mkdir(exist_ok=True)
    (root / "experiments" / "reference-defaults.yaml").write_text(EXPERIMENT, encoding="utf-8")
    files: dict[str, Path] = {}
    for stem, text in FORMS.items():
        task_dir = root / "tasks" / stem
        task_dir.mkdir(parents=True, exist_ok=True)
        path = task_dir / f"{stem}.yaml"
        path.write_text(textwrap.dedent(text).replace("{task_id}", stem), encoding="utf-8")
        files[stem] = path
    (root / "tasks" / "initial_prompt_file" / "prompts").mkdir()
    (root / "tasks" / "initial_prompt_file" / "prompts" / "write_out.md").write_text("Write out.txt\n")
    (root / "tasks" / "reference_file" / "solutions").mkdir()
    (root / "tasks" / "reference_file" / "solutions" / "answer.py").write_text("print(42)\n")
    return files
