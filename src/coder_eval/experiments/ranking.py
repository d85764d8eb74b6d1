"""The ranking of three or more arms: order by mean score, each arm paired against the leader.

Two arms get the paired comparison of `analysis.compare_two_arms`; with more, a reader needs an
order and to know which gaps are real. Arms are ranked by mean score over every measured
replicate (ties broken by name, so the order is stable); every other arm is compared with the
leader task by task, and the verdict says which arms the data cannot tell apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from coder_eval.experiments.analysis import compare_arms, variant_statistics
from coder_eval.experiments.stats import PairedComparison
from coder_eval.models.experiment_results import ExperimentResult


@dataclass(frozen=True)
class RankedArm:
    rank: int
    variant_id: str
    mean_score: float | None
    against_leader: PairedComparison | None
    """This arm against the leader (None for the leader itself)."""

    @property
    def distinguishable(self) -> bool:
        """Whether the CI of its mean difference from the leader excludes zero."""
        c = self.against_leader
        return c is not None and c.interval is not None and c.ties < c.n and c.interval.excludes_zero()


@dataclass(frozen=True)
class Ranking:
    arms: tuple[RankedArm, ...]

    @property
    def verdict(self) -> str:
        """One sentence: all arms indistinguishable, or which trail the leader."""
        leader, rest = self.arms[0], self.arms[1:]
        identical = all(a.against_leader is not None and a.against_leader.ties == a.against_leader.n for a in rest)
        if identical:
            return (
                f"The {len(self.arms)} arms are indistinguishable: identical mean scores on every task "
                "(the ranking below is by name only)"
            )
        behind = [a.variant_id for a in rest if a.distinguishable]
        level = f"{(rest[0].against_leader.confidence if rest[0].against_leader else 0.95) * 100:.0f}%"
        if not behind:
            return (
                f"No arm is distinguishable from {leader.variant_id} at {level} confidence; "
                "more replicates or tasks would narrow the intervals"
            )
        tied = [a.variant_id for a in rest if not a.distinguishable]
        sentence = f"{leader.variant_id} leads; {', '.join(behind)} trail it beyond the {level} interval"
        if tied:
            sentence += f"; {', '.join(tied)} cannot be told apart from it"
        return sentence


def rank_arms(result: ExperimentResult) -> Ranking | None:
    """The ranking of three or more arms; None with fewer."""
    if len(result.variant_ids) < 3:
        return None
    means: dict[str, float | None] = {}
    for v in result.variant_ids:
        estimate = variant_statistics(result, v).score
        means[v] = estimate.mean if estimate is not None else None

    def key(v: str) -> tuple[float, str]:
        mean = means[v]
        return (-mean if mean is not None else 1.0, v)

    order = sorted(result.variant_ids, key=key)
    leader = order[0]
    arms = tuple(
        RankedArm(
            rank=i + 1,
            variant_id=v,
            mean_score=means[v],
            against_leader=None if v == leader else compare_arms(result, leader, v),
        )
        for i, v in enumerate(order)
    )
    return Ranking(arms)


RANKING_HEADERS = ("Rank", "Variant", "Mean score", "Difference from leader", "Tasks better / worse / tied")


def ranking_rows(ranking: Ranking) -> list[list[str]]:
    """The ranking as plain cells, shared by the Markdown and HTML reports."""
    rows = []
    for arm in ranking.arms:
        c = arm.against_leader
        if c is None:
            difference, counts = "leader", "-"
        else:
            ci = c.interval
            difference = (
                f"{c.mean_difference:+.3f} [{ci.low:+.3f}, {ci.high:+.3f}]"
                if ci is not None and c.mean_difference is not None
                else "n/a"
            )
            counts = f"{c.b_better} / {c.a_better} / {c.ties}"
        mean = f"{arm.mean_score:.3f}" if arm.mean_score is not None else "n/a"
        rows.append([str(arm.rank), arm.variant_id, mean, difference, counts])
    return rows
