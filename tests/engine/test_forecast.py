"""The cost forecast: which source prices a unit, the ranges, and reading earlier runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coder_eval.engine.forecast import (
    PerTurn,
    UnitSample,
    forecast_arms,
    forecast_lines,
    forecast_unit,
    read_history,
)
from coder_eval.engine.units import RunUnit, resolve_agent
from coder_eval.errors import UsageError
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.task import TaskDefinition
from coder_eval.pricing import pricing_for


def _unit(
    tmp_path: Path,
    task_id: str = "t",
    model: str | None = "claude-sonnet-4-5",
    max_turns: int | None = 10,
    variant: str = "a",
) -> RunUnit:
    doc = {
        "task_id": task_id,
        "description": "d",
        "initial_prompt": "p",
        "agent": {"type": "claude-code", **({"model": model} if model else {})},
        "run_limits": {"max_turns": max_turns} if max_turns else {},
        "success_criteria": [{"type": "file_exists", "path": "x", "description": "x"}],
    }
    task = LoadedTask(TaskDefinition.model_validate(doc), tmp_path / f"{task_id}.yaml")
    return RunUnit(task=task, agent=resolve_agent(task), variant_id=variant)


def _sample(
    task_id: str, output: int, model: str | None = "claude-sonnet-4-5", agent: str = "claude-code"
) -> UnitSample:
    return UnitSample(task_id, agent, model, 1000, output, 0, 0)


SONNET = pricing_for("claude-sonnet-4-5")


def test_task_history_gives_the_least_and_most_a_unit_used(tmp_path: Path) -> None:
    assert SONNET is not None
    history = [_sample("t", 100), _sample("t", 300), _sample("other", 5000)]
    f = forecast_unit(_unit(tmp_path), history, None)
    assert f.source == "task history" and f.samples == 2
    assert f.low == pytest.approx(SONNET.cost(1000, 100)) and f.high == pytest.approx(SONNET.cost(1000, 300))


def test_other_tasks_of_the_agent_and_model_when_the_task_never_ran(tmp_path: Path) -> None:
    history = [_sample("other", 100), _sample("else", 900), _sample("t", 5, model="gpt-5", agent="codex")]
    f = forecast_unit(_unit(tmp_path), history, None)
    assert f.source == "agent history" and f.samples == 2


def test_per_turn_assumption_spans_one_turn_to_max_turns(tmp_path: Path) -> None:
    assert SONNET is not None
    f = forecast_unit(_unit(tmp_path, max_turns=10), [], PerTurn.parse("2000:100"))
    assert f.source == "per-turn assumption"
    assert f.low == pytest.approx(SONNET.cost(2000, 100)) and f.high == pytest.approx(10 * SONNET.cost(2000, 100))


def test_nothing_to_go_on_or_no_price_is_never_zero(tmp_path: Path) -> None:
    assert forecast_unit(_unit(tmp_path), [], None).source == "no estimate"
    assert forecast_unit(_unit(tmp_path, max_turns=None), [], PerTurn(1, 1)).source == "no estimate"
    assert forecast_unit(_unit(tmp_path, model="no-such-model"), [], PerTurn(1, 1)).source == "unpriced"
    history = [_sample("t", 10, model="no-such-model")]
    assert forecast_unit(_unit(tmp_path, model=None), history, None).source == "unpriced"


def test_arms_sum_their_units_and_the_total_names_what_is_missing(tmp_path: Path) -> None:
    units = [_unit(tmp_path, variant="a"), _unit(tmp_path, variant="a"), _unit(tmp_path, "u", variant="b")]
    history = [_sample("t", 100)]
    arms = forecast_arms(units, [*history], None)
    assert [(a.variant_id, a.units) for a in arms] == [("a", 2), ("b", 1)]
    assert arms[0].sources == {"task history": 2} and arms[1].sources == {"agent history": 1}
    lines = forecast_lines(arms, 1, Path("runs"), 0)
    assert lines[0] == "cost forecast (1 earlier unit(s) under runs):" and lines[-1].startswith("  total: 3 unit(s)")
    lone = forecast_arms([_unit(tmp_path, model="gpt-5")], history, None)
    assert "plus 1 unit(s) without an estimate" in forecast_lines(lone, 1, Path("runs"), 2)[-3]


def test_per_turn_tokens_must_be_in_colon_out() -> None:
    assert PerTurn.parse("20000:1500") == PerTurn(20000, 1500)
    with pytest.raises(UsageError, match="IN:OUT"):
        PerTurn.parse("20000")


def test_history_reads_each_run_once_and_counts_unreadable_records(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    record = {
        "task_id": "t",
        "agent_type": "claude-code",
        "model_used": "script",
        "total_token_usage": {"uncached_input_tokens": 10, "output_tokens": 5},
        "iterations": [{"model_used": "claude-sonnet-4-5", "provider_call_costs": [{"model": "claude-haiku-4-5"}]}],
    }
    good = runs / "r1" / "default" / "t" / "00"
    good.mkdir(parents=True)
    (good / "task.json").write_text(json.dumps(record), encoding="utf-8")
    idle = runs / "r1" / "default" / "t" / "01"
    idle.mkdir(parents=True)
    (idle / "task.json").write_text(json.dumps({**record, "total_token_usage": {}}), encoding="utf-8")
    bad = runs / "r2" / "default" / "t" / "00"
    bad.mkdir(parents=True)
    (bad / "task.json").write_text("{not json", encoding="utf-8")
    (runs / "latest").symlink_to(runs / "r1")
    samples, unreadable = read_history(runs)
    assert samples == [UnitSample("t", "claude-code", "claude-haiku-4-5", 10, 5, 0, 0)]  # the gateway's model
    assert unreadable == 1
    assert read_history(tmp_path / "missing") == ([], 0)
