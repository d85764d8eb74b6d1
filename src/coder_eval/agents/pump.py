"""The event loop of a CLI-driven turn: feed events, enforce the tool-call cap and cooperative stop.

A CLI without a turn cap of its own gets one here, counted in tool calls (the visible turns):
when a tool call starts past `max_turns`, or `should_stop` says so, the CLI's group is killed and
the turn ends cleanly with what it did. The CLIs report a call as it starts running, so the call
past the cap is recorded (unresolved) and may have begun before the kill lands. A cancellation
(turn timeout, task deadline) kills the group first and then goes on, so the base class keeps
the partial turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from coder_eval.agents.base import Turn
from coder_eval.agents.jsonl_cli import JsonlProcess

Cut = Literal["stopped", "max_turns"]


@dataclass(frozen=True)
class PumpOutcome:
    """How the CLI's run ended: its exit code, or the harness's cut (the CLI was killed)."""

    exit_code: int | None
    cut: Cut | None = None


async def pump(
    process: JsonlProcess,
    turn: Turn,
    feed: Callable[[dict[str, Any]], None],
    starts_tool: Callable[[dict[str, Any]], bool],
) -> PumpOutcome:
    """Run `process` to its end, feeding every event; see the module docstring for the cuts."""
    try:
        await process.start()
        cut = await _read(process, turn, feed, starts_tool)
        if cut is not None:
            process.kill()
            await process.close()
            return PumpOutcome(None, cut)
        return PumpOutcome(await process.wait())
    except asyncio.CancelledError:
        process.kill()
        await asyncio.shield(process.close())
        raise
    except BaseException:
        process.kill()
        await process.close()
        raise


async def _read(
    process: JsonlProcess,
    turn: Turn,
    feed: Callable[[dict[str, Any]], None],
    starts_tool: Callable[[dict[str, Any]], bool],
) -> Cut | None:
    async for event in process.events():
        capped = turn.max_turns is not None and starts_tool(event) and turn.emit.visible_turn_count >= turn.max_turns
        feed(event)
        if capped:
            return "max_turns"
        if turn.should_stop is not None and turn.should_stop():
            return "stopped"
    return None
