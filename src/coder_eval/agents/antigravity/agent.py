"""The `antigravity` implementation: Google's Antigravity SDK driving its local harness.

One harness (and one SDK conversation) per unit, opened on the first turn and kept across
turns. The harness reaches the gateway through a `GeminiAPIEndpoint` whose base URL is the
unit's route; every tool call is approved (`policy.allow_all()`), file tools are confined to
the workspace and the skill roots, and the harness's own API retries are off (the harness
retries, with its own accounting). The turn cap counts tool calls; a cap, a cooperative stop or a
timeout kills the harness's process group, and a later turn starts a new harness that resumes
the saved conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path
from typing import Any

from google.antigravity import (
    Agent as SdkAgent,
)
from google.antigravity import (
    GeminiAPIEndpoint,
    GeminiModelOptions,
    LocalAgentConfig,
    ModelAPIRetryConfig,
    ModelTarget,
    ModelType,
    RetryConfig,
    ThinkingLevel,
)
from google.antigravity.hooks import policy
from google.antigravity.types import SessionContinuationMode

from coder_eval.agents.antigravity.config import AntigravityConfig
from coder_eval.agents.antigravity.harness import make_home, remove, scratch_root, sees_host_paths, write_launcher
from coder_eval.agents.antigravity.steps import StepTranslator, usage_between
from coder_eval.agents.base import Agent, Turn, TurnEnd
from coder_eval.agents.errors import AgentCrashError, TransientAgentError
from coder_eval.agents.skill_roots import skill_roots
from coder_eval.common.process_tree import kill_tree
from coder_eval.sandbox.environment import SandboxEnvironment

DEFAULT_MODEL = "gemini-3.5-flash"
_TRANSIENT_CODES = (429, 500, 502, 503, 504)


class AntigravityAgent(Agent[AntigravityConfig]):
    """One Antigravity conversation per unit, on the SDK's local harness."""

    system_prompt_semantics = "append"

    def __init__(self, config: AntigravityConfig, *, task_id: str, env: dict[str, str] | None = None) -> None:
        super().__init__(config, task_id=task_id, env=env)
        self.root: Path | None = None
        self.home: Path | None = None
        self.pidfile: Path | None = None
        self.launcher: Path | None = None
        self.conversation_id: str | None = None
        self._sdk: SdkAgent | None = None
        self._stack: contextlib.AsyncExitStack | None = None

    @property
    def model(self) -> str:
        return self.config.model or os.environ.get("ANTIGRAVITY_MODEL") or DEFAULT_MODEL

    async def prepare(self, sandbox: SandboxEnvironment) -> None:
        from coder_eval.agents.antigravity import find_harness

        harness = find_harness()
        if harness is None:
            raise AgentCrashError("no Antigravity harness: pip install 'coder-eval[antigravity]'")
        # under the sandbox's private directory: the harness runs inside and must see its files
        self.root = scratch_root(sandbox.home_dir)
        self.home = make_home(self.root, shared_cache=sees_host_paths(sandbox))
        env = {**self.env, "HOME": str(self.home), "NO_COLOR": "1"}
        launch = sandbox.agent_launch([harness], env)
        self.launcher, self.pidfile = write_launcher(self.root, launch.argv, launch.env)

    def environment_info(self) -> dict[str, Any]:
        return {
            "system_prompt_semantics": self.system_prompt_semantics,
            "antigravity_model": self.model,
            "antigravity_conversation_id": self.conversation_id,
        }

    def sdk_config(self) -> LocalAgentConfig:
        assert self.root is not None and self.launcher is not None and self.working_directory is not None
        endpoint = GeminiAPIEndpoint(
            base_url=self.env.get("GOOGLE_GEMINI_BASE_URL"),
            api_key=self.env.get("GEMINI_API_KEY") or "coder-eval-gateway",
            options=GeminiModelOptions(thinking_level=ThinkingLevel(self.config.thinking_level)),
        )
        target = ModelTarget(name=self.model, types=[ModelType.TEXT, ModelType.IMAGE], endpoint=endpoint)
        roots = [str(r) for r in skill_roots(self.config)]
        options: dict[str, Any] = {}
        if self.conversation_id is not None:
            options = {
                "conversation_id": self.conversation_id,
                "session_continuation_mode": SessionContinuationMode.CREATE_OR_RESUME,
            }
        return LocalAgentConfig(
            models=[target],
            api_key=endpoint.api_key,
            policies=[policy.allow_all()],
            workspaces=[str(self.working_directory), *roots],
            skills_paths=roots or None,
            system_instructions=self.config.system_prompt or None,
            save_dir=str(self.root / "save"),
            app_data_dir=str(self.root / "app"),
            env={"ANTIGRAVITY_HARNESS_PATH": str(self.launcher)},
            retry_config=RetryConfig(api_retry=ModelAPIRetryConfig(max_retries=0)),
            **options,
        )

    async def _conversation(self) -> Any:
        if self._sdk is None:
            assert self.root is not None
            (self.root / "save").mkdir(exist_ok=True)
            self._stack = contextlib.AsyncExitStack()
            try:
                started = await self._stack.enter_async_context(SdkAgent(self.sdk_config()))
            except Exception as exc:
                await self._close()
                raise AgentCrashError(f"the Antigravity harness did not start: {exc}") from exc
            self._sdk = started
            self.conversation_id = started.conversation_id or self.conversation_id
        return self._sdk.conversation

    async def run_turn(self, turn: Turn) -> TurnEnd:
        conversation = await self._conversation()
        translator = StepTranslator(turn.emit)
        before = conversation.total_usage.model_copy()
        try:
            cut = await self._steps(conversation, turn, translator)
        except asyncio.CancelledError:
            self.kill_sync()
            await asyncio.shield(self._close())
            raise
        except Exception as exc:
            self.kill_sync()
            await self._close()
            raise AgentCrashError(f"the Antigravity harness failed: {exc.__class__.__name__}: {exc}") from exc
        if cut is not None:
            self.kill_sync()
            await self._close()
            return TurnEnd(status=cut)
        translator.finish(usage_between(before, conversation.total_usage))
        if translator.error is not None:
            reason = f"Antigravity model call failed ({translator.http_code or 'no status'}): {translator.error}"
            transient = translator.http_code in _TRANSIENT_CODES and "budget exceeded" not in translator.error
            raise TransientAgentError(reason) if transient else AgentCrashError(reason)
        return TurnEnd()

    async def _steps(self, conversation: Any, turn: Turn, translator: StepTranslator) -> Any:
        """Send the prompt and feed steps until the harness is idle; "max_turns"/"stopped" on a cut."""
        await conversation.send(turn.prompt)
        async for step in conversation.receive_steps():
            capped = turn.max_turns is not None and turn.emit.visible_turn_count >= turn.max_turns
            starting = translator.starts_tool(step)
            translator.feed(step)
            if starting and capped:
                return "max_turns"  # the call past the cap is recorded, unresolved, and cut
            if turn.should_stop is not None and turn.should_stop():
                return "stopped"
        if self._harness_gone():
            raise AgentCrashError("the Antigravity harness exited in the middle of the turn")
        return None

    def _harness_gone(self) -> bool:
        pid = self._pid()
        return pid is not None and not Path(f"/proc/{pid}").exists()

    def _pid(self) -> int | None:
        if self.pidfile is None or not self.pidfile.is_file():
            return None
        try:
            return int(self.pidfile.read_text().strip())
        except ValueError:
            return None

    def kill_sync(self) -> None:
        """Kill the harness's process group and everything it started (safe from any thread)."""
        pid = self._pid()
        if pid is not None:
            kill_tree(pid, with_descendants=True)
            if self.pidfile is not None:
                self.pidfile.unlink(missing_ok=True)

    async def _close(self) -> None:
        stack, self._stack, self._sdk = self._stack, None, None
        if stack is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(stack.aclose(), 10.0)

    async def release(self) -> None:
        await self._close()
        remove(self.root)
