"""Harbor's reward files read the way Harbor reads them.

A Harbor verifier leaves its verdict in its logs directory:

- `reward.json` wins whenever it exists: a JSON object whose numeric values (booleans excluded)
  are the trial's metrics; other values are ignored. An empty file, invalid JSON or a value other
  than an object is an error, not a zero. When the object has no `reward` key, a `reward.txt`
  beside it that holds a number supplies `reward`.
- otherwise `reward.txt`: the whole file is one number (surrounding whitespace allowed); an empty
  or unparseable file is an error.
- neither file: the verifier produced no verdict, which is an error.

The headline score is `reward`; a file whose only metric has another name (`{"score": 0.8}`)
is scored by that metric, as Harbor's mean over single-metric trials does. Several metrics and
no `reward` cannot be reduced to one score without guessing, so that is an error too.
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass, field


class RewardError(Exception):
    """The verifier's reward files hold no usable verdict; the message says why."""


@dataclass(frozen=True)
class Reward:
    score: float
    """The headline metric (not clamped)."""
    metrics: dict[str, float]
    """Every numeric metric read."""
    source: str
    """Which file the score came from (`reward.json` or `reward.txt`)."""
    ignored: list[str] = field(default_factory=list)
    """Keys of reward.json that are not numbers (Harbor ignores them too)."""


def _number_text(text: str, name: str) -> float:
    if not text.strip():
        raise RewardError(f"{name} is empty")
    try:
        value = float(text)
    except ValueError:
        shown = text.strip()[:80]
        raise RewardError(f"{name} does not hold one number: {shown!r}") from None
    if not math.isfinite(value):
        raise RewardError(f"{name} holds {value}, not a finite number")
    return value


def _json_metrics(text: str) -> tuple[dict[str, float], list[str]]:
    if not text.strip():
        raise RewardError("reward.json is empty")
    try:
        parsed = json.loads(text)
    except ValueError as exc:
        raise RewardError(f"reward.json is not valid JSON: {exc}") from None
    if not isinstance(parsed, dict):
        raise RewardError(f"reward.json must be a JSON object of metrics, not {type(parsed).__name__}")
    metrics: dict[str, float] = {}
    ignored: list[str] = []
    for key, value in parsed.items():
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            metrics[str(key)] = float(value)
        else:
            ignored.append(str(key))
    return metrics, ignored


def read_reward(reward_json: str | None, reward_txt: str | None) -> Reward:
    """The verdict in the two files' texts (None: the file does not exist); RewardError if none."""
    if reward_json is not None:
        metrics, ignored = _json_metrics(reward_json)
        if "reward" not in metrics and reward_txt is not None:
            with contextlib.suppress(RewardError):  # Harbor keeps the JSON's metrics when the text is unusable
                metrics["reward"] = _number_text(reward_txt, "reward.txt")
        if "reward" in metrics:
            return Reward(metrics["reward"], metrics, "reward.json", ignored)
        if len(metrics) == 1:
            return Reward(next(iter(metrics.values())), metrics, "reward.json", ignored)
        if not metrics:
            shown = f" (ignored: {', '.join(ignored)})" if ignored else ""
            raise RewardError(f"reward.json holds no numeric metric{shown}")
        names = ", ".join(sorted(metrics))
        raise RewardError(f"reward.json holds several metrics ({names}) and no `reward` to score by")
    if reward_txt is not None:
        value = _number_text(reward_txt, "reward.txt")
        return Reward(value, {"reward": value}, "reward.txt")
    raise RewardError("the verifier wrote no reward: neither reward.json nor reward.txt exists")
