"""The shared shape of an agent driven as one JSON-lines CLI process per turn (pi, gemini-cli).

A subclass says how to build the command line and environment for a turn and which translator
reads the CLI's events; this class finds the binary, owns the private home outside the sandbox,
runs the process through the shared pump (turn cap, cooperative stop, kill on timeout) and turns
a bad exit into a transient or a crash error with the CLI's own words attached.
"""

from __future__ import annotations

import shutil
from abc import abstractmethod
from pathlib import Path
from typing import Any, Protocol

from coder_eval.agents.base import Agent, ConfigT, Turn, TurnEnd
from coder_eval.agents.errors import AgentCrashError, TransientAgentError
from coder_eval.agents.jsonl_cli import JsonlProcess, private_dir
from coder_eval.agents.pump import pump
from coder_eval.sandbox.environment import SandboxEnvironment

TRANSIENT_MARKS = ("429", "500", "502", "503", "529", "rate limit", "overloaded", "unavailable", "resource_exhausted")


class Translator(Protocol):
    """What the base class needs from a kind's event translator."""

    session_id: str | None
    error: str | None

    def feed(self, event: dict[str, Any]) -> None: ...

    def is_tool_start(self, event: dict[str, Any]) -> bool: ...

    def problem(self) -> str | None: ...


class CliAgent(Agent[ConfigT]):
    """One CLI process per turn, a session carried across turns, a private home per unit."""

    system_prompt_semantics = "append"
    label = "the CLI"
    """How errors name the program (`Pi`, `Gemini CLI`)."""

    def __init__(self, config: ConfigT, *, task_id: str, env: dict[str, str] | None = None) -> None:
        super().__init__(config, task_id=task_id, env=env)
        self.session_id: str | None = None
        self.home: Path | None = None
        self.cli: str | None = None
        self.process: JsonlProcess | None = None

    async def prepare(self, sandbox: SandboxEnvironment) -> None:
        binary = type(self).kind.binary
        explicit = getattr(self.config, "cli_path", None)
        self.cli = explicit or (binary.locate() if binary is not None else None)
        if self.cli is None:
            hint = binary.install if binary is not None else "install it"
            raise AgentCrashError(f"no {self.kind.name} CLI found: run `{hint}` or set agent.cli_path")
        self.home = Path(private_dir(f"{self.kind.name}-", sandbox.home_dir))
        self.setup_home(self.home)

    def setup_home(self, home: Path) -> None:
        """Write the CLI's private configuration under `home` (called once per unit)."""

    @abstractmethod
    def turn_argv(self, turn: Turn) -> list[str]:
        """The command line of one turn (resuming `self.session_id` when set)."""

    @abstractmethod
    def turn_env(self) -> dict[str, str]:
        """The CLI's environment: the engine's env plus the kind's own switches."""

    @abstractmethod
    def translator(self, turn: Turn) -> Translator:
        """A fresh translator feeding `turn.emit`."""

    def environment_info(self) -> dict[str, Any]:
        name = self.kind.name.replace("-", "_")
        return {
            "system_prompt_semantics": self.system_prompt_semantics,
            f"{name}_cli": self.cli,
            f"{name}_session_id": self.session_id,
        }

    async def run_turn(self, turn: Turn) -> TurnEnd:
        assert self.sandbox is not None and self.cli is not None
        self.process = JsonlProcess(self.sandbox.agent_launch(self.turn_argv(turn), self.turn_env()))
        translator = self.translator(turn)
        outcome = await pump(self.process, turn, translator.feed, translator.is_tool_start)
        self.session_id = translator.session_id or self.session_id
        if outcome.cut is not None:
            return TurnEnd(status=outcome.cut)
        problem = translator.problem()
        if outcome.exit_code != 0 or translator.error is not None or problem is not None:
            raise self.failure(translator.error or problem, outcome.exit_code)
        return TurnEnd()

    def failure(self, detail: str | None, code: int | None) -> Exception:
        """The error for a failed run: transient when the provider said so (never a budget refusal)."""
        assert self.process is not None
        stderr = self.process.stderr_text()
        reason = f"{self.label} exited {code}: {detail or 'it printed no error'}"
        if stderr:
            reason += f" (stderr: {stderr})"
        text = (reason).lower()
        transient = any(mark in text for mark in TRANSIENT_MARKS) and "budget exceeded" not in text
        return TransientAgentError(reason) if transient else AgentCrashError(reason)

    def kill_sync(self) -> None:
        if self.process is not None:
            self.process.kill()

    async def release(self) -> None:
        if self.process is not None:
            await self.process.close()
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
