"""The grading side's pre-run check: what each judge and the simulated user need, per backend."""

from __future__ import annotations

from typing import Any

import pytest

from coder_eval.engine.judge_check import judge_needs, need_problems
from coder_eval.gateway.providers import ProviderSet
from coder_eval.models.task import TaskDefinition

CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "AWS_BEARER_TOKEN_BEDROCK",
               "AWS_REGION", "CODER_EVAL_UPSTREAM_ANTHROPIC", "JUDGE_KEY")  # fmt: skip


@pytest.fixture(autouse=True)
def _no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)


def _task(*criteria: dict[str, Any], route: dict[str, Any] | None = None, **extra: Any) -> TaskDefinition:
    doc: dict[str, Any] = {
        "task_id": "t",
        "description": "d",
        "initial_prompt": "p",
        "success_criteria": list(criteria),
        **extra,
    }
    if route is not None:
        doc["checker_context"] = {"api_route": route}
    return TaskDefinition.model_validate(doc)


LLM = {"type": "llm_judge", "prompt": "grade", "description": "judged"}
AGENT = {"type": "agent_judge", "prompt": "grade", "description": "agent judged"}


def _kinds(task: TaskDefinition, backend: str) -> list[tuple[str, str]]:
    return [(n.where, n.need) for n in judge_needs(task, backend)]


def test_script_needs_nothing_and_replay_only_a_direct_judge_agent() -> None:
    task = _task(LLM, AGENT, route={"route": "bedrock"})
    assert judge_needs(task, "script") == []
    assert _kinds(task, "replay") == [("success_criteria[1]", "bedrock")]  # the agent judge calls Bedrock itself


@pytest.mark.parametrize("backend", ["direct", "record", "litellm"])
def test_gateway_backends_need_the_gateway_credential(backend: str) -> None:
    both = [("success_criteria[0]", "gateway"), ("success_criteria[1]", "gateway")]
    assert _kinds(_task(LLM, AGENT), backend) == both


def test_bedrock_backend_and_routes() -> None:
    assert _kinds(_task(LLM), "bedrock") == [("success_criteria[0]", "bedrock")]
    assert _kinds(_task(LLM, route={"route": "direct"}), "bedrock") == [("success_criteria[0]", "anthropic")]
    assert _kinds(_task(LLM, route={"route": "bedrock"}), "direct") == [("success_criteria[0]", "bedrock")]
    litellm = {"route": "litellm", "model": "m", "env_params": {"api_key": "JUDGE_KEY"}}
    needs = judge_needs(_task(LLM, route=litellm), "record")
    assert [(n.need, n.variables) for n in needs] == [("litellm", ("JUDGE_KEY",))]


def test_disabled_judges_and_own_endpoints() -> None:
    assert judge_needs(_task({**LLM, "enabled": False}), "direct") == []
    question = {"type": "choice", "instructions": "ok?", "criteria": ["no", "yes"], "expected": "yes"}
    own = {"type": "system_one_judge", "description": "s", "prompt": "grade", "questions": {"ok": question},
           "base_url": "http://127.0.0.1:9", "api_key_env": "JUDGE_KEY"}  # fmt: skip
    assert [(n.need, n.variables) for n in judge_needs(_task(own), "direct")] == [("endpoint", ("JUDGE_KEY",))]
    assert judge_needs(_task({**own, "api_key_env": None}), "direct") == []
    assert judge_needs(_task(own), "replay") == []


def test_the_simulated_user() -> None:
    sim = {"enabled": True, "persona": "a user", "goal": "a file"}
    task = _task({"type": "file_exists", "path": "a", "description": "d"}, simulation=sim)
    assert _kinds(task, "record") == [("simulation", "gateway")]
    assert _kinds(task, "bedrock") == [("simulation", "bedrock")]
    assert judge_needs(task, "replay") == []


def test_problems_name_the_variable_and_clear_when_it_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    providers = ProviderSet.build()
    (need,) = judge_needs(_task(LLM), "direct")
    (message, fix), *_ = need_problems(need, "direct", providers, {})
    assert "llm_judge cannot reach its model under -b direct" in message and "ANTHROPIC_API_KEY" in fix
    assert not list(need_problems(need, "direct", providers, {"ANTHROPIC_API_KEY": "k"}))
    (bedrock,) = judge_needs(_task(LLM), "bedrock")
    assert [m for m, _ in need_problems(bedrock, "bedrock", providers, {})] == [
        "llm_judge cannot reach its model under -b bedrock: Bedrock needs $AWS_BEARER_TOKEN_BEDROCK, which is not set",
        "llm_judge cannot reach its model under -b bedrock: Bedrock needs $AWS_REGION, which is not set",
    ]
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "t")
    monkeypatch.setenv("AWS_REGION", "eu-north-1")
    assert not list(need_problems(bedrock, "bedrock", providers, {}))
