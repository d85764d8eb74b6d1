"""A judge routed to Bedrock goes through its own gateway route: recorded, priced, and replayable.

A stand-in for Bedrock's invoke endpoint runs on loopback (AWS_ENDPOINT_URL_BEDROCK_RUNTIME points
the judge's transport at it); the agent is `none`, so no other model call is made.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from judge_e2e import results, task_json

SEEN: list[dict[str, Any]] = []


class _FakeBedrock(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        SEEN.append({"path": self.path, "auth": self.headers.get("authorization"), "body": body})
        tool = body["tools"][0]["name"]
        answer = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": self.path.split("/")[2],
            "content": [{"type": "tool_use", "id": "tu_1", "name": tool, "input": {"score": 0.75, "rationale": "ok"}}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1200, "output_tokens": 40},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def bedrock() -> Iterator[str]:
    SEEN.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeBedrock)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


TASK = {
    "task_id": "relayed",
    "description": "a judge on bedrock through the gateway",
    "agent": {"type": "none"},
    "sandbox": {
        "driver": "tempdir",
        "template_sources": [{"type": "starter_files", "files": [{"path": "poem.txt", "content": "a poem\n"}]}],
    },
    "checker_context": {"api_route": {"route": "bedrock"}},
    "success_criteria": [
        {"type": "llm_judge", "description": "graded", "prompt": "Grade poem.txt.", "files": ["poem.txt"]},
    ],
}


def _run(tmp_path: Path, backend: str, env_extra: dict[str, str], *args: str) -> dict[str, Any]:
    task = tmp_path / "task.yaml"
    task.write_text(yaml.safe_dump(TASK, sort_keys=False))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "ANTHROPIC_", "API_BACKEND"))}
    env.update(env_extra)
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "run", str(task), "-b", backend, "--run-dir", "run", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    record = task_json(tmp_path / "run", "relayed")
    record["_stderr"] = proc.stderr + proc.stdout
    return record


def test_bedrock_judge_is_recorded_priced_and_replayed(tmp_path: Path, bedrock: str) -> None:
    creds = {"AWS_BEARER_TOKEN_BEDROCK": "fake-token", "AWS_REGION": "eu-north-1"}
    cassettes = tmp_path / "cassettes"
    record = _run(
        tmp_path,
        "record",
        {**creds, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME": bedrock},
        "--cassettes",
        str(cassettes),
    )
    result = results(record)["graded"]
    assert result["score"] == pytest.approx(0.75) and result["error"] is None, record["_stderr"][-2000:]
    # the call reached "Bedrock" once, with the regional model id and the bearer token
    assert len(SEEN) == 1 and SEEN[0]["path"] == "/model/eu.anthropic.claude-sonnet-4-6/invoke"
    assert SEEN[0]["auth"] == "Bearer fake-token" and SEEN[0]["body"]["anthropic_version"]
    # ... and went through the judge's gateway route: recorded and priced there
    assert record["environment_info"]["judge_transport"] == "gateway (bedrock)"
    assert record["judge_token_usage"]["uncached_input_tokens"] == 1200
    assert record["judge_cost_usd"] is not None and record["judge_cost_usd"] > 0
    assert list(cassettes.rglob("*.json")), "no cassette was kept for the judge's call"
    # replay serves it from the cassette: no credentials, no Bedrock
    SEEN.clear()
    import shutil

    shutil.rmtree(tmp_path / "run")
    replayed = _run(tmp_path, "replay", {}, "--cassettes", str(cassettes))
    again = results(replayed)["graded"]
    assert again["score"] == pytest.approx(0.75) and again["error"] is None, replayed["_stderr"][-2000:]
    assert SEEN == []


def test_transport_source_keeps_the_upstream_bill_and_maps_failures() -> None:
    import asyncio

    from coder_eval.engine.judge_upstream import TransportSource
    from coder_eval.gateway.types import GatewayError, ModelRequest
    from coder_eval.judges.transport import JudgeCallError, ModelAnswer, ModelCall

    class Fake:
        name = "litellm"

        def __init__(self, fail: bool) -> None:
            self.fail, self.seen = fail, []

        def call(self, request: ModelCall) -> ModelAnswer:
            self.seen.append(request)
            if self.fail:
                raise JudgeCallError("model call timed out after 3s")
            return ModelAnswer(
                tool_calls=[("submit_verdict", {"score": 1})],
                input_tokens=9,
                output_tokens=2,
                cost_usd=0.0123,
                model="azure/judge",
            )

    raw = {
        "model": "claude-x",
        "system": [{"type": "text", "text": "be fair"}],
        "messages": [{"role": "user", "content": "grade"}],
        "tools": [{"name": "submit_verdict", "description": "d", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "tool", "name": "submit_verdict"},
        "max_tokens": 100,
    }
    request = ModelRequest(protocol="anthropic", model="claude-x", messages=[], raw=raw)
    ok = Fake(fail=False)
    reply = asyncio.run(TransportSource(ok, timeout=7).reply(request))
    sent = ok.seen[0]
    assert sent.system == "be fair" and sent.tool is not None and sent.tool.name == "submit_verdict"
    assert sent.max_tokens == 100 and sent.timeout == 7
    assert reply.cost_usd == 0.0123 and reply.model == "azure/judge" and reply.stop_reason == "tool_use"
    assert reply.tool_calls[0].arguments == {"score": 1} and reply.usage.input_tokens == 9
    with pytest.raises(GatewayError) as failed:
        asyncio.run(TransportSource(Fake(fail=True)).reply(request))
    assert failed.value.status == 504 and "litellm" in failed.value.message
