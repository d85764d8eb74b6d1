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

import claude_agent_sdk  # noqa: F401  # loaded with the agent, before any task starts (~0.8 s)

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
        self.cli: str | None = None
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
        self.cli = cli
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
            if _hit_turn_cap(translator, exc):
                # The SDK raises once the CLI reports its turn cap; that is a clean stop, graded as usual.
                return self._finish(collector, translator, stopped=False, capped=True)
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

    def _finish(
        self, collector: EventCollector, translator: SdkTranslator, stopped: bool, *, capped: bool = False
    ) -> TurnRecord:
        result = translator.result
        self.session_id = translator.session_id or self.session_id
        subtype = getattr(result, "subtype", "") or ""
        exhausted = capped or subtype == "error_max_turns"
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
        kill_tree(pid, descendants=self.cli is not None and self.cli in _cmdline(pid))

    def kill(self) -> None:
        self.kill_sync()

    async def stop(self) -> None:
        self.kill_sync()
        if self.home is not None:
            import shutil

            shutil.rmtree(self.home, ignore_errors=True)
        self._mark_stopped()


def _cmdline(pid: int) -> str:
    """The command line of `pid` ("" when it is gone or unreadable)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return ""


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids, from /proc (empty where there is no /proc)."""
    tree: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return tree
    for name in names:
        if not name.isdigit():
            continue
        try:
            raw = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        fields = raw.rsplit(b")", 1)[-1].split()
        if len(fields) > 1:
            tree.setdefault(int(fields[1]), []).append(int(name))
    return tree


def _descendants(*roots: int, tree: dict[int, list[int]] | None = None) -> set[int]:
    """Every process below `roots` (not the roots themselves)."""
    tree = _children() if tree is None else tree
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for child in tree.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found - set(roots)


def _signal(pid: int, sig: signal.Signals, *, group: bool = False) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        (os.killpg if group else os.kill)(pid, sig)


def _hit_turn_cap(translator: SdkTranslator, exc: Exception) -> bool:
    subtype = getattr(translator.result, "subtype", None)
    return subtype == "error_max_turns" or "maximum number of turns" in str(exc).lower()


def kill_tree(root: int, *, descendants: bool) -> None:
    """SIGKILL `root`'s process group and, with `descendants`, every process below `root`.

    Everything is stopped first, so nothing forks a child between the scan and the kill.
    """
    _signal(root, signal.SIGSTOP, group=True)
    stopped: set[int] = set()
    for _ in range(20 if descendants else 0):  # a few rounds settle it: stopped processes cannot fork
        pending = _descendants(root, *stopped) - stopped
        if not pending:
            break
        for pid in pending:
            _signal(pid, signal.SIGSTOP)
        stopped |= pending
    _signal(root, signal.SIGKILL, group=True)
    for pid in stopped:
        _signal(pid, signal.SIGKILL)
