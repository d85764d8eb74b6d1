"""Adaptive replicates against the fixed design, on simulated arms whose success rates are known.

For each scenario (arm A's and arm B's success probability on every task) the script draws many
experiments. Each experiment draws every replicate the fixed design would run; the fixed design
reads them all and states its verdict with the verdict rule (experiments/verdict.py), and the
adaptive procedure (`--repeats auto`: rounds, experiments/stopping.py) reads them in replicate
order and stops when its rules say so. Printed per scenario:

- units: the mean units each design spent, and the adaptive saving;
- agree: how often both designs reached the same decision (better / worse / undecided; "no
  difference" and "inconclusive" decide nothing);
- decided: how often each design said better or worse;
- error: how often each said better or worse against the truth (any decision when the arms are
  equal, the wrong direction otherwise): the empirical error rate, against the stated 1 − confidence;
- the rules that stopped the tasks.

A second table (`--cap-factor`, default 2) gives the adaptive procedure a cap that many times the
fixed design's replicates: since it spends only what a decision needs, a higher cap buys back the
power the sequential test costs, usually still below the fixed design's units.

Figures only; nothing here is timed. Usage:
  python bench/adaptive.py [--tasks 10] [--max-repeats 10] [--trials 200] [--effect-size 0.2]
                           [--confidence 0.95] [--cap-factor 2] [--seed 7]
"""

from __future__ import annotations

import argparse
import sys

from coder_eval.experiments.simulation import Tally, describe, simulate, standard_scenarios
from coder_eval.experiments.stopping import AdaptiveSettings

HEADERS = ("scenario", "truth", "units adaptive/fixed", "saved", "agree", "decided a/f", "error a/f", "stopped by")


def _row(tally: Tally) -> list[str]:
    n = tally.trials
    rules = ", ".join(f"{rule} {count / n:.1f}" for rule, count in tally.rules.most_common())
    return [
        tally.scenario.name,
        tally.scenario.truth,
        f"{tally.units / n:.1f} / {tally.fixed_units / n:.0f}",
        f"{tally.saving:.0%}",
        f"{tally.agree / n:.1%}",
        f"{tally.adaptive_decided / n:.1%} / {tally.fixed_decided / n:.1%}",
        f"{tally.adaptive_errors / n:.1%} / {tally.fixed_errors / n:.1%}",
        rules,
    ]


def _print_table(rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADERS)]
    print("  ".join(h.ljust(w) for h, w in zip(HEADERS, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--max-repeats", type=int, default=10)
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--effect-size", type=float, default=0.2)
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--cap-factor", type=int, default=2, help="second table: adaptive cap = this × fixed's")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    scenarios = standard_scenarios(args.tasks)
    print(f"{args.tasks} tasks, 2 arms, {args.trials} simulated experiments per scenario, confidence {args.confidence}")
    print("scenarios (success probability per task, averaged):")
    for line in describe(scenarios):
        print(f"  {line}")
    settings = AdaptiveSettings(max_repeats=args.max_repeats, confidence=args.confidence, effect_size=args.effect_size)
    print(
        f"\nsame cap: adaptive up to {args.max_repeats} replicates vs fixed {args.max_repeats} "
        f"(effect size {args.effect_size})"
    )
    tallies = [simulate(s, settings, args.trials, seed=args.seed) for s in scenarios]
    _print_table([_row(t) for t in tallies])
    total = sum(t.units for t in tallies) / sum(t.fixed_units for t in tallies)
    print(f"all scenarios: adaptive spent {total:.0%} of the fixed design's units")
    if args.cap_factor > 1:
        wide = AdaptiveSettings(
            max_repeats=args.max_repeats * args.cap_factor, confidence=args.confidence, effect_size=args.effect_size
        )
        print(f"\nhigher cap: adaptive up to {wide.max_repeats} replicates vs fixed {args.max_repeats}")
        tallies = [simulate(s, wide, args.trials, seed=args.seed, fixed_repeats=args.max_repeats) for s in scenarios]
        _print_table([_row(t) for t in tallies])
        total = sum(t.units for t in tallies) / sum(t.fixed_units for t in tallies)
        print(f"all scenarios: adaptive spent {total:.0%} of the fixed design's units")
    return 0


if __name__ == "__main__":
    sys.exit(main())
