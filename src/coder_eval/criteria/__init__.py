"""Success criteria. The public API for criterion plugins is re-exported here:

    from coder_eval.criteria import CheckContext, Criterion, register_criterion

Names load on first use (PEP 562), so importing one checker module or the registry stays cheap.
A checker module per built-in type lives beside this file; see docs/extending.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LOCATIONS = {
    "BaseCriterion": "coder_eval.models.criteria_base",
    "LiveCriterion": "coder_eval.models.criteria_base",
    "CriterionResult": "coder_eval.models.results",
    "CheckContext": "coder_eval.criteria.base",
    "Criterion": "coder_eval.criteria.base",
    "join_details": "coder_eval.criteria.base",
    "read_text": "coder_eval.criteria.base",
    "single_file": "coder_eval.criteria.base",
    "register_criterion": "coder_eval.criteria.registry",
}

__all__ = sorted(_LOCATIONS)


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
    from coder_eval.criteria.registry import register_criterion
    from coder_eval.models.criteria_base import BaseCriterion, LiveCriterion
    from coder_eval.models.results import CriterionResult
