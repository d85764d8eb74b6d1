"""The Agent contract: start in a sandbox environment, run turns, stop — with the lifecycle kept here.

A kind implements one hook, `run_turn`: it does the work of one user message, emitting events
into `turn.emit`, and returns how the turn ended. The base class owns the rest of the lifecycle,
so no implementation has to remember it: the turn counter and state, the start and end events,
the TurnRecord (always built by the EventCollector), and, when the hook raises or is cancelled,
the partial turn the orchestrator keeps (`pending_turn`) before the error goes on.

An agent written to the reference system's guide overrides `start(working_directory, ...)`,
`communicate` and `stop` itself and calls the lifecycle helpers (`_begin_turn`, `_end_turn_ok`,
`_mark_stopped`); such a class is recognised when it is defined and driven through an adapter
(`agents/reference_spi.py`), so both kinds of subclass run unchanged.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from coder_eval.agents.collector import EventCollector
from coder_eval.agents.errors import AgentCrashError, AgentError
from coder_eval.agents.events import AgentEndEvent, AgentStartEvent, StreamCallback
from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.telemetry import TurnRecord

if TYPE_CHECKING:
    from coder_eval.agents.kind import AgentKind
    from coder_eval.sandbox.environment import SandboxEnvironment

ConfigT = TypeVar("ConfigT", bound=BaseAgentConfig)
AgentState = Literal["created", "started", "in_turn", "idle", "stopped"]
ShouldStop = Callable[[], bool]


@dataclass
class Turn:
    """What `run_turn` gets: the user message, where to send events, and the turn's limits."""

    prompt: str
    iteration: int
    emit: EventCollector
    """Send every event here (tool calls, messages, usage); it builds the TurnRecord."""
    max_turns: int | None = None
    timeout: float | None = None
    should_stop: ShouldStop | None = None
    """Poll between tool calls when the kind supports cooperative stop; True means end the turn now."""


@dataclass(frozen=True)
class TurnEnd:
    """How a turn ended when it did not fail."""

    status: Literal["ok", "stopped", "max_turns"] = "ok"
    note: str | None = None
    """Extra text for the turn's result summary (e.g. permission denials)."""


class Agent(ABC, Generic[ConfigT]):
    """One agent instance per unit. Subclasses implement `run_turn` (and optionally the hooks below)."""

    kind: ClassVar[AgentKind]
    """Set by registration: the kind's declared capabilities."""
    system_prompt_semantics: ClassVar[str] = "unknown"
    """How `system_prompt` reaches the model: appended to the agent's own, replacing it, or unknown."""
    reference_spi: ClassVar[bool] = False
    """True for a subclass written to the reference system's guide (it implements `communicate`)."""

    def __init_subclass__(cls, *, native: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if native:
            cls.reference_spi = False
            return
        if "communicate" in vars(cls):
            cls.reference_spi = True
        if cls.reference_spi and "run_turn" not in vars(cls):
            cls.run_turn = _driven_by_communicate  # type: ignore[method-assign]

    def __init__(self, config: ConfigT, *, task_id: str = "", env: dict[str, str] | None = None) -> None:
        self.config = config
        self.task_id = task_id
        self.env = dict(env or {})
        """The environment the agent's CLI gets (built by the engine from the sandbox and the route)."""
        self.sandbox: SandboxEnvironment | None = None
        self.working_directory: Path | None = None
        self.pending_turn: TurnRecord | None = None
        self.iteration = 0
        self.state: AgentState = "created"

    # -- lifecycle (final) ---------------------------------------------------------------------

    async def start(self, sandbox: SandboxEnvironment) -> None:
        """Get ready to work in `sandbox` (spawn nothing that outlives `stop`)."""
        self.sandbox = sandbox
        self.working_directory = sandbox.workspace
        await self.prepare(sandbox)
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
        """Send one user message and work until the agent's reply is done."""
        self._begin_turn()
        kind = getattr(type(self), "kind", None)
        collector = EventCollector(
            iteration=self.iteration,
            forward=stream_callback,
            prompt=user_input,
            vocabulary=kind.tools if kind is not None else None,
        )
        collector(AgentStartEvent(agent_type=self._kind_name(), model=self.config.model, prompt=user_input))
        turn = Turn(user_input, self.iteration, collector, max_turns, timeout, should_stop)
        try:
            end = await self.run_turn(turn)
        except BaseException as exc:
            self._keep_partial(collector, exc)
            if isinstance(exc, AgentError) or not isinstance(exc, Exception):
                raise
            raise AgentCrashError(f"{exc.__class__.__name__}: {exc}") from exc
        collector(AgentEndEvent(status=end.status))
        record = collector.build_turn_record(ended_at=datetime.now(UTC), max_turns_exhausted=end.status == "max_turns")
        if end.note and record.result_summary is not None:
            record.result_summary.result = end.note
        self._end_turn_ok()
        return record

    async def stop(self) -> None:
        """Release every resource; idempotent."""
        self.kill_sync()
        await self.release()
        self._mark_stopped()

    # -- the turn lifecycle (shared by both kinds of subclass) ---------------------------------

    def _begin_turn(self) -> None:
        """A turn starts: no partial turn is pending, the counter moves on."""
        self.pending_turn = None
        self.iteration += 1
        self.state = "in_turn"

    def _end_turn_ok(self) -> None:
        """The turn finished without failing."""
        self.state = "idle"

    def _mark_stopped(self) -> None:
        """`stop` is done: nothing of the agent runs any more."""
        self.state = "stopped"

    # -- hooks ---------------------------------------------------------------------------------

    @abstractmethod
    async def run_turn(self, turn: Turn) -> TurnEnd:
        """Do the work of one user message. Raise TransientAgentError (worth a retry) or
        AgentCrashError; cancellation (a timeout) may arrive at any await."""

    async def prepare(self, sandbox: SandboxEnvironment) -> None:
        """Called by `start`: locate the CLI, make private homes, ask the sandbox how to launch."""

    async def release(self) -> None:
        """Called by `stop` after `kill_sync`: remove what `prepare` made."""

    def kill_sync(self) -> None:
        """End everything the agent spawned, now. Called from any thread; must not await."""

    async def kill(self) -> None:
        """The awaitable form of `kill_sync`."""
        self.kill_sync()

    def environment_info(self) -> dict[str, Any]:
        return {"system_prompt_semantics": self.system_prompt_semantics}

    @property
    def supports_cooperative_stop(self) -> bool:
        """Whether this kind honours `should_stop` (declared at registration)."""
        kind = getattr(type(self), "kind", None)
        return bool(kind is not None and kind.cooperative_stop)

    # -- helpers -------------------------------------------------------------------------------

    def discard_pending_turn(self) -> None:
        self.pending_turn = None

    def get_state(self) -> AgentState:
        return self.state

    def _kind_name(self) -> str:
        kind = getattr(type(self), "kind", None)
        return kind.name if kind is not None else self.config.type

    def _keep_partial(self, collector: EventCollector, exc: BaseException) -> None:
        """Keep the partial turn for the orchestrator and close the event stream."""
        cancelled = not isinstance(exc, Exception)
        reason = "cancelled" if cancelled else (str(exc) or exc.__class__.__name__)
        self.pending_turn = collector.build_turn_record(ended_at=datetime.now(UTC), crashed=True, crash_reason=reason)
        collector(AgentEndEvent(status="timeout" if cancelled else "crashed", error=None if cancelled else reason))
        self.state = "idle"


async def _driven_by_communicate(self: Agent[Any], turn: Turn) -> TurnEnd:
    """`run_turn` of a reference-style agent: never called, the adapter drives `communicate` instead."""
    raise TypeError(f"{type(self).__name__} implements communicate(); run it through create_agent")
