"""The anytime-valid statistic behind adaptive replicates: betting on paired differences.

Each task gives a sequence of paired differences x₁, x₂, … (replicate i of arm B's score minus
replicate i of arm A's; scores lie in [0, 1], so every x lies in [−1, 1]). To test whether the
task's mean difference μ could be some value m, a bettor starts with wealth 1 and, before each
new difference, stakes a fraction λᵢ chosen from the earlier differences only:

    K⁺ₙ(m) = ∏ (1 + λᵢ⁺ (xᵢ − m))      bets that μ > m,  0 ≤ λᵢ⁺ ≤ c / (1 + m)
    K⁻ₙ(m) = ∏ (1 − λᵢ⁻ (xᵢ − m))      bets that μ < m,  0 ≤ λᵢ⁻ ≤ c / (1 − m)

While μ ≤ m, K⁺(m) is a nonnegative supermartingale that starts at 1, so by Ville's inequality
the chance that it *ever* reaches 1/a is at most a, however often it is looked at and whenever
the looking stops (Waudby-Smith & Ramdas, "Estimating means of bounded random variables by
betting", JRSS-B 2024). That is what makes peeking after every round safe. Splitting the error
between the two directions, m is rejected once K⁺(m) or K⁻(m) reaches 2/α; the values of m not
rejected form a confidence sequence for μ at level 1 − α.

The stakes follow aGRAPA (the same paper, §5.1): λ = (μ̂ − m) / (σ̂² + (μ̂ − m)²), the bet that
approximately maximises the expected growth of wealth for the mean and variance estimated so
far, clipped to [0, c / (1 ± m)] (truncation c = 3/4 keeps a single adverse difference from
costing more than three quarters of the wealth). The running estimates start from one
pseudo-observation at m ± δ, δ being the effect size of interest, and a variance of 1/4: the first
bets are sized for the effect the user said matters, and the data take over from the second.

Across tasks the run-level e-values E⁺ and E⁻ (`run_sequence`) bet at m = 0 on every task's pairs
with one stake per replicate index, learned from all tasks' earlier pairs. Tasks are independent
and every stake is chosen before its differences are seen, so under "B is better on no task" E⁺
is again a test supermartingale (likewise E⁻ for A), whichever tasks are given more replicates
and when. `E⁺ ≥ 2/α` is the sequential confirmation a "better" verdict needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

TRUNCATION = 0.75
"""c: the largest fraction of wealth one bet may risk (Waudby-Smith & Ramdas suggest 1/2 or 3/4)."""
PRIOR_VARIANCE = 0.25
"""The variance the bets assume before any difference is seen (one pseudo-observation)."""
GRID_STEP = 0.005
"""Resolution of the confidence sequence's ends (in score units)."""
EDGE = 1e-9
REFINE = 64
"""Each end of a confidence sequence is narrowed to GRID_STEP / 64 after the grid search."""


def threshold(confidence: float) -> float:
    """The wealth at which one direction rejects: 2/α, α = 1 − confidence."""
    return round(2.0 / (1.0 - confidence), 9)  # 40, not 39.99999999999996


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    x = np.asarray(values, dtype=float).reshape(-1)
    if x.size and (np.any(~np.isfinite(x)) or np.any(np.abs(x) > 1 + EDGE)):
        raise ValueError("paired differences must be finite and lie in [-1, 1]")
    clipped: np.ndarray = np.clip(x, -1.0, 1.0)
    return clipped


def wealth(
    differences: Sequence[float] | np.ndarray, nulls: Sequence[float] | np.ndarray, *, up: bool, effect_size: float
) -> np.ndarray:
    """K⁺ₙ(m) (`up`) or K⁻ₙ(m) for every m in `nulls`, after all of `differences`.

    Vectorised over the nulls; the stakes are predictable (each uses only earlier differences).
    """
    x = _as_array(differences)
    m = np.clip(np.asarray(nulls, dtype=float).reshape(-1), -1 + EDGE, 1 - EDGE)
    sign = 1.0 if up else -1.0
    cap = TRUNCATION / (1.0 + sign * m)  # keeps every factor ≥ 1 − c
    mean = np.clip(m + sign * effect_size, -1.0, 1.0)  # the pseudo-observation
    total, squares, count = mean.copy(), np.full_like(m, PRIOR_VARIANCE), 1.0
    log_wealth = np.zeros_like(m)
    for value in x:
        edge = sign * (mean - m)
        stake = np.clip(edge / (squares / count + edge * edge), 0.0, cap)
        log_wealth += np.log1p(stake * sign * (value - m))
        count += 1.0
        total += value
        new_mean = total / count
        squares += (value - new_mean) ** 2
        mean = new_mean
    result: np.ndarray = np.exp(log_wealth)
    return result


@dataclass(frozen=True)
class TaskSequence:
    """One task's sequential evidence after n paired differences."""

    n: int
    mean: float | None
    e_up: float
    """K⁺ₙ(0): evidence that B is better on this task."""
    e_down: float
    """K⁻ₙ(0): evidence that A is better on this task."""
    low: float
    high: float
    """The confidence sequence for the task's mean difference (−1 and 1 before any data)."""
    bar: float = 40.0

    def excludes_zero(self) -> bool:
        """Whether zero is rejected: one bettor's wealth at m = 0 reached the bar."""
        return self.e_up >= self.bar or self.e_down >= self.bar

    @property
    def side(self) -> str | None:
        """`B` or `A` when zero is rejected in that arm's favour, else None."""
        if self.e_up >= self.bar:
            return "B"
        return "A" if self.e_down >= self.bar else None

    def within(self, effect_size: float) -> bool:
        """Whether the whole confidence sequence lies strictly inside (−δ, δ)."""
        return -effect_size < self.low and self.high < effect_size


def task_sequence(differences: Sequence[float], *, confidence: float, effect_size: float) -> TaskSequence:
    """The e-values at zero and the confidence sequence of one task's paired differences."""
    x = _as_array(differences)
    up = float(wealth(x, [0.0], up=True, effect_size=effect_size)[0])
    down = float(wealth(x, [0.0], up=False, effect_size=effect_size)[0])
    low, high = confidence_sequence(x, confidence=confidence, effect_size=effect_size)
    return TaskSequence(
        n=int(x.size),
        mean=float(np.mean(x)) if x.size else None,
        e_up=up,
        e_down=down,
        low=low,
        high=high,
        bar=threshold(confidence),
    )


def confidence_sequence(
    differences: Sequence[float] | np.ndarray, *, confidence: float, effect_size: float
) -> tuple[float, float]:
    """The ends of the set of means m that neither bettor has rejected (the hull of that set).

    Found on a grid, then each end narrowed on a finer grid between the last rejected and the
    first kept grid point; the value returned is a rejected one (or ±1), so the hull can only be
    wider than the set itself and keeps the coverage guarantee."""
    x = _as_array(differences)
    if x.size == 0:
        return -1.0, 1.0
    steps = round(2 / GRID_STEP)
    grid = np.linspace(-1.0, 1.0, steps + 1)
    kept = _kept(x, grid, confidence, effect_size)
    if not np.any(kept):  # cannot happen for data in [-1, 1]; stay conservative if rounding says so
        mean = float(np.mean(x))
        return mean, mean
    first, last = int(np.argmax(kept)), int(len(kept) - 1 - np.argmax(kept[::-1]))
    low = -1.0 if first == 0 else _boundary(x, float(grid[first - 1]), float(grid[first]), confidence, effect_size)
    high = 1.0 if last == steps else _boundary(x, float(grid[last + 1]), float(grid[last]), confidence, effect_size)
    return low, high


def _kept(x: np.ndarray, nulls: np.ndarray, confidence: float, effect_size: float) -> np.ndarray:
    bar = threshold(confidence)
    up = wealth(x, nulls, up=True, effect_size=effect_size)
    down = wealth(x, nulls, up=False, effect_size=effect_size)
    kept: np.ndarray = (up < bar) & (down < bar)
    return kept


def _boundary(x: np.ndarray, rejected: float, kept: float, confidence: float, effect_size: float) -> float:
    """The kept null nearest `rejected` on a fine grid between the two, less one fine step: a
    rejected (or boundary) value, so the end returned never narrows the set."""
    fine = np.linspace(rejected, kept, REFINE + 1)
    inside = _kept(x, fine, confidence, effect_size)
    first = int(np.argmax(inside)) if np.any(inside) else REFINE
    return float(fine[max(0, first - 1)])


@dataclass(frozen=True)
class RunSequence:
    """The run-level e-values: one bettor per direction staking on every task's pairs."""

    e_up: float
    e_down: float
    confidence: float

    @property
    def bar(self) -> float:
        return threshold(self.confidence)

    def confirms(self, direction: str) -> bool:
        """Whether the sequential test confirms `better` (B) or `worse` (A)."""
        value = self.e_up if direction == "better" else self.e_down
        return value >= self.bar

    @property
    def log_up(self) -> float:
        return math.log(max(self.e_up, 1e-300))

    @property
    def log_down(self) -> float:
        return math.log(max(self.e_down, 1e-300))


def run_sequence(rounds: Sequence[Sequence[float]], *, confidence: float, effect_size: float) -> RunSequence:
    """The run-level e-values from `rounds[i]`, the paired differences of replicate index i (one per
    task that measured both arms' replicate i).

    One bettor per direction stakes on every pair of index i with a single fraction chosen from
    the pairs of lower indices only (aGRAPA on their pooled mean and variance, starting from the
    δ pseudo-observation). Whether a task gets replicate i is decided from lower indices too, so
    under "no task favours B" each factor has expectation at most 1 given everything before it,
    and the product stays a test supermartingale: Ville's inequality bounds the chance it ever
    reaches 2/α by α/2. The pooled stake learns the *average* difference quickly, which is what the
    paired test over tasks looks at as well."""
    up = _pooled_log_wealth(rounds, effect_size, 1.0)
    down = _pooled_log_wealth(rounds, effect_size, -1.0)
    return RunSequence(e_up=_exp(up), e_down=_exp(down), confidence=confidence)


def _pooled_log_wealth(rounds: Sequence[Sequence[float]], effect_size: float, sign: float) -> float:
    mean, count = sign * effect_size, 1.0
    total, squares = mean, PRIOR_VARIANCE
    log_wealth = 0.0
    for values in rounds:
        x = _as_array(values)
        edge = sign * mean
        stake = min(max(edge / (squares / count + edge * edge), 0.0), TRUNCATION)
        log_wealth += float(np.sum(np.log1p(stake * sign * x)))
        for value in x:
            count += 1.0
            total += float(value)
            mean = total / count
            squares += (float(value) - mean) ** 2
    return log_wealth


def _exp(value: float) -> float:
    return math.exp(min(value, 700.0))


def projected_log_wealth(pairs: int, effect: float, second_moment: float, *, quantile: float) -> float:
    """A generous projection of how much log-wealth `pairs` more differences could add when their
    mean is `effect`: the `quantile` of its approximate distribution (mean plus z standard deviations).

    With the stake aGRAPA would settle on, λ = μ / E[x²], each difference adds log(1 + λx), whose
    mean is about μ² / (2 E[x²]) and whose variance about λ² (E[x²] − μ²) (second-order expansion).
    The projection is used to decide when more replicates are futile: overstating what they could
    add only makes that decision later, never wrong in the other direction."""
    if effect <= 0 or pairs <= 0:
        return 0.0
    moment = max(second_moment, effect * effect)
    stake = min(effect / moment, TRUNCATION)
    mean = pairs * min(effect * effect / (2 * moment), math.log1p(TRUNCATION))
    spread = math.sqrt(pairs * stake * stake * max(0.0, moment - effect * effect))
    return mean + NormalDist().inv_cdf(quantile) * spread
