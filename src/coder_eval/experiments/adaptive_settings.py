"""The settings of adaptive replicates (`--repeats auto`), light to import: no NumPy, no SciPy.

The experiment plan reads them for every run, so this module is kept apart from the statistics
(`sequential.py`, `stopping.py`), which load only when a run is adaptive.
"""

from __future__ import annotations

from dataclasses import dataclass

from coder_eval.experiments.verdict import MIN_REPLICATES

DEFAULT_MAX_REPEATS = 10
DEFAULT_CONFIDENCE = 0.95
DEFAULT_EFFECT_SIZE = 0.2


@dataclass(frozen=True)
class AdaptiveSettings:
    """What `--repeats auto` was given: the cap, the first round's size, the confidence and δ."""

    max_repeats: int = DEFAULT_MAX_REPEATS
    min_repeats: int = MIN_REPLICATES
    confidence: float = DEFAULT_CONFIDENCE
    effect_size: float = DEFAULT_EFFECT_SIZE

    def __post_init__(self) -> None:
        if self.min_repeats < 1 or self.max_repeats < self.min_repeats:
            raise ValueError("adaptive replicates need 1 <= min_repeats <= max_repeats")
        if not 0.5 <= self.confidence < 1:
            raise ValueError("confidence must be at least 0.5 and below 1")
        if not 0 < self.effect_size < 1:
            raise ValueError("effect_size must lie between 0 and 1 (a difference in mean score)")
