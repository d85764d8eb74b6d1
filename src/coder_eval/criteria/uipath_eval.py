"""uipath_eval: evaluating a UiPath agent against an evaluation set.

This build does not ship the UiPath evaluation runner. Rather than grading silently as 0 or
"not evaluated", the criterion refuses at dispatch and names the optional extra, which ends the
run ERROR with that message.
"""

from __future__ import annotations

import importlib.util

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CriterionUnavailableError
from coder_eval.models.criteria_judges import UipathEvalCriterion
from coder_eval.models.results import CriterionResult

EXTRA_HINT = "uipath_eval needs the uipath extra (pip install 'coder-eval[uipath]') and a runner for it"


@register_criterion("uipath_eval", spec=UipathEvalCriterion)
class UipathEval(Criterion[UipathEvalCriterion]):
    def evaluate(self, spec: UipathEvalCriterion, ctx: CheckContext) -> CriterionResult:
        if importlib.util.find_spec("uipath") is None:
            raise CriterionUnavailableError(f"{EXTRA_HINT}; the uipath package is not installed")
        raise CriterionUnavailableError(
            f"{EXTRA_HINT}; this version of Coder Eval cannot run UiPath evaluation sets yet "
            f"(agent {spec.agent_name!r}, eval set {spec.eval_set!r})"
        )
