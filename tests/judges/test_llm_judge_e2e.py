"""llm_judge end to end on the scripted model: Claude Code does the work, the script plays the judge."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from judge_e2e import claude_task, results, run, task_json

from coder_eval.agents.claude_code.options import bundled_cli

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bundled_cli() is None, reason="no bundled Claude Code CLI"),
]

SECRET = "the reference answer is forty-two bottles of lemonade"


def _judge(description: str, **extra: object) -> dict[str, object]:
    return {
        "type": "llm_judge",
        "description": description,
        "prompt": "Grade poem.txt.",
        "files": ["poem.txt"],
        **extra,
    }


def test_verdicts_and_failure_modes(tmp_path: Path) -> None:
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "answer.txt").write_text(SECRET + "\n")
    doc = claude_task(
        "judged",
        [
            _judge("passes", pass_threshold=0.8),
            _judge("fails", pass_threshold=0.8),
            _judge("no verdict"),
            _judge("malformed score"),
            _judge("missing score"),
        ],
        reference={"directory": "reference"},
    )
    script = {
        "steps": [{"write_file": {"path": "poem.txt", "content": "Python one\nPython two\n"}}, {"reply": "done"}],
        "judges": [
            {"criterion": 0, "verdict": {"score": 0.9, "rationale": f"Good; it matches: {SECRET}"}},
            {"criterion": "fails", "verdict": {"score": 0.3, "rationale": "too short"}},
            {"criterion": 2, "reply": "Looks fine to me."},
            {"criterion": 3, "verdict": {"score": "very good", "rationale": "x"}},
            {"criterion": 4, "verdict": {"rationale": "forgot the score"}},
        ],
    }
    run_dir, proc = run(tmp_path, doc, script)
    record = task_json(run_dir, "judged")
    by = results(record)
    assert by["passes"]["score"] == pytest.approx(0.9) and by["passes"]["error"] is None, proc.stderr
    assert by["fails"]["score"] == pytest.approx(0.3)
    assert "no verdict" in by["no verdict"]["error"]
    assert "not a number" in by["malformed score"]["error"]
    assert "no score" in by["missing score"]["error"]
    for name in ("no verdict", "malformed score", "missing score"):
        assert by[name]["score"] == 0.0 and by[name]["evaluation_status"] == "evaluated"
    assert record["final_status"] == "FAILURE"
    # The judge saw the reference, the persisted record and transcript do not hold it.
    unit = run_dir / "default" / "judged" / "00"
    assert SECRET not in (unit / "task.json").read_text()
    transcript = yaml.safe_load((unit / "judge-0.yaml").read_text())
    assert SECRET not in yaml.safe_dump(transcript)
    assert "REFERENCE_SOLUTION" in transcript["prompt"] and "removed" in transcript["prompt"]
    assert transcript["truncated"] is False and transcript["input_tokens"] > 0
    assert by["passes"]["transcript_path"] == "judge-0.yaml"
    assert record["environment_info"]["judge_transport"] == "gateway (script)"
    assert record["judge_cost_usd"] is not None


def test_timeout_scores_zero_with_error(tmp_path: Path) -> None:
    doc = claude_task(
        "slow",
        [_judge("slow judge", capture_transcript=False, max_transcript_chars=50)],
        run_limits={"turn_timeout": 3},
    )
    script = {
        "steps": [{"write_file": {"path": "poem.txt", "content": "p\n"}}],
        "judges": [{"criterion": 0, "delay": 8, "verdict": {"score": 1.0, "rationale": "late"}}],
    }
    run_dir, proc = run(tmp_path, doc, script)
    record = task_json(run_dir, "slow")
    result = results(record)["slow judge"]
    assert result["score"] == 0.0 and "timed out" in result["error"], proc.stderr
    assert not (run_dir / "default" / "slow" / "00" / "judge-0.yaml").exists()


def test_missing_script_entry_is_named(tmp_path: Path) -> None:
    doc = claude_task("unscripted", [_judge("lonely")])
    run_dir, _ = run(tmp_path, doc, {"steps": [{"reply": "ok"}]})
    result = results(task_json(run_dir, "unscripted"))["lonely"]
    assert result["score"] == 0.0 and "judges: entry for criterion 0" in result["error"]


def test_transcript_truncation_flag(tmp_path: Path) -> None:
    doc = claude_task("capped", [_judge("capped", max_transcript_chars=40)])
    script = {"steps": [], "judges": [{"criterion": 0, "verdict": {"score": 1.0, "rationale": "fine " * 40}}]}
    run_dir, _ = run(tmp_path, doc, script)
    transcript = yaml.safe_load((run_dir / "default" / "capped" / "00" / "judge-0.yaml").read_text())
    assert transcript["truncated"] is True
    assert len(transcript["prompt"]) <= 12


def test_a_regrade_cannot_call_the_judge_and_says_so_rather_than_scoring_zero(tmp_path: Path) -> None:
    """`evaluate RUN_DIR` has no model route: the judge keeps no verdict, and a gating judge makes it ERROR."""
    doc = claude_task("regraded", [_judge("judged", pass_threshold=0.8)])
    script = {
        "steps": [{"write_file": {"path": "poem.txt", "content": "Python one\n"}}, {"reply": "done"}],
        "judges": [{"criterion": 0, "verdict": {"score": 0.9, "rationale": "good"}}],
    }
    run_dir, proc = run(tmp_path, doc, script)
    assert task_json(run_dir, "regraded")["final_status"] == "SUCCESS", proc.stdout + proc.stderr
    graded = subprocess.run(
        [sys.executable, "-m", "coder_eval", "evaluate", str(run_dir), "--allow-recorded-commands"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    record = task_json(run_dir, "regraded")
    assert record["final_status"] == "ERROR", graded.stdout + graded.stderr
    (judged,) = record["success_criteria_results"]
    assert judged["evaluation_status"] == "not_evaluated"
    assert "judges grade only inside a run" in record["error_message"]
