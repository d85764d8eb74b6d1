"""Every schema of Coder Eval, importable from one place.

Names load lazily (PEP 562) so a command imports only the models it touches; the
type checker sees ordinary imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from coder_eval.models.criteria_names import CRITERIA_EXPORTS

_LOCATIONS: dict[str, str] = {
    "AnyCriterionResult": "results",
    "BaseAgentConfig": "agent",
    "CheckerContext": "task_parts",
    "ClassificationCriterionResult": "results",
    "CommandResult": "results",
    "CommandStatistics": "telemetry",
    "CommandTelemetry": "telemetry",
    "CriterionResult": "results",
    "DEFAULT_AGENT_KIND": "agent",
    "DatasetConfig": "task_parts",
    "EarlyStopInfo": "results",
    "EvaluationResult": "results",
    "FinalStatus": "status",
    "JudgeCriterionResult": "results",
    "PluginSpec": "agent",
    "PostRunCommand": "task_parts",
    "PreRunCommand": "task_parts",
    "RecordCliSpec": "sandbox",
    "ReferenceConfig": "task_parts",
    "RepoSource": "sandbox",
    "RunLimits": "task_parts",
    "RunSummary": "run",
    "SandboxConfig": "sandbox",
    "SimulationConfig": "task_parts",
    "SkippedTask": "run",
    "StarterFilesSource": "sandbox",
    "TaskDefinition": "task",
    "TemplateDirSource": "sandbox",
    "TokenUsage": "telemetry",
    "TurnRecord": "telemetry",
    "agent_config_class": "agent",
    "parse_agent_config": "agent",
    "register_agent_config": "agent",
    "registered_agent_kinds": "agent",
    **dict.fromkeys(CRITERIA_EXPORTS, "criteria"),
}

__all__ = sorted(_LOCATIONS)


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
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
    from coder_eval.models.results import (
        AnyCriterionResult,
        ClassificationCriterionResult,
        CommandResult,
        CriterionResult,
        EarlyStopInfo,
        EvaluationResult,
        JudgeCriterionResult,
    )
    from coder_eval.models.run import (
        RunSummary,
        SkippedTask,
    )
    from coder_eval.models.sandbox import (
        RecordCliSpec,
        RepoSource,
        SandboxConfig,
        StarterFilesSource,
        TemplateDirSource,
    )
    from coder_eval.models.status import (
        FinalStatus,
    )
    from coder_eval.models.task import (
        TaskDefinition,
    )
    from coder_eval.models.task_parts import (
        CheckerContext,
        DatasetConfig,
        PostRunCommand,
        PreRunCommand,
        ReferenceConfig,
        RunLimits,
        SimulationConfig,
    )
    from coder_eval.models.telemetry import (
        CommandStatistics,
        CommandTelemetry,
        TokenUsage,
        TurnRecord,
    )
