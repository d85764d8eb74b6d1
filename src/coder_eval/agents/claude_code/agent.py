"""The `claude-code` implementation: one SDK `query` per turn, session resume, cooperative stop.

The CLI talks to the model gateway (ANTHROPIC_BASE_URL in the env the engine builds), runs with a
private HOME, is started through the sandbox environment's launch line, and leads its own process
group so a turn timeout kills it and everything it spawned.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Any

import claude_agent_sdk  # noqa: F401  # loaded with the agent, before any task starts (~0.8 s)

from coder_eval.agents.base import Agent, ShouldStop, Turn, TurnEnd
from coder_eval.agents.claude_code.config import ClaudeCodeConfig
from coder_eval.agents.claude_code.events import SdkTranslator
from coder_eval.agents.claude_code.options import (
    cli_env,
    exact_env,
    isolated_home,
    resolve_cli,
    sdk_options,
    write_launcher,
)
from coder_eval.agents.errors import AgentCrashError, TransientAgentError
from coder_eval.common.process_tree import cmdline, kill_tree
from coder_eval.sandbox.environment import SandboxEnvironment

_TRANSIENT = ("rate_limit", "overloaded", "server_error", "api_error", "529", "500", "502", "503", "429")


class ClaudeCodeAgent(Agent[ClaudeCodeConfig]):
    """One Claude Code session per unit; later turns resume it."""

    def __init__(self, config: ClaudeCodeConfig, *, task_id: str, env: dict[str, str] | None = None) -> None:
        super().__init__(config, task_id=task_id, env=env)
        self.session_id: str | None = None
        self.home: Path | None = None
        self.launcher: Path | None = None
        self.pidfile: Path | None = None
        self.cli: str | None = None
        self.cli_env: dict[str, str] = {}
        self.launch_argv: list[str] = []
        self.stderr_tail: list[str] = []

    async def prepare(self, sandbox: SandboxEnvironment) -> None:
        # self.home (host side, private) holds the launcher and pidfile; the CLI's own HOME is
        # under the sandbox's private directory, where it can write inside the sandbox too.
        self.home = Path(tempfile.mkdtemp(prefix="coder-eval-agent-"))
        self.cli = resolve_cli(self.config)
        cli_home = isolated_home(sandbox.home_dir / "claude-code")
        launch = sandbox.agent_launch([self.cli], cli_env(self.env, cli_home))
        self.launch_argv = launch.argv
        self.launcher, self.pidfile = write_launcher(self.home, launch.argv)
        self.cli_env = launch.env

    def environment_info(self) -> dict[str, Any]:
        semantics = "replace" if self.config.system_prompt_mode == "replace" else "append"
        return {"system_prompt_semantics": semantics, "claude_code_cli": self.config.cli_path or "bundled"}

    async def run_turn(self, turn: Turn) -> TurnEnd:
        translator = SdkTranslator(turn.emit)
        try:
            stopped = await self._stream(turn.prompt, translator, turn.max_turns, turn.should_stop)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if _hit_turn_cap(translator, exc):
                # The SDK raises once the CLI reports its turn cap; that is a clean stop, graded as usual.
                return self._finish(translator, stopped=False, capped=True)
            reason = f"{exc.__class__.__name__}: {exc}" + self._stderr_note()
            if translator.api_error and any(t in translator.api_error for t in _TRANSIENT):
                raise TransientAgentError(reason) from exc
            raise AgentCrashError(reason) from exc
        return self._finish(translator, stopped)

    async def _stream(
        self, prompt: str, translator: SdkTranslator, max_turns: int | None, should_stop: ShouldStop | None
    ) -> bool:
        from claude_agent_sdk import query

        assert self.working_directory is not None and self.home is not None
        self.stderr_tail = []
        env, unset = exact_env(self.cli_env)  # the SDK merges os.environ: blank it, then drop the names
        self.launcher, self.pidfile = write_launcher(self.home, self.launch_argv, unset)
        options = sdk_options(
            self.config,
            cwd=self.working_directory,
            env=env,
            cli=self.launcher,
            max_turns=max_turns,
            resume=self.session_id,
            stderr=self._on_stderr,
        )
        consumer = asyncio.ensure_future(self._consume(query(prompt=prompt, options=options), translator, should_stop))
        try:
            # Shielded, so a turn timeout or task deadline reaches this frame first: the CLI's
            # group is killed before the SDK's own cleanup runs, which would otherwise give the
            # CLI a grace period (5 s, then SIGTERM and 5 s more) while the caller waits for it.
            stopped = await asyncio.shield(consumer)
        except asyncio.CancelledError:
            self.kill_sync()
            consumer.cancel()
            with contextlib.suppress(BaseException):
                await consumer
            raise
        if stopped:
            # A cooperative stop leaves the CLI mid-turn: end it (and what it spawned) now.
            self.kill_sync()
        # The CLI has exited; forget its pid so a later kill cannot hit a recycled pid.
        if self.pidfile is not None:
            self.pidfile.unlink(missing_ok=True)
        return stopped

    @staticmethod
    async def _consume(stream: Any, translator: SdkTranslator, should_stop: ShouldStop | None) -> bool:
        """Feed the SDK's messages to the translator; True when `should_stop` ended the turn."""
        try:
            async for message in stream:
                translator.feed(message)
                if should_stop is not None and should_stop():
                    return True
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()
        return False

    def _finish(self, translator: SdkTranslator, stopped: bool, *, capped: bool = False) -> TurnEnd:
        result = translator.result
        self.session_id = translator.session_id or self.session_id
        subtype = getattr(result, "subtype", "") or ""
        exhausted = capped or subtype == "error_max_turns"
        if result is not None and result.is_error and not exhausted and not stopped:
            reason = f"Claude Code ended with {subtype or 'an error'}: {result.result or translator.api_error}"
            status = getattr(result, "api_error_status", None)
            transient = (status is not None and (status == 429 or status >= 500)) or any(
                t in (translator.api_error or "") for t in _TRANSIENT
            )
            raise TransientAgentError(reason) if transient else AgentCrashError(reason)
        denials = list(getattr(result, "permission_denials", None) or [])
        note = f"permission denials: {denials}" if denials else None
        return TurnEnd(status="stopped" if stopped else ("max_turns" if exhausted else "ok"), note=note)

    def _on_stderr(self, line: str) -> None:
        self.stderr_tail = [*self.stderr_tail, line][-20:]

    def _stderr_note(self) -> str:
        return f" (CLI stderr: {' | '.join(self.stderr_tail)[-600:]})" if self.stderr_tail else ""

    def kill_sync(self) -> None:
        """Kill the CLI's whole process group and every process it spawned (safe from any thread)."""
        if self.pidfile is None or not self.pidfile.is_file():
            return
        try:
            pid = int(self.pidfile.read_text().strip())
        except ValueError:
            return
        # Claude Code runs each Bash command in a shell of its own session, out of the CLI's
        # group: those are found as its descendants, while the CLI still runs (checked by its
        # command line, so a recycled pid is never walked).
        kill_tree(pid, with_descendants=self.cli is not None and self.cli in cmdline(pid))

    async def release(self) -> None:
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)


def _hit_turn_cap(translator: SdkTranslator, exc: Exception) -> bool:
    subtype = getattr(translator.result, "subtype", None)
    return subtype == "error_max_turns" or "maximum number of turns" in str(exc).lower()
