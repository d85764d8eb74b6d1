"""`plan --estimate`: what a planned run will likely cost, before it starts, as a range per arm.

Each planned unit is priced from the first of these that applies:

1. **task history**: earlier units of the same task id with the same agent kind (and model, when
   the unit pins one) under the runs directory (their task.json records). The range is the least
   and the most tokens one such unit used, priced at the current rate card for the unit's model
   (the model the earlier unit used when the unit pins none);
2. **agent history**: earlier units of *other* tasks with the same agent kind and model: the
   least and most any of them used (a wide range, since tasks differ);
3. **per-turn assumption** (`--per-turn-tokens IN:OUT`): IN input and OUT output tokens per
   agent turn, from 1 turn to the unit's `run_limits.max_turns` (else its `expected_turns`),
   priced for its model.

A unit none of them covers has no estimate, and a model the rate card does not know has no
price; both are counted and shown, never priced as zero. Tokens rather than recorded dollars
are carried over, so a rate-card change is reflected in the next forecast.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from coder_eval.engine.units import RunUnit
from coder_eval.errors import UsageError
from coder_eval.pricing import pricing_for
from coder_eval.records.layout import find_task_results

Source = Literal["task history", "agent history", "per-turn assumption", "no estimate", "unpriced"]


@dataclass(frozen=True)
class UnitSample:
    """What one earlier unit used: its task, agent kind, model and token buckets."""

    task_id: str
    agent_type: str
    model: str | None
    uncached_input: int
    output: int
    cache_write: int
    cache_read: int

    def priced(self, model: str | None) -> float | None:
        rate = pricing_for(model or self.model)
        if rate is None:
            return None
        return rate.cost(self.uncached_input, self.output, self.cache_write, self.cache_read)


@dataclass(frozen=True)
class PerTurn:
    """`--per-turn-tokens IN:OUT`: the assumed tokens of one agent turn."""

    input: int
    output: int

    @classmethod
    def parse(cls, text: str) -> PerTurn:
        parts = text.split(":")
        if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
            raise UsageError(
                f"--per-turn-tokens {text!r}: give input and output tokens per turn as IN:OUT, e.g. 20000:1500"
            )
        return cls(int(parts[0]), int(parts[1]))


@dataclass
class UnitForecast:
    unit: RunUnit
    source: Source
    low: float | None = None
    high: float | None = None
    samples: int = 0


@dataclass
class ArmForecast:
    """One arm's units: the summed range of those priced, and how many each source covered."""

    variant_id: str
    units: int = 0
    low: float = 0.0
    high: float = 0.0
    sources: dict[str, int] = field(default_factory=dict)

    def add(self, forecast: UnitForecast) -> None:
        self.units += 1
        self.sources[forecast.source] = self.sources.get(forecast.source, 0) + 1
        if forecast.low is not None and forecast.high is not None:
            self.low += forecast.low
            self.high += forecast.high

    @property
    def unestimated(self) -> int:
        return self.sources.get("no estimate", 0) + self.sources.get("unpriced", 0)


def read_history(runs_dir: Path) -> tuple[list[UnitSample], int]:
    """Every earlier unit that used tokens under `runs_dir` (one directory per run); and the unreadable count."""
    samples: list[UnitSample] = []
    unreadable = 0
    if not runs_dir.is_dir():
        return samples, unreadable
    for run in sorted(p for p in runs_dir.iterdir() if p.is_dir() and not p.is_symlink()):
        for path in find_task_results(run):
            try:
                sample = _sample(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError, KeyError):
                unreadable += 1
                continue
            if sample is not None:
                samples.append(sample)
    return samples, unreadable


def _sample(record: dict[str, Any]) -> UnitSample | None:
    usage = record.get("total_token_usage") or {}
    buckets = [int(usage.get(k) or 0) for k in _BUCKETS]
    if not any(buckets):
        return None  # the agent never reached a model (agent `none`, a set-up error): nothing to learn
    return UnitSample(str(record["task_id"]), str(record.get("agent_type") or ""), _model_of(record), *buckets)


def _model_of(record: dict[str, Any]) -> str | None:
    """The model that answered: from the gateway's call records, else the turns, else the record's own field
    (which names the backend, e.g. `script`, when the agent reported no model)."""
    for turn in reversed(record.get("iterations") or []):
        for call in reversed(turn.get("provider_call_costs") or []):
            if call.get("model"):
                return str(call["model"])
        if turn.get("model_used"):
            return str(turn["model_used"])
    model = record.get("model_used")
    return str(model) if model else None


_BUCKETS = ("uncached_input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def forecast_unit(unit: RunUnit, history: Sequence[UnitSample], per_turn: PerTurn | None) -> UnitForecast:
    """The unit's cost range from the first source that covers it (see the module docstring)."""
    kind, model = unit.agent.type, unit.agent.model
    same_agent = [s for s in history if s.agent_type == kind and (model is None or s.model == model)]
    own = [s for s in same_agent if s.task_id == unit.task_id]
    sources: tuple[tuple[Source, list[UnitSample]], ...] = (("task history", own), ("agent history", same_agent))
    for source, samples in sources:
        if samples:
            costs = [s.priced(model) for s in samples]
            priced = [c for c in costs if c is not None]
            if len(priced) < len(costs):
                return UnitForecast(unit, "unpriced", samples=len(samples))
            return UnitForecast(unit, source, min(priced), max(priced), len(samples))
    if per_turn is not None:
        return _assumed(unit, per_turn)
    return UnitForecast(unit, "no estimate")


def _assumed(unit: RunUnit, per_turn: PerTurn) -> UnitForecast:
    rate = pricing_for(unit.agent.model)
    if rate is None:
        return UnitForecast(unit, "unpriced")
    limits = unit.task.definition.run_limits
    turns = limits.max_turns or limits.expected_turns
    if turns is None:  # no cap and no target: the assumption gives no upper end
        return UnitForecast(unit, "no estimate")
    one = rate.cost(per_turn.input, per_turn.output)
    return UnitForecast(unit, "per-turn assumption", one, one * turns)


def forecast_arms(
    units: Iterable[RunUnit], history: Sequence[UnitSample], per_turn: PerTurn | None
) -> list[ArmForecast]:
    """Per arm (in plan order), the summed range of its units."""
    arms: dict[str, ArmForecast] = {}
    for unit in units:
        arm = arms.setdefault(unit.variant_id, ArmForecast(unit.variant_id))
        arm.add(forecast_unit(unit, history, per_turn))
    return list(arms.values())


def forecast_lines(arms: Sequence[ArmForecast], history_units: int, runs_dir: Path, unreadable: int) -> list[str]:
    """The forecast as the terminal prints it: one line per arm, then the total and its caveats."""
    lines = [f"cost forecast ({history_units} earlier unit(s) under {runs_dir}):"]
    for arm in arms:
        lines.append(f"  {arm.variant_id}: {arm.units} unit(s), {_range(arm.low, arm.high)}  ({_sources(arm)})")
    low, high = sum(a.low for a in arms), sum(a.high for a in arms)
    missing = sum(a.unestimated for a in arms)
    total = f"  total: {sum(a.units for a in arms)} unit(s), {_range(low, high)}"
    if missing:
        total += f", plus {missing} unit(s) without an estimate (a lower bound)"
    lines.append(total)
    if unreadable:
        lines.append(f"  {unreadable} task.json record(s) under {runs_dir} could not be read and were skipped")
    if missing:
        lines.append(
            "  units without an estimate: run them once, or state an assumption with --per-turn-tokens IN:OUT "
            "(and pin a priced model with -m)"
        )
    return lines


def _range(low: float, high: float) -> str:
    return f"${low:.4f} – ${high:.4f}"


def _sources(arm: ArmForecast) -> str:
    return ", ".join(f"{count} {source}" for source, count in sorted(arm.sources.items()))
