"""The Agent contract: start, communicate (one turn), stop — with a shared turn lifecycle."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypeVar

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.events import StreamCallback
from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.telemetry import TurnRecord

ConfigT = TypeVar("ConfigT", bound=BaseAgentConfig)
AgentState = Literal["created", "started", "in_turn", "idle", "stopped"]
ShouldStop = Callable[[], bool]


class Agent(ABC, Generic[ConfigT]):
    """One agent instance per task replicate.

    Implementations call `_begin_turn()` at the top of `communicate`, `_end_turn_ok()`
    on success, and before raising mid-turn put a crashed TurnRecord on
    `pending_turn` (built by an EventCollector). `stop()` ends with `_mark_stopped()`.
    """

    supports_cooperative_stop: ClassVar[bool] = False
    system_prompt_semantics: ClassVar[str] = "unknown"

    def __init__(self, config: ConfigT, *, task_id: str, env: dict[str, str] | None = None) -> None:
        self.config = config
        self.task_id = task_id
        self.env = dict(env or {})
        self.working_directory: Path | None = None
        self.pending_turn: TurnRecord | None = None
        self.iteration = 0
        self.state: AgentState = "created"

    @abstractmethod
    async def start(
        self,
        working_directory: Path,
        *,
        env_path_prepend: list[Path] | None = None,
        plugin_tools_dir: Path | None = None,
    ) -> None:
        """Prepare to work in `working_directory` (spawn nothing that outlives `stop`)."""

    @abstractmethod
    async def communicate(
        self,
        user_input: str,
        *,
        stream_callback: StreamCallback | None = None,
        timeout: float | None = None,
        max_turns: int | None = None,
        should_stop: ShouldStop | None = None,
    ) -> TurnRecord:
        """Send one user message and work until the agent finishes its reply."""

    @abstractmethod
    async def stop(self) -> None:
        """Release every resource; idempotent."""

    def kill(self) -> None:
        """Forcefully end anything the agent spawned (default: nothing to kill)."""

    def kill_sync(self) -> None:
        """Like `kill`, callable from a non-asyncio thread; must not await."""
        self.kill()

    def environment_info(self) -> dict[str, Any]:
        return {"system_prompt_semantics": self.system_prompt_semantics}

    def _begin_turn(self) -> int:
        self.pending_turn = None
        self.iteration += 1
        self.state = "in_turn"
        return self.iteration

    def _end_turn_ok(self) -> None:
        self.state = "idle"

    def _mark_stopped(self) -> None:
        self.state = "stopped"

    def _crash(self, collector: EventCollector, reason: str) -> None:
        """Keep the partial turn for the orchestrator before raising."""
        self.pending_turn = collector.build_turn_record(ended_at=datetime.now(UTC), crashed=True, crash_reason=reason)
        self.state = "idle"

    def discard_pending_turn(self) -> None:
        self.pending_turn = None

    def get_state(self) -> AgentState:
        return self.state


def create_agent(kind: str, config: BaseAgentConfig, *, task_id: str, env: dict[str, str] | None = None) -> Agent[Any]:
    """Instantiate the registered agent class for `kind` with its matching config."""
    from coder_eval.agents.registry import AgentRegistry
    from coder_eval.models.agent import agent_config_class

    agent_class = AgentRegistry.agent_class(kind)
    if agent_class is None:
        raise LookupError(f"agent type {kind!r} has no implementation in this installation")
    expected = agent_config_class(kind)
    if not isinstance(config, expected):
        raise TypeError(f"agent type {kind!r} needs a {expected.__name__}, got {type(config).__name__}")
    agent: Agent[Any] = agent_class(config, task_id=task_id, env=env)
    return agent
