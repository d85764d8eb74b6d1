"""The `opencode` implementation: one `opencode run --format json` process per turn.

OpenCode gets its configuration in OPENCODE_CONFIG_CONTENT (a provider pointing at the
gateway), a private HOME/XDG tree outside the sandbox, the models fetch switched off and its
npm registry pointed at a closed loopback port (so it never looks a plugin up). Its errors go
to its log file only, so a silent failure is explained from the tail of that log.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from coder_eval.agents.base import Agent, Turn, TurnEnd
from coder_eval.agents.errors import AgentCrashError, TransientAgentError
from coder_eval.agents.jsonl_cli import JsonlProcess, private_dir
from coder_eval.agents.opencode import OPENCODE
from coder_eval.agents.opencode.command import cli_env, run_argv, skill_paths
from coder_eval.agents.opencode.config import OpenCodeConfig
from coder_eval.agents.opencode.events import OpenCodeTranslator
from coder_eval.agents.pump import pump
from coder_eval.sandbox.environment import SandboxEnvironment

_TRANSIENT = ("429", "500", "502", "503", "529", "rate limit", "overloaded", "timed out")


class OpenCodeAgent(Agent[OpenCodeConfig]):
    """One OpenCode session per unit; later turns continue it."""

    system_prompt_semantics = "append"

    def __init__(self, config: OpenCodeConfig, *, task_id: str, env: dict[str, str] | None = None) -> None:
        super().__init__(config, task_id=task_id, env=env)
        self.session_id: str | None = None
        self.home: Path | None = None
        self.cli: str | None = None
        self.process: JsonlProcess | None = None

    async def prepare(self, sandbox: SandboxEnvironment) -> None:
        binary = OPENCODE.binary
        self.cli = self.config.cli_path or (binary.locate() if binary is not None else None)
        if self.cli is None:
            raise AgentCrashError("no opencode CLI: run `coder-eval agents install opencode` or set agent.cli_path")
        self.home = Path(private_dir("opencode-", sandbox.home_dir))

    def environment_info(self) -> dict[str, Any]:
        return {
            "system_prompt_semantics": self.system_prompt_semantics,
            "opencode_cli": self.cli,
            "opencode_session_id": self.session_id,
            "opencode_skill_paths": skill_paths(self.config),
            # its `skill` tool lists a skill's files with ripgrep; without `rg` the call fails
            "opencode_ripgrep": shutil.which("rg", path=self.env.get("PATH")),
        }

    async def run_turn(self, turn: Turn) -> TurnEnd:
        assert self.sandbox is not None and self.cli is not None and self.home is not None
        assert self.working_directory is not None
        argv = run_argv(
            self.cli,
            self.config,
            prompt=turn.prompt,
            workspace=self.working_directory,
            session=self.session_id,
            title=self.task_id,
        )
        env = cli_env(self.env, self.config, self.home)
        self.process = JsonlProcess(self.sandbox.agent_launch(argv, env))
        translator = OpenCodeTranslator(turn.emit)
        outcome = await pump(self.process, turn, translator.feed, translator.is_tool_start)
        self.session_id = translator.session_id or self.session_id
        if outcome.cut is not None:
            return TurnEnd(status=outcome.cut)
        problem = translator.problem(require_tokens=self.config.require_token_telemetry)
        if outcome.exit_code != 0 or translator.error is not None or problem is not None:
            raise self._error(translator, outcome.exit_code, problem)
        note = translator.warning
        return TurnEnd(note=note)

    def _error(self, translator: OpenCodeTranslator, code: int | None, problem: str | None) -> Exception:
        assert self.process is not None
        detail = translator.error or problem or "the CLI printed no error"
        reason = f"OpenCode exited {code}: {detail}"
        log = self._log_tail()
        if log:
            reason += f" (log: {log})"
        elif self.process.stderr_text():
            reason += f" (stderr: {self.process.stderr_text()})"
        transient = any(t in (detail + log).lower() for t in _TRANSIENT) and "budget exceeded" not in detail + log
        return TransientAgentError(reason) if transient else AgentCrashError(reason)

    def _log_tail(self, limit: int = 1200) -> str:
        """The ERROR lines of the newest OpenCode log (it reports provider errors nowhere else)."""
        if self.home is None:
            return ""
        logs = sorted(self.home.glob(".local/share/opencode/log/*.log"), key=lambda p: p.stat().st_mtime)
        if not logs:
            return ""
        lines = logs[-1].read_text(encoding="utf-8", errors="replace").splitlines()
        errors = [line for line in lines if line.startswith("ERROR")] or lines[-5:]
        return " | ".join(errors[-6:])[-limit:]

    def kill_sync(self) -> None:
        if self.process is not None:
            self.process.kill()

    async def release(self) -> None:
        if self.process is not None:
            await self.process.close()
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
