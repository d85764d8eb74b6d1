"""agent_judge's judge agent: the claude-code agent, in a copy of the unit's workspace, on a judge route.

The judge is the same Claude Code implementation the units run, started through the same sandbox
contract: `open_copy` builds a fresh environment of the unit's driver over a copy of the workspace
(the reference at `_reference/`, the security floor left out), and the CLI reaches the model
through the criterion's own gateway route (recorded, priced, budgeted; scripted under `-b script`).
Its configuration is hardened whatever the task says: no host or project settings
(`setting_sources=[]`), a read-only tool set unless the criterion lists more, and the built-in
tools limited to the allowed ones. The judge runs on an event loop of its own in a worker thread,
bounded by `turn_timeout` (and the unit's deadline); when it ends, however it ends, every process
of the copy is killed and the copy is deleted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coder_eval.agents.claude_code import CLAUDE_CODE, ClaudeCodeConfig
from coder_eval.agents.claude_code.options import find_cli
from coder_eval.agents.errors import AgentError
from coder_eval.agents.factory import create_agent
from coder_eval.agents.kind import RouteAddress
from coder_eval.judges.model_ids import bedrock_model_id, direct_model_id
from coder_eval.judges.services import Channel, JudgeAgentRequest, JudgeAgentRun, JudgeServices
from coder_eval.judges.transport import JudgeUnavailableError
from coder_eval.models.criteria_judges import AgentJudgeCriterion
from coder_eval.models.telemetry import TurnRecord
from coder_eval.sandbox.sandbox import Sandbox
from coder_eval.sandbox.workspace_copy import WorkspaceCopy, open_copy

READ_ONLY_TOOLS = ("Bash", "Read", "Glob", "Grep")
"""The judge's tools unless the criterion's `agent.allowed_tools` says otherwise."""
WRITING_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "WebFetch", "WebSearch")
"""Denied by default (the copy is thrown away, but a judge has no business editing it)."""
GRACE_SECONDS = 30.0
"""How long past its timeout the judge's thread is waited for (its processes are killed first)."""


def judge_config(spec: AgentJudgeCriterion, *, system: str, model: str) -> ClaudeCodeConfig:
    """The judge's claude-code config: the criterion's overrides over hardened defaults, floor enforced."""
    o = spec.agent
    allowed = list(o.allowed_tools) if o.allowed_tools is not None else list(READ_ONLY_TOOLS)
    denied = (
        list(o.disallowed_tools) if o.disallowed_tools is not None else [t for t in WRITING_TOOLS if t not in allowed]
    )
    return ClaudeCodeConfig(
        model=model,
        permission_mode=o.permission_mode or "default",
        allowed_tools=allowed,
        disallowed_tools=denied,
        setting_sources=[],  # the floor: no user, project or local settings, so no planted hook loads
        sdk_options={"tools": allowed, **o.sdk_options},
        system_prompt=system,
        ignore_patterns=o.ignore_patterns,
    )


def model_for(way: str, model: str) -> str:
    """The judge model's id as the route's upstream knows it."""
    if way == "bedrock":
        return bedrock_model_id(model, os.environ.get("AWS_REGION", "us-east-1"))
    return direct_model_id(model)


def tool_lines(record: TurnRecord | None, limit: int = 300) -> list[str]:
    """One line per tool call of the judge: name, arguments, status and the start of the result."""
    lines = []
    for c in record.commands if record is not None else []:
        args = json.dumps(c.parameters, default=str)[:limit]
        result = (c.result_summary or "")[:limit].replace("\n", " ")
        lines.append(f"{c.tool_name}({args}) -> {c.status}" + (f": {result}" if result else ""))
    return lines


def _tools() -> tuple[str, ...]:
    """The judge CLI's install directory, made visible to isolating drivers."""
    cli = find_cli()
    return (str(Path(cli).resolve().parent),) if cli else ()


@dataclass
class JudgeAgentRunner:
    """Runs judge agents for one unit (set on its JudgeServices by the orchestrator)."""

    sandbox: Sandbox
    services: JudgeServices
    task_id: str

    def __call__(self, request: JudgeAgentRequest) -> JudgeAgentRun:
        started = time.monotonic()
        run = JudgeAgentRun(model=request.model)
        spec = request.spec
        assert isinstance(spec, AgentJudgeCriterion)
        reference = self.services.reference_dir if request.include_reference else None
        try:
            copy = open_copy(
                self.sandbox, ignore_patterns=spec.agent.ignore_patterns, reference=reference, tools=_tools()
            )
        except Exception as exc:
            run.error = f"could not make the judge's copy of the workspace: {exc}"
            return run
        over = [item for item in copy.skipped if ": " in item]  # left out for their size, with the reason
        if over:
            run.notes.append("left out of the judge's copy: " + "; ".join(over[:5]) + (" …" if len(over) > 5 else ""))
        try:
            self._in_copy(copy, request, run)
        except JudgeUnavailableError as exc:
            run.error, run.unavailable = str(exc), True
        except Exception as exc:  # e.g. the route could not open: the check fails, the unit goes on
            run.error = f"the judge agent could not run: {exc.__class__.__name__}: {exc}"
        finally:
            copy.close()
            run.duration_seconds = round(time.monotonic() - started, 3)
        return run

    def _in_copy(self, copy: WorkspaceCopy, request: JudgeAgentRequest, run: JudgeAgentRun) -> None:
        spec = request.spec
        assert isinstance(spec, AgentJudgeCriterion)
        timeout = request.timeout
        remaining = self.sandbox.deadline.remaining() if self.sandbox.deadline is not None else None
        if remaining is not None:
            timeout = max(1.0, min(timeout, remaining))
        workdir = str(copy.environment.inner_workspace)
        with self.services.channel(spec, workdir=workdir, model=request.model) as channel:
            run.way = channel.way
            run.model = model_for(channel.way, request.model)
            config = judge_config(spec, system=request.system, model=run.model)
            env = self._env(copy, channel)
            record, run.error = _on_own_loop(self._drive(config, env, copy, request, timeout), timeout, copy)
        run.final_text = record.agent_output if record is not None else ""
        run.tool_calls = tool_lines(record)
        run.max_turns_hit = bool(record is not None and record.max_turns_exhausted)
        usage = record.token_usage if record is not None else None
        if channel.spent is not None:  # the gateway's own count
            run.input_tokens, run.output_tokens, run.cost_usd = channel.spent
        elif usage is not None:  # bedrock / the Anthropic API directly: the CLI's own figures
            run.input_tokens = usage.uncached_input_tokens + usage.cache_read_input_tokens
            run.input_tokens += usage.cache_creation_input_tokens
            run.output_tokens, run.cost_usd = usage.output_tokens, usage.total_cost_usd
            self.services.spend.add("judge", run.input_tokens, run.output_tokens, run.cost_usd)

    @staticmethod
    def _env(copy: WorkspaceCopy, channel: Channel) -> dict[str, str]:
        env = copy.environment.base_env()
        if channel.address is not None:
            inside = RouteAddress(copy.environment.reach(channel.address.base_url), channel.address.token)
            env.update(CLAUDE_CODE.env_for(inside))
        env.update(channel.agent_env)
        return env

    async def _drive(
        self,
        config: ClaudeCodeConfig,
        env: dict[str, str],
        copy: WorkspaceCopy,
        request: JudgeAgentRequest,
        timeout: float,
    ) -> tuple[TurnRecord | None, str | None]:
        index = self.services.index_of(request.spec)
        agent = create_agent("claude-code", config, task_id=f"{self.task_id}/judge-{index}", env=env)
        try:
            await agent.start(copy.environment)
            async with asyncio.timeout(timeout):
                record = await agent.communicate(request.prompt, max_turns=request.max_turns, timeout=timeout)
            return record, None
        except TimeoutError:
            return agent.pending_turn, f"the judge agent timed out after {timeout:g} s (turn_timeout)"
        except AgentError as exc:
            return agent.pending_turn, f"the judge agent failed: {exc}"
        except Exception as exc:  # the CLI could not start (missing binary, bad option): a failed check
            return agent.pending_turn, f"the judge agent could not run: {exc.__class__.__name__}: {exc}"
        finally:
            agent.kill_sync()
            copy.kill()
            await agent.stop()


def _on_own_loop(coro: Any, timeout: float, copy: WorkspaceCopy) -> tuple[TurnRecord | None, str | None]:
    """Run the judge on an event loop of its own (grading may be called from inside another loop)."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="agent-judge")
    future = pool.submit(asyncio.run, coro)
    try:
        result: tuple[TurnRecord | None, str | None] = future.result(timeout=timeout + GRACE_SECONDS)
        return result
    except concurrent.futures.TimeoutError:
        copy.kill()  # its processes end, so the thread's await returns soon after
        return None, f"the judge agent did not stop within {timeout + GRACE_SECONDS:g} s; its processes were killed"
    finally:
        pool.shutdown(wait=False)
