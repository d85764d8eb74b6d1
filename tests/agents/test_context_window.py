"""agent.context_window: the kinds whose CLI can take it pass it on; every other kind refuses it at load."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_eval.agents.codex.command import exec_argv
from coder_eval.agents.codex.config import CodexConfig
from coder_eval.agents.pi.command import models_json
from coder_eval.agents.pi.config import PiConfig
from coder_eval.models.agent import parse_agent_config


def test_codex_passes_it_as_model_context_window() -> None:
    argv = exec_argv(
        "codex",
        CodexConfig(context_window=64000),
        prompt="p",
        workspace=Path("/w"),
        base_url="u",
        model="m",
        resume=None,
    )
    assert "model_context_window=64000" in argv
    plain = exec_argv("codex", CodexConfig(), prompt="p", workspace=Path("/w"), base_url="u", model="m", resume=None)
    assert not any("model_context_window" in a for a in plain)


def test_codex_sdk_options_cannot_set_it_behind_the_typed_field() -> None:
    with pytest.raises(ValueError, match="may not set model_context_window"):
        CodexConfig(sdk_options={"model_context_window": 1})


def test_pi_writes_it_into_the_models_file() -> None:
    (model,) = models_json(PiConfig(context_window=32000), "http://gw", "k")["providers"]["coder-eval"]["models"]
    assert model["contextWindow"] == 32000
    (bare,) = models_json(PiConfig(), "http://gw", "k")["providers"]["coder-eval"]["models"]
    assert "contextWindow" not in bare


@pytest.mark.parametrize("kind", ["claude-code", "opencode", "gemini-cli", "antigravity", "none"])
def test_other_kinds_refuse_it_at_load(kind: str) -> None:
    with pytest.raises(ValueError, match=f"agent type '{kind}' cannot be given a context_window"):
        parse_agent_config({"type": kind, "context_window": 1000})


def test_it_must_be_positive() -> None:
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        CodexConfig(context_window=0)
