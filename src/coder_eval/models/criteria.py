"""Success criteria: an open union keyed by `type`, built from the criterion registry.

Built-in spec models live in `criteria_files.py`, `criteria_commands.py` and `criteria_judges.py`;
a plugin brings its own (a `BaseCriterion` subclass with a Literal `type`) and registers it with
its checker (`coder_eval.criteria.register_criterion`). A task's criterion is validated against the
spec registered for its `type`, so a plugin's criterion is as much a part of the schema as ours.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, SerializeAsAny
from pydantic_core import PydanticCustomError

from coder_eval.models.criteria_base import BaseCriterion, LiveCriterion, StopEarlyPolicy
from coder_eval.models.criteria_commands import (
    CliCalledCriterion,
    CommandExecutedCriterion,
    CommandsEfficiencyCriterion,
    FlagPredicate,
    HarborVerifierCriterion,
    RunCommandCriterion,
    SkillTriggeredCriterion,
)
from coder_eval.models.criteria_files import (
    ClassificationMatchCriterion,
    FileCheckCriterion,
    FileContainsCriterion,
    FileExistsCriterion,
    FileMatchesRegexCriterion,
    JsonAssertion,
    JsonCheckCriterion,
    RegexCheck,
)
from coder_eval.models.criteria_judges import (
    DEFAULT_JUDGE_MODEL,
    AgentJudgeCriterion,
    LlmJudgeCriterion,
    ReferenceComparisonCriterion,
    SystemOneJudgeCriterion,
    UipathEvalCriterion,
)
from coder_eval.models.criteria_trajectory import (
    FileCreatedCriterion,
    OutputMatchesCriterion,
    ToolCallMatch,
    ToolOrderCriterion,
)
from coder_eval.models.registry import Registry

BUILTIN_CRITERIA: tuple[type[BaseCriterion], ...] = (
    FileExistsCriterion,
    FileContainsCriterion,
    FileCheckCriterion,
    FileMatchesRegexCriterion,
    JsonCheckCriterion,
    RunCommandCriterion,
    HarborVerifierCriterion,
    CliCalledCriterion,
    CommandExecutedCriterion,
    CommandsEfficiencyCriterion,
    ClassificationMatchCriterion,
    SkillTriggeredCriterion,
    OutputMatchesCriterion,
    ToolOrderCriterion,
    FileCreatedCriterion,
    ReferenceComparisonCriterion,
    LlmJudgeCriterion,
    AgentJudgeCriterion,
    SystemOneJudgeCriterion,
    UipathEvalCriterion,
)
"""The spec models shipped with Coder Eval; each has a checker module named after its type."""

CRITERION_SPECS: Registry[type[BaseCriterion]] = Registry("criterion type")
"""Criterion type -> its spec model. Filled by criterion registration (`coder_eval.criteria.registry`)."""


def spec_type(spec: type[BaseCriterion]) -> str:
    """The `type` tag a spec model answers to (its Literal default)."""
    tag = spec.model_fields["type"].default
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"{spec.__qualname__} needs a `type: Literal[...]` field with a default")
    return tag


def criterion_types() -> list[str]:
    """Every registered criterion type (plugins included), sorted."""
    return CRITERION_SPECS.names()


def criterion_models() -> list[type[BaseCriterion]]:
    """Every registered spec model, in the order of `criterion_types()`."""
    return [CRITERION_SPECS.get(name) for name in criterion_types()]


def criterion_spec(kind: str) -> type[BaseCriterion] | None:
    return CRITERION_SPECS.find(kind)


LEGACY_CRITERION_ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "command_not_executed": ("command_executed", {"min_count": 0, "max_count": 0}),
}
"""Criterion types the reference system once had -> (the type they mean, the values they force).

The forced values win over what the item says: a legacy `command_not_executed` with
`min_count: 2` still means "never run". The loader warns about each use; `coder-eval migrate`
rewrites them."""


def unalias_criterion(value: dict[str, Any]) -> dict[str, Any]:
    """The criterion mapping with a legacy alias type replaced by what it means (others unchanged)."""
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in LEGACY_CRITERION_ALIASES:
        return value
    target, forced = LEGACY_CRITERION_ALIASES[kind]
    return {**value, "type": target, **forced}


def parse_criterion(value: Any) -> Any:
    """Validate one raw criterion mapping against the spec registered for its `type`."""
    if isinstance(value, BaseCriterion) or not isinstance(value, dict):
        return value  # a non-mapping fails BaseCriterion's own validation with pydantic's message
    value = unalias_criterion(value)
    kind = value.get("type")
    if not isinstance(kind, str):
        raise PydanticCustomError(
            "union_tag_not_found",
            "Unable to extract tag using discriminator {discriminator}",
            {"discriminator": "type"},
        )
    spec = CRITERION_SPECS.find(kind)
    if spec is None:
        known = criterion_types()
        raise PydanticCustomError(
            "union_tag_invalid",
            "Input tag {tag} found using 'type' does not match any of the expected tags: {expected_tags}",
            {"tag": kind, "expected_tags": ", ".join(repr(k) for k in known), "discriminator": "type"},
        )
    return spec.model_validate(value)


SuccessCriterion = Annotated[SerializeAsAny[BaseCriterion], BeforeValidator(parse_criterion)]
"""One entry of `success_criteria`: validated by the spec model its `type` names."""

BaseSuccessCriterion = BaseCriterion
"""The spec base under the name the reference system's plugin guide uses."""
LiveSuccessCriterion = LiveCriterion
"""The live (early-stop) spec base under the reference system's name."""

__all__ = [
    "BUILTIN_CRITERIA",
    "CRITERION_SPECS",
    "DEFAULT_JUDGE_MODEL",
    "LEGACY_CRITERION_ALIASES",
    "AgentJudgeCriterion",
    "BaseCriterion",
    "BaseSuccessCriterion",
    "ClassificationMatchCriterion",
    "CliCalledCriterion",
    "CommandExecutedCriterion",
    "CommandsEfficiencyCriterion",
    "FileCheckCriterion",
    "FileContainsCriterion",
    "FileCreatedCriterion",
    "FileExistsCriterion",
    "FileMatchesRegexCriterion",
    "FlagPredicate",
    "HarborVerifierCriterion",
    "JsonAssertion",
    "JsonCheckCriterion",
    "LiveCriterion",
    "LiveSuccessCriterion",
    "LlmJudgeCriterion",
    "OutputMatchesCriterion",
    "ReferenceComparisonCriterion",
    "RegexCheck",
    "RunCommandCriterion",
    "SkillTriggeredCriterion",
    "StopEarlyPolicy",
    "SuccessCriterion",
    "SystemOneJudgeCriterion",
    "ToolCallMatch",
    "ToolOrderCriterion",
    "UipathEvalCriterion",
    "criterion_models",
    "criterion_spec",
    "criterion_types",
    "parse_criterion",
    "spec_type",
    "unalias_criterion",
]
