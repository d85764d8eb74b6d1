"""Agents written to the reference system's plugin guide, driven as native agents.

Such an agent subclasses `Agent` and implements the three methods that guide lists:
`start(working_directory, *, env_path_prepend=None, plugin_tools_dir=None)`, `communicate(...)`
returning a TurnRecord it built with an EventCollector, and `stop()`, calling `_begin_turn`,
`_end_turn_ok` and `_mark_stopped` itself and leaving a crashed turn on `pending_turn` before it
raises. `ReferenceAgentAdapter` wraps one so the engine sees the native contract
(`start(sandbox)`, `communicate`, `stop`, `kill_sync`); nothing else in the harness knows the
difference.

Such an agent runs in the harness's process, as the reference ran its agents: it is given the
workspace's host path and the sandbox's PATH entries, and whatever it launches is its own
business (it is trusted code the operator installed). It gets no model route: it reaches its
model the way it did under the reference, and reports tokens and cost in its TurnRecord.
"""

from __future__ import annotations

import inspect
from datetime import UTC, datetime
from typing import Any

from coder_eval.agents.base import Agent, ShouldStop, Turn, TurnEnd
from coder_eval.agents.errors import AgentCrashError, AgentError
from coder_eval.agents.events import StreamCallback
from coder_eval.models.agent import BaseAgentConfig
from coder_eval.models.telemetry import TurnRecord
from coder_eval.sandbox.environment import SandboxEnvironment


def _construct(cls: type[Agent[Any]], config: BaseAgentConfig, task_id: str, env: dict[str, str] | None) -> Agent[Any]:
    """`cls(config)` as the reference calls it, or with our keywords when its `__init__` takes them."""
    parameters = inspect.signature(cls.__init__).parameters
    takes_keywords = "task_id" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    agent = cls(config, task_id=task_id, env=env) if takes_keywords else cls(config)
    agent.task_id = task_id
    agent.env = dict(env or {})
    return agent


def adapt(
    cls: type[Agent[Any]], config: BaseAgentConfig, *, task_id: str, env: dict[str, str] | None
) -> ReferenceAgentAdapter:
    """A reference-style agent of class `cls`, ready for the engine."""
    return ReferenceAgentAdapter(_construct(cls, config, task_id, env))


class ReferenceAgentAdapter(Agent[BaseAgentConfig], native=True):
    """The native contract around an agent that implements `communicate` itself."""

    def __init__(self, inner: Agent[Any]) -> None:
        self.inner = inner
        super().__init__(inner.config, task_id=inner.task_id, env=inner.env)

    # The turn counter and the partial turn are the wrapped agent's own: it keeps them itself.
    @property
    def iteration(self) -> int:
        return self.inner.iteration

    @iteration.setter
    def iteration(self, value: int) -> None:
        self.inner.iteration = value

    @property
    def pending_turn(self) -> TurnRecord | None:
        return self.inner.pending_turn

    @pending_turn.setter
    def pending_turn(self, value: TurnRecord | None) -> None:
        self.inner.pending_turn = value

    @property
    def supports_cooperative_stop(self) -> bool:
        return self.inner.kind.cooperative_stop if hasattr(type(self.inner), "kind") else False

    async def start(self, sandbox: SandboxEnvironment) -> None:
        self.sandbox = self.inner.sandbox = sandbox
        self.working_directory = self.inner.working_directory = sandbox.workspace
        start: Any = self.inner.start  # the reference's signature: (working_directory, *, env_path_prepend, ...)
        await start(sandbox.workspace, env_path_prepend=sandbox.path_entries(), plugin_tools_dir=None)
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
        self.state = "in_turn"
        try:
            record = await self.inner.communicate(
                user_input,
                stream_callback=stream_callback,
                timeout=timeout,
                max_turns=max_turns,
                should_stop=should_stop,
            )
        except AgentError:
            self._keep_some_partial(user_input, None)
            raise
        except Exception as exc:
            reason = f"{exc.__class__.__name__}: {exc}"
            self._keep_some_partial(user_input, reason)
            raise AgentCrashError(reason) from exc
        finally:
            self.state = "idle"
        return self._settled(record, user_input)

    def _keep_some_partial(self, user_input: str, reason: str | None) -> None:
        """The guide asks for a crashed partial turn before raising; make one when the agent did not."""
        if self.inner.pending_turn is None:
            self.inner.pending_turn = TurnRecord(
                iteration=max(self.inner.iteration, 1),
                user_input=user_input,
                timestamp=datetime.now(UTC),
                crashed=True,
                crash_reason=reason or "the agent raised without keeping its partial turn",
            )

    def _settled(self, record: TurnRecord, user_input: str) -> TurnRecord:
        """Fill what a hand-driven collector may have left blank (the turn number, the prompt)."""
        if not isinstance(record, TurnRecord):
            raise AgentCrashError(
                f"{type(self.inner).__name__}.communicate returned {type(record).__name__}, not a TurnRecord"
            )
        update: dict[str, Any] = {}
        if record.iteration <= 0:
            update["iteration"] = max(self.inner.iteration, 1)
        if not record.user_input:
            update["user_input"] = user_input
        return record.model_copy(update=update) if update else record

    async def run_turn(self, turn: Turn) -> TurnEnd:  # pragma: no cover - communicate is overridden
        raise TypeError("the adapter drives communicate() directly")

    async def stop(self) -> None:
        await self.inner.stop()
        self.state = "stopped"

    def kill_sync(self) -> None:
        self.inner.kill_sync()

    def discard_pending_turn(self) -> None:
        self.inner.discard_pending_turn()

    def environment_info(self) -> dict[str, Any]:
        return {**self.inner.environment_info(), "agent_spi": "reference"}

    def _kind_name(self) -> str:
        return self.inner._kind_name()
