"""The discriminated union of every success-criterion type, keyed by `type`."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from coder_eval.models.criteria_base import BaseCriterion, LiveCriterion, StopEarlyPolicy
from coder_eval.models.criteria_commands import (
    CliCalledCriterion,
    CommandExecutedCriterion,
    CommandsEfficiencyCriterion,
    FlagPredicate,
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

CRITERION_MODELS: tuple[type[BaseCriterion], ...] = (
    FileExistsCriterion,
    FileContainsCriterion,
    FileCheckCriterion,
    FileMatchesRegexCriterion,
    JsonCheckCriterion,
    RunCommandCriterion,
    CliCalledCriterion,
    CommandExecutedCriterion,
    CommandsEfficiencyCriterion,
    ClassificationMatchCriterion,
    SkillTriggeredCriterion,
    ReferenceComparisonCriterion,
    LlmJudgeCriterion,
    AgentJudgeCriterion,
    SystemOneJudgeCriterion,
    UipathEvalCriterion,
)

CRITERION_TYPES: tuple[str, ...] = tuple(m.model_fields["type"].default for m in CRITERION_MODELS)

SuccessCriterion = Annotated[
    FileExistsCriterion
    | FileContainsCriterion
    | FileCheckCriterion
    | FileMatchesRegexCriterion
    | JsonCheckCriterion
    | RunCommandCriterion
    | CliCalledCriterion
    | CommandExecutedCriterion
    | CommandsEfficiencyCriterion
    | ClassificationMatchCriterion
    | SkillTriggeredCriterion
    | ReferenceComparisonCriterion
    | LlmJudgeCriterion
    | AgentJudgeCriterion
    | SystemOneJudgeCriterion
    | UipathEvalCriterion,
    Field(discriminator="type"),
]

__all__ = [
    "CRITERION_MODELS",
    "CRITERION_TYPES",
    "DEFAULT_JUDGE_MODEL",
    "AgentJudgeCriterion",
    "BaseCriterion",
    "ClassificationMatchCriterion",
    "CliCalledCriterion",
    "CommandExecutedCriterion",
    "CommandsEfficiencyCriterion",
    "FileCheckCriterion",
    "FileContainsCriterion",
    "FileExistsCriterion",
    "FileMatchesRegexCriterion",
    "FlagPredicate",
    "JsonAssertion",
    "JsonCheckCriterion",
    "LiveCriterion",
    "LlmJudgeCriterion",
    "ReferenceComparisonCriterion",
    "RegexCheck",
    "RunCommandCriterion",
    "SkillTriggeredCriterion",
    "StopEarlyPolicy",
    "SuccessCriterion",
    "SystemOneJudgeCriterion",
    "UipathEvalCriterion",
]
