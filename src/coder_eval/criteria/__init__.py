"""Success criteria. The public API for criterion plugins is re-exported here.

    from coder_eval.criteria import CheckContext, Criterion, register_criterion

A checker module per built-in type lives beside this file; see docs/extending.md.
"""

from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_base import BaseCriterion, LiveCriterion
from coder_eval.models.results import CriterionResult

__all__ = [
    "BaseCriterion",
    "CheckContext",
    "Criterion",
    "CriterionResult",
    "LiveCriterion",
    "join_details",
    "read_text",
    "register_criterion",
    "single_file",
]
