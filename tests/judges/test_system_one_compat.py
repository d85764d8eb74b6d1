"""system_one_judge's 0.12 fields: scoring over an answer distribution, its own endpoint, key, timeout, state cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.criteria.system_one_judge import scored_credit
from coder_eval.judges.services import JudgeServices
from coder_eval.models.criteria import parse_criterion
from coder_eval.models.criteria_judges import ChoiceQuestion, NoulQuestion, ScoreQuestion
from coder_eval.models.telemetry import TurnRecord

SCALE = ScoreQuestion(instructions="q", criteria=["bad", "ok", "good"])  # credits 0, 0.5, 1
YES_NO = NoulQuestion(instructions="q")
VALUED = ChoiceQuestion(instructions="q", criteria=["x", "y", "z"], values={"x": 1.0, "y": 0.5})


@pytest.mark.parametrize(
    ("question", "raw", "expected", "argmax"),
    [
        (SCALE, {"answer": "ok", "distribution": {"bad": 0.2, "ok": 0.3, "good": 0.5}}, 0.65, 1.0),
        (SCALE, {"answer": "ok"}, 0.5, 0.5),  # no distribution: the answer given, either way
        (YES_NO, {"answer": True, "distribution": {"yes": 0.8, "no": 0.2}}, 0.8, 1.0),
        (YES_NO, {"answer": True, "distribution": {"yes": 0.3, "no": 0.7}}, 0.3, 0.0),
        (VALUED, {"answer": "y", "distribution": {"x": 2, "y": 2, "z": 4}}, 0.375, 0.0),  # normalised; z wins
        (VALUED, {"answer": "x", "distribution": {"x": 0.5, "y": 0.5}}, 0.75, 1.0),  # a tie goes to the first option
        (SCALE, {"answer": "good", "distribution": {"great": 1.0}}, 1.0, 1.0),  # unknown options: ignored
    ],
)
def test_expected_and_argmax_scoring(question: Any, raw: dict[str, Any], expected: float, argmax: float) -> None:
    assert scored_credit(question, raw, "expected")[0] == pytest.approx(expected)
    assert scored_credit(question, raw, "argmax")[0] == pytest.approx(argmax)


SEEN: list[dict[str, Any]] = []
ANSWERS: dict[str, Any] = {}


class _Endpoint(BaseHTTPRequestHandler):
    """A Messages-compatible judge server: answers the forced tool with ANSWERS (after a delay, if asked)."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        SEEN.append({"path": self.path, "key": self.headers.get("x-api-key"), "body": body})
        time.sleep(float(ANSWERS.get("_delay", 0)))
        tool = body["tools"][0]["name"]
        answers = {k: v for k, v in ANSWERS.items() if not k.startswith("_")}
        reply = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "tool_use", "id": "tu_1", "name": tool, "input": {"answers": answers}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 300, "output_tokens": 20},
        }
        data = json.dumps(reply).encode()
        try:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except BrokenPipeError:  # the judge gave up first (the timeout test)
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[str]:
    SEEN.clear()
    ANSWERS.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def rubric(endpoint: str, **fields: Any) -> Any:
    return parse_criterion(
        {
            "type": "system_one_judge",
            "description": "rubric",
            "prompt": "Grade notes.txt.",
            "files": ["notes.txt"],
            "questions": {"quality": {"type": "score", "instructions": "how good?", "criteria": ["bad", "ok", "good"]}},
            "base_url": endpoint,
            "api_key_env": "JUDGE_KEY_FOR_TEST",
            **fields,
        }
    )


def grade_without_gateway(tmp_path: Path, spec: Any) -> Any:
    """Grade under -b bedrock (no gateway): the judge calls its endpoint itself."""
    (tmp_path / "notes.txt").write_text("x" * 5000, encoding="utf-8")
    services = JudgeServices(backend="bedrock", criteria=[spec], out_dir=tmp_path)
    ctx = CheckContext(root=tmp_path, turns=[TurnRecord(iteration=1)], judges=services)
    return grade([spec], ctx), services


@pytest.mark.parametrize(("scoring", "score"), [("expected", 0.65), ("argmax", 1.0)])
def test_own_endpoint_with_its_key_and_scoring(
    tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch, scoring: str, score: float
) -> None:
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", "sekrit")
    ANSWERS["quality"] = {"answer": "ok", "distribution": {"bad": 0.2, "ok": 0.3, "good": 0.5}}
    graded, services = grade_without_gateway(tmp_path, rubric(endpoint, scoring=scoring))
    (result,) = graded.results
    assert result.score == pytest.approx(score) and result.error is None, result.details
    (seen,) = SEEN
    assert seen["path"] == "/v1/messages" and seen["key"] == "sekrit"
    assert services.info["judge_transport"] == "endpoint"
    assert services.spend.get("judge").input_tokens == 300


def test_max_state_chars_caps_the_context_and_says_so(tmp_path: Path, endpoint: str, monkeypatch) -> None:
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", "k")
    ANSWERS["quality"] = {"answer": "good"}
    graded, _ = grade_without_gateway(tmp_path, rubric(endpoint, max_state_chars=1000))
    (result,) = graded.results
    prompt = SEEN[0]["body"]["messages"][0]["content"]
    assert "[... truncated:" in prompt and prompt.count("x") < 1100
    assert "judge context cut to max_state_chars (1000 of" in result.details


def test_timeout_seconds_bounds_the_call(tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_KEY_FOR_TEST", "k")
    ANSWERS.update({"quality": {"answer": "good"}, "_delay": 3})
    started = time.monotonic()
    graded, _ = grade_without_gateway(tmp_path, rubric(endpoint, timeout_seconds=0.5))
    assert time.monotonic() - started < 2.5
    (result,) = graded.results
    assert result.score == 0.0 and "timed out after 0.5s" in (result.error or "")


def test_a_missing_key_variable_means_the_judge_cannot_run(tmp_path: Path, endpoint: str, monkeypatch) -> None:
    monkeypatch.delenv("JUDGE_KEY_FOR_TEST", raising=False)
    graded, _ = grade_without_gateway(tmp_path, rubric(endpoint))
    assert graded.unavailable and "JUDGE_KEY_FOR_TEST" in graded.unavailable[0]
    assert SEEN == []


def test_api_key_env_needs_base_url_and_base_url_must_be_http() -> None:
    base = {
        "type": "system_one_judge",
        "description": "r",
        "prompt": "p",
        "questions": {"q": {"type": "noul", "instructions": "i"}},
    }
    with pytest.raises(ValueError, match="set base_url too"):
        parse_criterion({**base, "api_key_env": "K"})
    with pytest.raises(ValueError, match="http:// or https://"):
        parse_criterion({**base, "base_url": "file:///etc/passwd"})


@pytest.mark.slow
def test_under_a_gateway_the_endpoint_call_is_relayed_and_recorded(tmp_path: Path, endpoint: str) -> None:
    ANSWERS["quality"] = {"answer": "good", "distribution": {"ok": 0.5, "good": 0.5}}
    doc = {
        "task_id": "own-endpoint",
        "description": "a rubric judged on its own endpoint",
        "agent": {"type": "none"},
        "sandbox": {
            "driver": "tempdir",
            "template_sources": [{"type": "starter_files", "files": [{"path": "notes.txt", "content": "notes\n"}]}],
        },
        "success_criteria": [rubric(endpoint).model_dump(exclude_unset=True)],
    }
    task = tmp_path / "task.yaml"
    task.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "API_BACKEND", "AWS_"))}
    env["JUDGE_KEY_FOR_TEST"] = "relayed-key"
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "run", str(task), "-b", "direct", "--run-dir", "run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    record = json.loads((tmp_path / "run" / "default" / "own-endpoint" / "00" / "task.json").read_text())
    (result,) = record["success_criteria_results"]
    assert result["score"] == pytest.approx(0.75) and result["error"] is None, proc.stderr[-2000:]
    assert [s["key"] for s in SEEN] == ["relayed-key"]
    assert record["environment_info"]["judge_transport"] == "gateway (endpoint)"
    assert record["judge_token_usage"]["uncached_input_tokens"] == 300
