"""`run --max-cost-usd`: stop launching units once the run's spend passes a limit.

The spend is the priced cost of every finished unit of the run (agent, judges and simulated
user), resumed ones included, so a resumed run keeps counting from where it stopped. Units
already running when the limit is passed finish and are recorded; the ones not yet launched
are left for `--resume`, and run.json marks the run interrupted with the reason. A unit whose
cost is unknown (an unpriced model) adds nothing and is counted, and the end of the run says
so: the limit cannot see what the rate card cannot price.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from coder_eval.models.results import EvaluationResult


def unit_cost(result: EvaluationResult) -> float | None:
    """A unit's priced cost (agent + judges + simulated user); None when the agent's cost is unknown."""
    agent = result.total_token_usage.total_cost_usd
    if agent is None:
        return None
    return agent + (result.judge_cost_usd or 0.0) + (result.simulator_cost_usd or 0.0)


@dataclass
class SpendLimit:
    """The run's spend against `limit_usd`; the executors ask `reached` before launching each unit."""

    limit_usd: float
    spent_usd: float = 0.0
    unpriced_units: int = 0
    units_seen: int = 0

    def add(self, result: EvaluationResult) -> None:
        """Count one finished unit's cost."""
        self.units_seen += 1
        cost = unit_cost(result)
        if cost is None:
            self.unpriced_units += 1
        else:
            self.spent_usd += cost

    def add_all(self, results: Iterable[EvaluationResult]) -> None:
        for result in results:
            self.add(result)

    @property
    def reached(self) -> bool:
        """True once the spend has reached the limit: no further unit is launched."""
        return self.spent_usd >= self.limit_usd

    def reason(self, not_launched: int) -> str:
        """One sentence for run.json and the end of the run."""
        text = (
            f"spend limit reached: ${self.spent_usd:.4f} spent of --max-cost-usd {self.limit_usd:g}; "
            f"{not_launched} unit(s) not launched (continue with --resume and a higher limit)"
        )
        if self.unpriced_units:
            text += f"; {self.unpriced_units} unit(s) had no price and are not counted"
        return text
