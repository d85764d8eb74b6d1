"""Build a spec, grade it against a sandbox, return the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from coder_eval.common.ignore import IgnoreRules
from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade_one
from coder_eval.models.criteria import SuccessCriterion
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.models.results import CriterionResult

_ADAPTER: TypeAdapter[Any] = TypeAdapter(SuccessCriterion)


def spec(**fields: Any) -> BaseCriterion:
    fields.setdefault("description", "test criterion")
    return _ADAPTER.validate_python(fields)  # type: ignore[no-any-return]


def check(root: Path, ignore: list[str] | None = None, **fields: Any) -> CriterionResult:
    ctx = CheckContext(root=root, ignore=IgnoreRules.with_overrides(ignore), task_dir=root)
    result, config_error = grade_one(spec(**fields), ctx)
    assert config_error is None, config_error
    return result
