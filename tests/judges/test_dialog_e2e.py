"""Dialog mode end to end: Claude Code talks with a scripted simulated user; one test per stop reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from judge_e2e import claude_task, run, task_json

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI"),
]

AGENT = [{"reply": "What would you like?"}, {"reply": "hello, world"}, {"reply": "anything else?"}, {"reply": "ok"}]


def _doc(task_id: str, criteria: list[dict[str, Any]] | None = None, **sim: Any) -> dict[str, Any]:
    simulation = {"enabled": True, "persona": "a user", "goal": "get an echo", "stop_token": "<<<END>>>", **sim}
    criteria = criteria or [{"type": "file_exists", "path": "nothing.txt", "description": "advisory", "weight": 0}]
    return claude_task(task_id, criteria, simulation=simulation)


def _sim(record: dict[str, Any]) -> dict[str, Any]:
    sim: dict[str, Any] = record["simulation"]
    return sim


def test_stop_token_and_judge_sees_dialog(tmp_path: Path) -> None:
    judge = {"type": "llm_judge", "description": "echoed", "prompt": "Did it echo?", "include_dialog": True}
    script = {
        "steps": AGENT,
        "simulator": ['Repeat: "hello, world"', "Thanks! <<<END>>>"],
        "judges": [{"criterion": 0, "verdict": {"score": 1.0, "rationale": "echoed"}}],
    }
    run_dir, proc = run(tmp_path, _doc("tok", [judge]), script)
    record = task_json(run_dir, "tok")
    sim = _sim(record)
    assert sim["stop_reason"] == "stop_token" and sim["turns"] == 2, proc.stderr
    assert [m["role"] for m in sim["dialog"]] == ["user", "agent", "user", "agent", "user"]
    assert sim["simulator_input_tokens"] > 0 and record["simulator_cost_usd"] is not None
    assert record["final_status"] == "SUCCESS"
    transcript = yaml.safe_load((run_dir / "default" / "tok" / "00" / "judge-0.yaml").read_text())
    assert "<DIALOG>" in transcript["prompt"] and "may invent premises" in transcript["prompt"]
    assert 'Repeat: "hello, world"' in transcript["prompt"]


def test_max_turns(tmp_path: Path) -> None:
    run_dir, _ = run(tmp_path, _doc("cap", max_turns=2), {"steps": AGENT, "simulator": ["more", "more", "more"]})
    sim = _sim(task_json(run_dir, "cap"))
    assert sim["stop_reason"] == "max_turns" and sim["turns"] == 2


def test_criteria_passed_every_turn(tmp_path: Path) -> None:
    crit = [{"type": "command_executed", "description": "said hi", "min_count": 0}]
    doc = _doc("pass", crit, stop_on_criteria_pass=True, check_criteria="every_turn")
    run_dir, _ = run(tmp_path, doc, {"steps": AGENT, "simulator": ["more"]})
    sim = _sim(task_json(run_dir, "pass"))
    assert sim["stop_reason"] == "criteria_passed" and sim["turns"] == 1
    assert sim["turn_checks"][0]["status"] == "SUCCESS"


def test_dialog_token_budget(tmp_path: Path) -> None:
    run_dir, _ = run(tmp_path, _doc("budget", max_total_tokens=10), {"steps": AGENT, "simulator": ["more"]})
    record = task_json(run_dir, "budget")
    assert _sim(record)["stop_reason"] == "budget" and record["final_status"] != "ERROR"


def test_run_limit_breach(tmp_path: Path) -> None:
    doc = _doc("limit")
    doc["run_limits"] = {"max_total_tokens": 10}
    run_dir, _ = run(tmp_path, doc, {"steps": AGENT, "simulator": ["more"]})
    record = task_json(run_dir, "limit")
    assert _sim(record)["stop_reason"] == "run_limit_exceeded"
    assert record["final_status"] == "TOKEN_BUDGET_EXCEEDED"


def test_simulator_error_and_trials(tmp_path: Path) -> None:
    run_dir, _ = run(tmp_path, _doc("err", n_trials=2), {"steps": AGENT, "simulator": []})
    for replicate in ("00", "01"):
        sim = _sim(task_json(run_dir, "err", replicate))
        assert sim["stop_reason"] == "error" and sim["simulator_failures"] == 1
        assert "simulator: section has only 0 lines" in sim["simulator_error"]
        assert sim["n_trials"] == 2 and sim["replicate_index"] == int(replicate)
