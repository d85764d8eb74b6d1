"""The `none` agent: no model, no process. The sandbox, pre_run and criteria still run."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from coder_eval.agents.base import Agent, ShouldStop
from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import AgentEndEvent, AgentStartEvent, StreamCallback
from coder_eval.models.agent_configs import NoAgentConfig
from coder_eval.models.telemetry import TurnRecord


class NoneAgent(Agent[NoAgentConfig]):
    """Answers every turn at once with nothing: zero tool calls, zero tokens, zero cost."""

    supports_cooperative_stop = True

    async def start(
        self,
        working_directory: Path,
        *,
        env_path_prepend: list[Path] | None = None,
        plugin_tools_dir: Path | None = None,
    ) -> None:
        self.working_directory = working_directory
        self.state = "started"

    async def communicate(
        self,
        user_input: str,
        *,
        stream_callback: StreamCallback | None = None,
        timeout: float | None = None,
        max_turns: int | None = None,
        should_stop: ShouldStop | None = None,
    ) -> TurnRecord:
        iteration = self._begin_turn()
        collector = EventCollector(iteration=iteration, forward=stream_callback, prompt=user_input)
        collector(AgentStartEvent(agent_type="none", prompt=user_input))
        collector(AgentEndEvent(status="ok"))
        record = collector.build_turn_record(ended_at=datetime.now(UTC))
        self._end_turn_ok()
        return record

    async def stop(self) -> None:
        self._mark_stopped()
