"""The `codex` implementation: one `codex exec --json` process per turn, resumed by thread id.

Codex runs with a private CODEX_HOME outside TMPDIR (its workspace-write sandbox refuses a home
under it), exactly the environment the engine built (sandbox env + the route's key), and every
look-up that would leave the machine switched off. The harness enforces the turn cap (counted in
tool calls, as Codex has none of its own), cooperative stop and timeouts by killing the CLI's
process group.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from coder_eval.agents.base import Agent, Turn, TurnEnd
from coder_eval.agents.codex import find_codex
from coder_eval.agents.codex.command import DEFAULT_MODEL, exec_argv, install_skills, sandbox_mode
from coder_eval.agents.codex.config import CodexConfig
from coder_eval.agents.codex.events import CodexTranslator
from coder_eval.agents.errors import AgentCrashError, TransientAgentError
from coder_eval.agents.jsonl_cli import JsonlProcess, private_dir
from coder_eval.agents.pump import pump
from coder_eval.models.providers import public_endpoint
from coder_eval.sandbox.environment import SandboxEnvironment

_TRANSIENT = ("429", "500", "502", "503", "529", "rate limit", "overloaded", "server_error", "stream disconnected")


class CodexAgent(Agent[CodexConfig]):
    """One Codex thread per unit; later turns resume it."""

    system_prompt_semantics = "append"

    def __init__(self, config: CodexConfig, *, task_id: str, env: dict[str, str] | None = None) -> None:
        super().__init__(config, task_id=task_id, env=env)
        self.thread_id: str | None = None
        self.home: Path | None = None
        self.cli: str | None = None
        self.process: JsonlProcess | None = None
        self.skills: list[str] = []

    @property
    def model(self) -> str:
        return self.config.model or self.env.get("CODEX_MODEL") or os.environ.get("CODEX_MODEL") or DEFAULT_MODEL

    async def prepare(self, sandbox: SandboxEnvironment) -> None:
        self.cli = self.config.cli_path or find_codex()
        if self.cli is None:
            raise AgentCrashError("no Codex CLI: pip install 'coder-eval[codex]' or set agent.cli_path")
        self.home = Path(private_dir("codex-", sandbox.home_dir))
        self.skills = install_skills(self.home, self.config)

    def environment_info(self) -> dict[str, Any]:
        return {
            "system_prompt_semantics": self.system_prompt_semantics,
            "codex_cli": self.cli,
            "codex_sandbox": sandbox_mode(self.config),
            "codex_thread_id": self.thread_id,
            "codex_skills": self.skills,
            "codex_unenforced_tool_lists": bool(self.config.allowed_tools or self.config.disallowed_tools),
        }

    def _cli_env(self) -> dict[str, str]:
        assert self.home is not None
        env = dict(self.env)
        env.update(
            {
                "HOME": str(self.home),
                "CODEX_HOME": str(self.home),
                "XDG_CONFIG_HOME": str(self.home / ".config"),
                "XDG_CACHE_HOME": str(self.home / ".cache"),
                "CODEX_NON_INTERACTIVE": "1",
                "NO_COLOR": "1",
            }
        )
        env.setdefault("CODEX_API_KEY", "coder-eval-gateway")
        return env

    async def run_turn(self, turn: Turn) -> TurnEnd:
        assert self.sandbox is not None and self.cli is not None and self.working_directory is not None
        base_url = self.env.get("CODEX_BASE_URL") or public_endpoint("openai")
        argv = exec_argv(
            self.cli,
            self.config,
            prompt=turn.prompt,
            workspace=self.working_directory,
            base_url=base_url,
            model=self.model,
            resume=self.thread_id,
        )
        self.process = JsonlProcess(self.sandbox.agent_launch(argv, self._cli_env()))
        translator = CodexTranslator(turn.emit, self.model)
        outcome = await pump(self.process, turn, translator.feed, translator.is_tool_start)
        self.thread_id = translator.thread_id or self.thread_id
        if outcome.cut is not None:
            return TurnEnd(status=outcome.cut)
        if translator.failure is not None or outcome.exit_code != 0 or not translator.completed:
            raise self._error(translator, outcome.exit_code)
        return TurnEnd()

    def _error(self, translator: CodexTranslator, code: int | None) -> Exception:
        assert self.process is not None
        detail = translator.failure or "; ".join(n for n in translator.notes if n) or "no turn.completed event"
        reason = f"Codex exited {code}: {detail}"
        stderr = self.process.stderr_text()
        if stderr:
            reason += f" (stderr: {stderr})"
        transient = any(t in detail.lower() for t in _TRANSIENT) and "budget exceeded" not in detail
        return TransientAgentError(reason) if transient else AgentCrashError(reason)

    def kill_sync(self) -> None:
        if self.process is not None:
            self.process.kill()

    async def release(self) -> None:
        if self.process is not None:
            await self.process.close()
        if self.home is not None:
            shutil.rmtree(self.home, ignore_errors=True)
