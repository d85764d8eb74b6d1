"""Render-time statistics for experiment reports, computed with NumPy and SciPy.

- `bootstrap_mean` — a percentile bootstrap confidence interval for a mean (fixed seed, so a
  report renders the same numbers every time).
- `wilson_interval` — the Wilson score interval for a pass rate.
- `paired_comparison` — two arms compared task by task: the mean of (B − A) over tasks both arms
  measured, its bootstrap interval, a paired t-test, a Wilcoxon signed-rank test and a Welch
  t-test on the raw replicates, and a plain-language verdict.

Quarantined tasks (an experiment's `quarantine:`) come in as weights: weight 0 leaves a task out,
a weight between 0 and 1 counts it less. Weighted means are bootstrapped by resampling (value,
weight) pairs; the weighted paired test is the t-test of a weighted least-squares mean (each
task's difference taken to have variance σ²/w), which is the ordinary paired t-test when every
weight is 1; a weighted pass rate gets the Wilson interval at Kish's effective sample size
(Σw)² / Σw². The rank and unpaired tests have no weighted form and are not run then.

Nothing here is written to experiment.json; reports recompute it from `per_replicate_scores`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
from scipy import stats  # type: ignore[import-untyped]

from coder_eval.experiments.verdict import (
    Evidence,
    SequentialEvidence,
    Verdict,
    decide,
    replicate_variance,
    replicates_needed,
    sentence,
)

CONFIDENCE = 0.95
BOOTSTRAP_SEED = 20240531
BOOTSTRAP_RESAMPLES = 9999
BOOTSTRAP_METHOD: Literal["percentile", "BCa"] = "percentile"
WILCOXON_MIN_TASKS = 6
"""Below six pairs the signed-rank test cannot reach p < 0.05 two-sided, so it is not reported."""
TIE_TOLERANCE = 1e-9
SPREAD_TOLERANCE = 1e-12
"""Samples whose max − min is below this are treated as constant (floating-point noise is not variance)."""


@dataclass(frozen=True)
class MeanEstimate:
    """A sample mean with its confidence interval. `degenerate`: the interval collapsed to the point."""

    mean: float
    low: float
    high: float
    n: int
    degenerate: bool = False

    def excludes_zero(self) -> bool:
        """True when the whole interval lies strictly on one side of zero."""
        return self.low > 0 or self.high < 0


@dataclass(frozen=True)
class RateEstimate:
    """A proportion `successes / trials` with its Wilson confidence interval."""

    rate: float
    low: float
    high: float
    successes: int
    trials: int


@dataclass(frozen=True)
class PairedComparison:
    """Arm B against arm A over the tasks both arms measured. Differences are always B − A."""

    label_a: str
    label_b: str
    tasks: tuple[str, ...]
    differences: tuple[float, ...]
    mean_difference: float | None
    interval: MeanEstimate | None
    t_pvalue: float | None
    wilcoxon_pvalue: float | None
    welch_pvalue: float | None
    b_better: int
    a_better: int
    ties: int
    tasks_excluded: int
    unmeasured_rows: int
    confidence: float = CONFIDENCE
    min_replicates: int = 0
    """Fewest measured replicates of any compared task in either arm."""
    replicate_variance: float | None = None
    """Pooled variance of replicate scores within a (task, arm); None with one replicate each."""
    tasks_quarantined: int = 0
    """Tasks left out because the experiment quarantined them (weight 0)."""
    weighted: bool = False
    """True when quarantined tasks were counted with a weight below 1."""
    sequential: SequentialEvidence | None = None
    """An adaptive run's run-level e-values (experiments/sequential.py); the verdict then needs them too."""

    @property
    def n(self) -> int:
        """Tasks compared."""
        return len(self.tasks)

    @property
    def decision(self) -> Verdict:
        """The verdict (experiments/verdict.py: the one rule), with the power estimate when undecided."""
        evidence = self.evidence()
        verdict = decide(evidence)
        if verdict.outcome == "inconclusive":
            hint = replicates_needed(evidence, self.differences, self.replicate_variance)
            verdict = replace(verdict, more_replicates=hint)
        return verdict

    def evidence(self) -> Evidence:
        ci = self.interval
        return Evidence(
            label_a=self.label_a,
            label_b=self.label_b,
            tasks=self.n,
            min_replicates=self.min_replicates,
            mean_difference=self.mean_difference,
            low=ci.low if ci else None,
            high=ci.high if ci else None,
            t_pvalue=self.t_pvalue,
            ties=self.ties,
            confidence=self.confidence,
            b_better=self.b_better,
            a_better=self.a_better,
            sequential=self.sequential,
        )

    @property
    def verdict(self) -> str:
        """One sentence a reader can act on; see `paired_verdict`."""
        return paired_verdict(self)


# --- intervals --------------------------------------------------------------------------------


def bootstrap_mean(
    values: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    seed: int = BOOTSTRAP_SEED,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    method: Literal["percentile", "BCa"] = BOOTSTRAP_METHOD,
    weights: Sequence[float] | None = None,
) -> MeanEstimate | None:
    """The mean and its bootstrap CI; None for no values. One value or no spread → the point itself.

    With `weights` (one per value) the mean is weighted and (value, weight) pairs are resampled
    together; weight-0 values are left out, and equal weights give the unweighted figures."""
    data = np.asarray(values, dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=float)
    if w is not None:
        data, w = data[w > 0], w[w > 0]
        if data.size and float(np.ptp(w)) <= SPREAD_TOLERANCE:
            w = None  # equal weights: exactly the unweighted estimate
    if data.size == 0:
        return None
    mean = float(np.mean(data)) if w is None else float(np.average(data, weights=w))
    if data.size < 2 or float(np.ptp(data)) <= SPREAD_TOLERANCE:
        return MeanEstimate(mean=mean, low=mean, high=mean, n=int(data.size), degenerate=True)
    samples: tuple[np.ndarray, ...] = (data,) if w is None else (data, w)
    result = stats.bootstrap(
        samples,
        np.mean if w is None else _weighted_mean,
        confidence_level=confidence,
        n_resamples=n_resamples,
        method=method,
        vectorized=True,
        paired=w is not None,
        rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    return MeanEstimate(mean=mean, low=float(interval.low), high=float(interval.high), n=int(data.size))


def _weighted_mean(values: np.ndarray, weights: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.sum(values * weights, axis=axis) / np.sum(weights, axis=axis)  # type: ignore[no-any-return]


def wilson_interval(successes: int, trials: int, *, confidence: float = CONFIDENCE) -> RateEstimate | None:
    """The Wilson score interval for `successes / trials`; None when there were no trials."""
    if trials <= 0:
        return None
    interval = stats.binomtest(successes, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return RateEstimate(
        rate=successes / trials,
        low=float(interval.low),
        high=float(interval.high),
        successes=successes,
        trials=trials,
    )


def weighted_rate(
    outcomes: Sequence[bool], weights: Sequence[float], *, confidence: float = CONFIDENCE
) -> RateEstimate | None:
    """A weighted success share with the Wilson interval at the effective sample size (Σw)² / Σw².

    Weight-0 outcomes are left out; `successes` and `trials` count the outcomes that remain."""
    kept = [(o, float(w)) for o, w in zip(outcomes, weights, strict=True) if w > 0]
    if not kept:
        return None
    total = sum(w for _, w in kept)
    rate = sum(w for o, w in kept if o) / total
    n = total**2 / sum(w * w for _, w in kept)
    z = float(stats.norm.ppf(1 - (1 - confidence) / 2))
    denominator = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / denominator
    half = z * float(np.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))) / denominator
    successes = sum(1 for o, _ in kept if o)
    return RateEstimate(
        rate=rate, low=max(0.0, centre - half), high=min(1.0, centre + half), successes=successes, trials=len(kept)
    )


# --- paired comparison ------------------------------------------------------------------------


def paired_comparison(
    scores_a: Mapping[str, Sequence[float]],
    scores_b: Mapping[str, Sequence[float]],
    *,
    label_a: str = "A",
    label_b: str = "B",
    unmeasured_rows: int = 0,
    confidence: float = CONFIDENCE,
    seed: int = BOOTSTRAP_SEED,
    weights: Mapping[str, float] | None = None,
    sequential: SequentialEvidence | None = None,
    side_tests: bool = True,
) -> PairedComparison:
    """Compare arm B with arm A task by task (task → measured replicate scores for each arm).

    Each task contributes one difference: mean(B replicates) − mean(A replicates). Tasks either
    arm did not measure are excluded and counted in `tasks_excluded`. `weights` (task → weight,
    1 when absent) come from a quarantine: weight 0 leaves a task out (`tasks_quarantined`), a
    smaller weight counts its difference less in the mean, its interval and the t-test.
    `side_tests=False` leaves out the Wilcoxon and Welch tests, which the verdict does not read
    (adaptive replicates compare after every round, and Wilcoxon's exact test with ties is slow).
    """
    weights = weights or {}
    named = set(scores_a) | set(scores_b)
    out = {t for t in named if weights.get(t, 1.0) <= 0}
    tasks = tuple(sorted(t for t in named - out if scores_a.get(t) and scores_b.get(t)))
    excluded = len(named - out - set(tasks))
    w = np.array([weights.get(t, 1.0) for t in tasks], dtype=float)
    weighted = bool(np.any(w != 1.0))
    mean_a = np.array([np.mean(scores_a[t]) for t in tasks], dtype=float)
    mean_b = np.array([np.mean(scores_b[t]) for t in tasks], dtype=float)
    diffs = mean_b - mean_a
    interval = bootstrap_mean(
        diffs.tolist(), confidence=confidence, seed=seed, weights=w.tolist() if weighted else None
    )
    return PairedComparison(
        label_a=label_a,
        label_b=label_b,
        tasks=tasks,
        differences=tuple(float(d) for d in diffs),
        mean_difference=interval.mean if interval else None,
        interval=interval,
        t_pvalue=weighted_t_pvalue(diffs, w) if weighted else paired_t_pvalue(mean_a, mean_b),
        wilcoxon_pvalue=wilcoxon_pvalue(diffs) if side_tests and not weighted else None,
        welch_pvalue=(
            welch_pvalue(_flatten(scores_a, tasks), _flatten(scores_b, tasks)) if side_tests and not weighted else None
        ),
        b_better=int(np.sum(diffs > TIE_TOLERANCE)),
        a_better=int(np.sum(diffs < -TIE_TOLERANCE)),
        ties=int(np.sum(np.abs(diffs) <= TIE_TOLERANCE)),
        tasks_excluded=excluded,
        unmeasured_rows=unmeasured_rows,
        confidence=confidence,
        min_replicates=min((min(len(scores_a[t]), len(scores_b[t])) for t in tasks), default=0),
        replicate_variance=replicate_variance([scores_a, scores_b], tasks),
        tasks_quarantined=len(out),
        weighted=weighted,
        sequential=sequential,
    )


def paired_t_pvalue(a: np.ndarray, b: np.ndarray) -> float | None:
    """`scipy.stats.ttest_rel(b, a)`; None with fewer than two pairs or when every difference is equal."""
    diffs = b - a
    if diffs.size < 2 or float(np.ptp(diffs)) <= SPREAD_TOLERANCE:
        return None
    return _finite(stats.ttest_rel(b, a).pvalue)


def weighted_t_pvalue(diffs: np.ndarray, weights: np.ndarray) -> float | None:
    """Two-sided p of the weighted mean difference: the t-test of a weighted least-squares intercept
    (var(d_i) = σ² / w_i, σ² estimated with n − 1 degrees of freedom); None as `paired_t_pvalue`."""
    if diffs.size < 2 or float(np.ptp(diffs)) <= SPREAD_TOLERANCE:
        return None
    mean = float(np.average(diffs, weights=weights))
    sigma2 = float(np.sum(weights * (diffs - mean) ** 2)) / (diffs.size - 1)
    t = mean / float(np.sqrt(sigma2 / np.sum(weights)))
    return _finite(2 * stats.t.sf(abs(t), diffs.size - 1))


def wilcoxon_pvalue(diffs: np.ndarray) -> float | None:
    """`scipy.stats.wilcoxon(diffs)`; None below `WILCOXON_MIN_TASKS` pairs or when all differences are zero."""
    if diffs.size < WILCOXON_MIN_TASKS or not np.any(np.abs(diffs) > TIE_TOLERANCE):
        return None
    return _finite(stats.wilcoxon(diffs).pvalue)


def welch_pvalue(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Welch's unequal-variance t-test on the raw replicate scores (unpaired); None when undefined."""
    if len(a) < 2 or len(b) < 2 or (np.ptp(a) <= SPREAD_TOLERANCE and np.ptp(b) <= SPREAD_TOLERANCE):
        return None
    return _finite(stats.ttest_ind(b, a, equal_var=False).pvalue)


# --- verdict ----------------------------------------------------------------------------------


def signed(value: float, digits: int = 2) -> str:
    """`+0.12` / `−0.05` (a true minus sign); values that round to zero read `+0.00`."""
    if abs(value) < 0.5 * 10**-digits:
        value = 0.0
    return f"{value:+.{digits}f}".replace("-", "−")


def paired_verdict(comparison: PairedComparison) -> str:
    """The verdict sentence: outcome, N, the test's p and the interval side by side (verdict.py)."""
    text = sentence(comparison.evidence(), comparison.decision)
    if comparison.unmeasured_rows:
        rows = "row" if comparison.unmeasured_rows == 1 else "rows"
        text += f" ({comparison.unmeasured_rows} unmeasured {rows} excluded)"
    if comparison.tasks_quarantined:
        text += f" ({comparison.tasks_quarantined} quarantined task(s) left out)"
    if comparison.weighted:
        text += " (quarantined tasks counted at their weight)"
    return text + "."


def _flatten(scores: Mapping[str, Sequence[float]], tasks: Sequence[str]) -> list[float]:
    return [float(s) for t in tasks for s in scores[t]]


def _finite(value: object) -> float | None:
    number = float(value)  # type: ignore[arg-type]
    return number if np.isfinite(number) else None
