"""The task file: one YAML document, validated as a TaskDefinition."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import BeforeValidator, Field, SerializeAsAny, field_validator, model_validator

from coder_eval.models.agent import BaseAgentConfig, parse_agent_config
from coder_eval.models.base import Identifier, NonBlank, StrictModel
from coder_eval.models.criteria import (
    AgentJudgeCriterion,
    ReferenceComparisonCriterion,
    SuccessCriterion,
)
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.models.task_parts import (
    CheckerContext,
    DatasetConfig,
    PostRunCommand,
    PreRunCommand,
    ReferenceConfig,
    RunLimits,
    SimulationConfig,
)

_KEBAB = r"[a-z0-9]+(?:-[a-z0-9]+)*"
TAG_RE = re.compile(rf"^{_KEBAB}(?::{_KEBAB})?$")

AgentField = Annotated[SerializeAsAny[BaseAgentConfig] | None, BeforeValidator(parse_agent_config)]


class TaskDefinition(StrictModel):
    """One evaluation task as authored in YAML."""

    task_id: Identifier = Field(description="Unique id; also a directory name.")
    description: NonBlank = Field(description="What the task tests.")
    initial_prompt: str | None = Field(None, description="Prompt sent to the agent (optional for type: none).")
    initial_prompt_file: NonBlank | None = Field(
        None,
        description="File (relative to the task YAML) whose text is the prompt; exclusive with initial_prompt. "
        "Read at load, so the resolved task records the text itself.",
    )
    expected_commands: int | None = Field(
        None,
        ge=1,
        description="Tool calls the task should take: recorded with the result, which then reports "
        "commands_efficiency (expected / max(actual, expected)); informational, never scored. A "
        "commands_efficiency criterion's own budget wins.",
    )
    tags: list[str] = Field(default_factory=list, description="kebab-case tags, optionally key:value.")
    skip: bool = Field(False, description="Quarantine the task; run it only with --include-skipped.")
    agent: AgentField = Field(None, description="Agent configuration; `type` selects the agent kind.")
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig, description="Sandbox configuration.")
    run_limits: RunLimits = Field(default_factory=RunLimits, description="Turn, time, token and USD caps.")
    success_criteria: list[SuccessCriterion] = Field(min_length=1, description="How the result is scored.")
    reference: ReferenceConfig | None = Field(None, description="Reference solution directory.")
    # Layered merges: experiment pre_run runs before the task's own, post_run after it.
    pre_run: list[PreRunCommand] = Field(
        default_factory=list, description="Commands before the agent starts.", json_schema_extra={"merge": "append"}
    )
    post_run: list[PostRunCommand] = Field(
        default_factory=list,
        description="Commands after grading.",
        json_schema_extra={"merge": "append_task_first"},
    )
    dataset: DatasetConfig | None = Field(None, description="Fan the task out over dataset rows.")
    simulation: SimulationConfig | None = Field(
        None, description="Multi-turn simulated user.", json_schema_extra={"merge": "shallow"}
    )
    checker_context: CheckerContext | None = Field(
        None, description="Configuration for the grading side.", json_schema_extra={"merge": "shallow"}
    )

    @field_validator("tags")
    @classmethod
    def _kebab_tags(cls, tags: list[str]) -> list[str]:
        for tag in tags:
            if not TAG_RE.fullmatch(tag):
                raise ValueError(
                    f"tag {tag!r} must be lowercase kebab-case, optionally key:value (e.g. connector:google-tasks)"
                )
        return tags

    @property
    def agent_type(self) -> str | None:
        return self.agent.type if self.agent else None

    @model_validator(mode="after")
    def _cross_field(self) -> TaskDefinition:
        if self.initial_prompt_file is not None and self.initial_prompt is not None:
            raise ValueError("initial_prompt and initial_prompt_file are mutually exclusive: keep one of them")
        has_prompt = bool(self.initial_prompt and self.initial_prompt.strip()) or self.initial_prompt_file is not None
        simulated = self.simulation is not None and self.simulation.enabled
        if not has_prompt and self.agent_type != "none" and not simulated:
            raise ValueError("initial_prompt is required unless agent.type is none (or a simulated user opens)")
        if self.reference is None:
            for i, crit in enumerate(self.success_criteria):
                if isinstance(crit, ReferenceComparisonCriterion):
                    raise ValueError(
                        f"success_criteria[{i}] (reference_comparison) needs a task-level "
                        "`reference: {directory: ...}` block"
                    )
        route = self.checker_context.api_route if self.checker_context else None
        has_agent_judge = any(isinstance(c, AgentJudgeCriterion) and c.enabled for c in self.success_criteria)
        if route is not None and route.route == "litellm" and has_agent_judge:
            raise ValueError("checker_context.api_route.route: litellm cannot drive agent_judge; use direct or bedrock")
        if self.simulation is not None and self.simulation.enabled and self.agent_type == "none":
            raise ValueError("simulation needs an agent; it cannot run with agent.type: none")
        return self
