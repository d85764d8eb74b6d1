"""docs/walkthrough.md runs as written: every command of its `bash` blocks, in order, offline.

A line may end with `# exit N` (the exit status it documents; 0 otherwise); `cd DIR` moves the
working directory for the lines after it. Commands run through the installed CLI on the
scripted model, in a temporary directory, with no API key in the environment.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from coder_eval.agents.claude_code.options import bundled_cli

REPO = Path(__file__).resolve().parents[2]
WALKTHROUGH = REPO / "docs" / "walkthrough.md"
BIN = Path(sys.executable).with_name("coder-eval")
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="the claude-agent-sdk wheel bundles no Claude Code CLI here"),
]


def walkthrough_commands(text: str) -> list[tuple[str, int]]:
    """(command line, expected exit status) of every line in the page's bash blocks."""
    commands: list[tuple[str, int]] = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for raw in block.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            match = EXIT.search(line)
            expected = int(match.group(1)) if match else 0
            line = EXIT.sub("", line)
            commands.append((re.sub(r"\s+#.*$", "", line), expected))
    return commands


def test_the_page_has_commands_for_every_step() -> None:
    commands = [c for c, _ in walkthrough_commands(WALKTHROUGH.read_text(encoding="utf-8"))]
    assert commands[0].startswith("coder-eval init")
    for needed in ("coder-eval plan", "coder-eval run", "-e experiments/skill-ab.yaml", "coder-eval gate"):
        assert any(needed in c for c in commands), needed


def test_every_walkthrough_command_runs_as_documented(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "API_BACKEND"}
    env.update(NO_COLOR="1", COLUMNS="200", PATH=f"{BIN.parent}{os.pathsep}{env.get('PATH', '')}")
    cwd = tmp_path
    outputs: list[str] = []
    for line, expected in walkthrough_commands(WALKTHROUGH.read_text(encoding="utf-8")):
        argv = shlex.split(line)
        if argv[0] == "cd":
            cwd = (cwd / argv[1]).resolve()
            continue
        assert argv[0] == "coder-eval", f"the walkthrough runs only coder-eval commands: {line}"
        proc = subprocess.run(
            [str(BIN), *argv[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        outputs.append(f"$ {line}\n{proc.stdout}{proc.stderr}")
        assert proc.returncode == expected, "\n".join(outputs)
    log = "\n".join(outputs)
    # what the page claims about those commands
    assert "why: command_executed 'the agent ran it'" in log and "refused by the agent's permissions" in log
    assert "No difference between without-skill and with-skill" in log
    assert (cwd / "runs" / "ab" / "experiment.html").is_file() and (cwd / "runs" / "ab" / "run.html").is_file()
