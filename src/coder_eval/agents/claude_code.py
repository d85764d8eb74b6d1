"""The `claude-code` agent: the real Claude Code CLI driven through the Claude Agent SDK.

The CLI talks to the model gateway (ANTHROPIC_BASE_URL in the env the harness
passes in), runs with a private HOME, and leads its own process group so a
turn timeout kills it and everything it spawned.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from coder_eval.agents.base import Agent, ShouldStop
from coder_eval.agents.claude_code_events import SdkTranslator
from coder_eval.agents.claude_code_options import cli_env, isolated_home, resolve_cli, sdk_options, write_launcher
from coder_eval.agents.collector import EventCollector
from coder_eval.agents.errors import AgentCrashError, TransientAgentError
from coder_eval.agents.events import AgentEndEvent, AgentStartEvent, StreamCallback
from coder_eval.models.agent_configs import ClaudeCodeConfig
from coder_eval.models.telemetry import TurnRecord

_TRANSIENT = ("rate_limit", "overloaded", "server_error", "api_error", "529", "500", "502", "503", "429")


class ClaudeCodeAgent(Agent[ClaudeCodeConfig]):
    """One Claude Code session per task; later turns resume it."""

    supports_cooperative_stop = True
    system_prompt_semantics = "append"

    def __init__(self, config: ClaudeCodeConfig, *, task_id: str, env: dict[str, str] | None = None) -> None:
        super().__init__(config, task_id=task_id, env=env)
        self.session_id: str | None = None
        self.home: Path | None = None
        self.launcher: Path | None = None
        self.pidfile: Path | None = None
        self.cli_env: dict[str, str] = {}
        self.stderr_tail: list[str] = []

    async def start(
        self,
        working_directory: Path,
        *,
        env_path_prepend: list[Path] | None = None,
        plugin_tools_dir: Path | None = None,
    ) -> None:
        self.working_directory = working_directory
        self.home = Path(tempfile.mkdtemp(prefix="coder-eval-home-"))
        cli = resolve_cli(self.config)
        self.launcher, self.pidfile = write_launcher(self.home, cli)
        self.cli_env = cli_env(self.env, isolated_home(self.home), list(env_path_prepend or []))
        self.state = "started"

    def environment_info(self) -> dict[str, Any]:
        semantics = "replace" if self.config.system_prompt_mode == "replace" else "append"
        return {"system_prompt_semantics": semantics, "claude_code_cli": self.config.cli_path or "bundled"}

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
        collector(AgentStartEvent(agent_type="claude-code", model=self.config.model, prompt=user_input))
        translator = SdkTranslator(collector)
        try:
            stopped = await self._stream(user_input, translator, max_turns, should_stop)
        except asyncio.CancelledError:
            self._crash(collector, "cancelled")
            collector(AgentEndEvent(status="timeout"))
            raise
        except Exception as exc:
            reason = f"{exc.__class__.__name__}: {exc}" + self._stderr_note()
            self._crash(collector, reason)
            collector(AgentEndEvent(status="crashed", error=reason))
            if translator.api_error and any(t in translator.api_error for t in _TRANSIENT):
                raise TransientAgentError(reason) from exc
            raise AgentCrashError(reason) from exc
        return self._finish(collector, translator, stopped)

    async def _stream(
        self, prompt: str, translator: SdkTranslator, max_turns: int | None, should_stop: ShouldStop | None
    ) -> bool:
        from claude_agent_sdk import query

        assert self.working_directory is not None and self.launcher is not None
        self.stderr_tail = []
        options = sdk_options(
            self.config,
            cwd=self.working_directory,
            env=self.cli_env,
            cli=self.launcher,
            max_turns=max_turns,
            resume=self.session_id,
            stderr=self._on_stderr,
        )
        stream = query(prompt=prompt, options=options)
        try:
            async for message in stream:
                translator.feed(message)
                if should_stop is not None and should_stop():
                    return True
        finally:
            with contextlib.suppress(Exception):
                await stream.aclose()  # type: ignore[attr-defined]
        return False

    def _finish(self, collector: EventCollector, translator: SdkTranslator, stopped: bool) -> TurnRecord:
        result = translator.result
        self.session_id = translator.session_id or self.session_id
        subtype = getattr(result, "subtype", "") or ""
        exhausted = subtype == "error_max_turns"
        if result is not None and result.is_error and not exhausted and not stopped:
            reason = f"Claude Code ended with {subtype or 'an error'}: {result.result or translator.api_error}"
            self._crash(collector, reason)
            collector(AgentEndEvent(status="crashed", error=reason))
            status = getattr(result, "api_error_status", None)
            transient = (status is not None and (status == 429 or status >= 500)) or any(
                t in (translator.api_error or "") for t in _TRANSIENT
            )
            raise TransientAgentError(reason) if transient else AgentCrashError(reason)
        end_status = "stopped" if stopped else ("max_turns" if exhausted else "ok")
        collector(AgentEndEvent(status=end_status, error=None))
        record = collector.build_turn_record(ended_at=datetime.now(UTC), max_turns_exhausted=exhausted)
        denials = list(getattr(result, "permission_denials", None) or [])
        if denials and record.result_summary is not None:
            record.result_summary.result = f"permission denials: {denials}"
        self._end_turn_ok()
        return record

    def _on_stderr(self, line: str) -> None:
        self.stderr_tail = [*self.stderr_tail, line][-20:]

    def _stderr_note(self) -> str:
        return f" (CLI stderr: {' | '.join(self.stderr_tail)[-600:]})" if self.stderr_tail else ""

    def kill_sync(self) -> None:
        """Kill the CLI's whole process group (safe from any thread)."""
        if self.pidfile is None or not self.pidfile.is_file():
            return
        try:
            pid = int(self.pidfile.read_text().strip())
        except ValueError:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)

    def kill(self) -> None:
        self.kill_sync()

    async def stop(self) -> None:
        self.kill_sync()
        if self.home is not None:
            import shutil

            shutil.rmtree(self.home, ignore_errors=True)
        self._mark_stopped()
