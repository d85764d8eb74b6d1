"""The parity matrix: the example suite under every CLI agent gives the same criterion results.

One scripted trajectory per task, played on each agent's own tools by the scripted model: every
task must reach the same status and the same per-criterion scores as under claude-code, with
real tool calls and gateway-counted tokens (see bench/agent_parity.py for the printed table).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from cli_agents import CLI_KINDS, require_binary

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import agent_parity

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> list[agent_parity.Row]:
    run_dir = tmp_path_factory.mktemp("parity") / "claude-code"
    agent_parity.run_suite("claude-code", run_dir)
    rows = agent_parity.rows_of("claude-code", run_dir)
    assert rows, "claude-code produced no records"
    return rows


@pytest.mark.parametrize("kind", CLI_KINDS)
def test_example_suite_matches_claude_code(kind: str, baseline: list[agent_parity.Row], tmp_path: Path) -> None:
    require_binary(kind)
    proc = agent_parity.run_suite(kind, tmp_path / kind)
    rows = agent_parity.rows_of(kind, tmp_path / kind)
    assert {r.task for r in rows} == {r.task for r in baseline}, proc.stdout + proc.stderr
    assert agent_parity.differences([*baseline, *rows]) == []
    for row in rows:
        expected = next(b for b in baseline if b.task == row.task)
        assert row.status == expected.status, (row, proc.stdout)
        assert row.tool_calls > 0 and row.tokens > 0
        assert row.tokens == row.gateway_tokens, f"{row.task}: the agent's tokens are not the gateway's"
    assert any(r.status == "FAILURE" for r in rows), "the negative example must fail"
    assert sum(r.status == "SUCCESS" for r in rows) == len(rows) - 1
