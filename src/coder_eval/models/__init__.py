"""Every schema of Coder Eval, importable from one place."""

from coder_eval.models.agent import (
    DEFAULT_AGENT_KIND,
    BaseAgentConfig,
    PluginSpec,
    agent_config_class,
    parse_agent_config,
    register_agent_config,
    registered_agent_kinds,
)
from coder_eval.models.criteria import *  # noqa: F403
from coder_eval.models.criteria import __all__ as _criteria_all
from coder_eval.models.results import (
    AnyCriterionResult,
    ClassificationCriterionResult,
    CommandResult,
    CriterionResult,
    EarlyStopInfo,
    EvaluationResult,
    JudgeCriterionResult,
)
from coder_eval.models.run import RunSummary, SkippedTask
from coder_eval.models.sandbox import (
    RecordCliSpec,
    RepoSource,
    SandboxConfig,
    StarterFilesSource,
    TemplateDirSource,
)
from coder_eval.models.status import FinalStatus
from coder_eval.models.task import TaskDefinition
from coder_eval.models.task_parts import (
    CheckerContext,
    DatasetConfig,
    PostRunCommand,
    PreRunCommand,
    ReferenceConfig,
    RunLimits,
    SimulationConfig,
)
from coder_eval.models.telemetry import CommandStatistics, CommandTelemetry, TokenUsage, TurnRecord

__all__ = [
    *_criteria_all,
    "DEFAULT_AGENT_KIND",
    "AnyCriterionResult",
    "BaseAgentConfig",
    "CheckerContext",
    "ClassificationCriterionResult",
    "CommandResult",
    "CommandStatistics",
    "CommandTelemetry",
    "CriterionResult",
    "DatasetConfig",
    "EarlyStopInfo",
    "EvaluationResult",
    "FinalStatus",
    "JudgeCriterionResult",
    "PluginSpec",
    "PostRunCommand",
    "PreRunCommand",
    "RecordCliSpec",
    "ReferenceConfig",
    "RepoSource",
    "RunLimits",
    "RunSummary",
    "SandboxConfig",
    "SimulationConfig",
    "SkippedTask",
    "StarterFilesSource",
    "TaskDefinition",
    "TemplateDirSource",
    "TokenUsage",
    "TurnRecord",
    "agent_config_class",
    "parse_agent_config",
    "register_agent_config",
    "registered_agent_kinds",
]
