"""Codex and OpenCode load the task's `agent.plugins` skills, and skill_triggered sees them used.

Codex gets each skill copied into `$CODEX_HOME/skills/` (where it lists user skills in its
instructions) and reads a SKILL.md with its shell; OpenCode is given the plugins' skills
directories as `skills.paths` and activates a skill with its own `skill` tool. Both real CLIs
run on the scripted model; a loopback capture server shows what Codex tells its model.
"""

from __future__ import annotations

import http.server
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from cli_agents import require_binary
from test_claude_code_e2e import explain, make_plugin
from test_cli_agents_e2e import agent_task, run_task

from coder_eval.agents.codex.command import exec_argv, install_skills
from coder_eval.agents.codex.config import CodexConfig

pytestmark = pytest.mark.slow

BODY = "hello from the greet skill"


def _criteria(expected: str) -> list[dict[str, object]]:
    return [
        {"type": "skill_triggered", "skill_name": "greet", "expected_skill": expected, "description": "greet"},
        {"type": "file_exists", "path": "greeting.txt", "description": "greeted"},
    ]


def test_codex_reads_a_plugin_skill_from_its_home(tmp_path: Path) -> None:
    require_binary("codex")
    plugin = make_plugin(tmp_path / "plugin")
    doc = agent_task(
        "codex", "skill", "Greet me, using your greet skill.", _criteria("greet"), plugins=[{"path": str(plugin)}]
    )
    script = {
        "steps": [
            {"run_command": 'cat "$CODEX_HOME/skills/greet/SKILL.md"'},
            {"write_file": {"path": "greeting.txt", "content": f"{BODY}\n"}},
            {"reply": "greeted"},
        ]
    }
    record, proc = run_task(tmp_path / "task", doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    read = record["iterations"][0]["commands"][0]
    assert read["status"] == "success" and BODY in (read["result_summary"] or ""), read
    assert record["environment_info"]["codex_skills"] == ["greet"]
    triggered = record["success_criteria_results"][0]
    assert (triggered["observed_label"], triggered["expected_label"]) == ("yes", "yes")


def test_codex_without_the_skill_is_observed_not_triggering(tmp_path: Path) -> None:
    """The other arm of an A/B: the same plugin, a prompt that needs no skill, observed `no`."""
    require_binary("codex")
    plugin = make_plugin(tmp_path / "plugin")
    doc = agent_task("codex", "noskill", "Write greeting.txt.", _criteria(""), plugins=[{"path": str(plugin)}])
    script = {"steps": [{"write_file": {"path": "greeting.txt", "content": "hi\n"}}, {"reply": "done"}]}
    record, proc = run_task(tmp_path / "task", doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    triggered = record["success_criteria_results"][0]
    assert (triggered["observed_label"], triggered["expected_label"]) == ("no", "no")


def test_opencode_activates_a_plugin_skill(tmp_path: Path) -> None:
    require_binary("opencode")
    plugin = make_plugin(tmp_path / "plugin")
    doc = agent_task(
        "opencode", "skill", "Greet me, using your greet skill.", _criteria("greet"), plugins=[{"path": str(plugin)}]
    )
    script = {
        "steps": [
            {"invoke_skill": {"name": "greet"}},
            {"write_file": {"path": "greeting.txt", "content": f"{BODY}\n"}},
            {"reply": "greeted"},
        ]
    }
    record, proc = run_task(tmp_path / "task", doc, script)
    assert record["final_status"] == "SUCCESS", explain(record, proc)
    activation = record["iterations"][0]["commands"][0]
    assert (activation["tool_name"], activation["tool_kind"], activation["status"]) == ("skill", "skill", "success")
    assert activation["parameters"].get("name") == "greet"
    assert record["environment_info"]["opencode_skill_paths"] == [str((plugin / "skills").resolve())]
    triggered = record["success_criteria_results"][0]
    assert (triggered["observed_label"], triggered["expected_label"]) == ("yes", "yes")


class _Capture(http.server.BaseHTTPRequestHandler):
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        self.bodies.append(self.rfile.read(int(self.headers.get("content-length", 0))))
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error": {"message": "captured", "type": "invalid_request_error"}}')

    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def capture() -> Iterator[tuple[str, list[bytes]]]:
    _Capture.bodies = []
    server = http.server.HTTPServer(("127.0.0.1", 0), _Capture)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1", _Capture.bodies
    finally:
        server.shutdown()
        server.server_close()


def test_codex_lists_the_installed_skill_to_its_model(tmp_path: Path, capture: tuple[str, list[bytes]]) -> None:
    """What Codex sends its model names the skill and where it lives: the skill was loaded, not just copied."""
    cli = require_binary("codex")
    base_url, bodies = capture
    plugin = make_plugin(tmp_path / "plugin")
    config = CodexConfig(plugins=[{"path": str(plugin)}])  # type: ignore[list-item]
    home, workspace = tmp_path / "codex-home", tmp_path / "ws"
    home.mkdir()
    workspace.mkdir()
    assert install_skills(home, config) == ["greet"]
    argv = exec_argv(cli, config, prompt="hi", workspace=workspace, base_url=base_url, model="gpt-5-codex", resume=None)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "CODEX_HOME": str(home), "CODEX_API_KEY": "x"}
    subprocess.run(argv, env=env, capture_output=True, timeout=120, check=False)
    assert bodies, "codex sent no request"
    sent = json.dumps(json.loads(bodies[0]))
    assert "greet: Greet the user warmly." in sent
    assert str(home / "skills") in sent  # the skill root Codex resolves the file against
