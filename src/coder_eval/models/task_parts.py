"""Task-level blocks other than agent, sandbox and criteria."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import NonBlank, StrictModel


class RunLimits(StrictModel):
    """Run-time caps: turns, wall clock, tokens and dollars."""

    max_turns: int | None = Field(None, ge=1, description="Maximum agent turns.")
    expected_turns: int | None = Field(None, ge=1, description="Soft target; exceeding it only warns.")
    task_timeout: float | None = Field(None, gt=0, description="Wall-clock seconds for the whole task (TIMEOUT).")
    turn_timeout: float | None = Field(None, gt=0, description="Wall-clock seconds per agent turn.")
    max_input_tokens: int | None = Field(None, ge=1, description="Cumulative input-token budget.")
    max_output_tokens: int | None = Field(None, ge=1, description="Cumulative output-token budget.")
    max_total_tokens: int | None = Field(None, ge=1, description="Cumulative total-token budget.")
    max_usd: float | None = Field(None, gt=0, description="Cumulative agent spend budget in USD.")
    count_cached_input: bool = Field(
        False, description="Prompt-cache reads count toward max_input_tokens and max_total_tokens."
    )
    count_cache_creation: bool = Field(
        False, description="Prompt-cache writes count toward max_input_tokens and max_total_tokens."
    )
    stop_early: Literal[False] | None = Field(
        None, description="false disarms every stop_early block (the kill switch for a full run)."
    )
    stop_early_gate_threshold: float = Field(
        1.0, ge=0.0, le=1.0, description="Weighted score the armed criteria must reach on an early stop."
    )

    @model_validator(mode="before")
    @classmethod
    def _no_master_arm(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("stop_early") is True:
            raise ValueError(
                "run_limits.stop_early: true is not supported: a stop_early block on a criterion arms it; "
                "use run_limits.stop_early: false only to disarm them all"
            )
        return data


class ReferenceSolve(StrictModel):
    """How the oracle applies the reference: a command run in the sandbox instead of copying its files."""

    command: NonBlank = Field(
        description="Shell command run in the sandbox before grading under the oracle, from the workspace, "
        "with REFERENCE_DIR set to the reference directory as the sandbox sees it (read-only)."
    )
    env: dict[str, str] = Field(default_factory=dict, description="Variables the command runs with.")
    timeout: int = Field(600, ge=1, le=3600, description="Seconds (1-3600).")


class ReferenceConfig(StrictModel):
    """A reference solution directory, never visible to the agent."""

    directory: NonBlank = Field(description="Directory relative to the task YAML; exposed as $REFERENCE_DIR.")
    solve: ReferenceSolve | None = Field(
        None,
        description="How the oracle applies the reference (a Harbor task's solve.sh); without it, the oracle "
        "writes the reference files into the workspace.",
    )

    @field_validator("directory")
    @classmethod
    def _relative(cls, value: str) -> str:
        if PurePosixPath(value.replace("\\", "/")).is_absolute() or re.match(r"^[A-Za-z]:", value):
            raise ValueError("reference.directory must be relative to the task YAML, not an absolute path")
        return value

    @model_validator(mode="before")
    @classmethod
    def _migrated_forms(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for old in ("code", "file"):
                if old in data:
                    raise ValueError(
                        f"reference.{old} is no longer supported: `coder-eval migrate TASK.yaml` writes the "
                        'solution into a directory next to the task and sets `reference: {directory: "reference"}` '
                        "(reference_comparison then names the file with reference_file)"
                    )
        return data


class PreRunCommand(StrictModel):
    """A shell command run in the sandbox before the agent starts."""

    command: NonBlank = Field(description="Shell command (pipes, redirects and & allowed).")
    timeout: int = Field(30, ge=1, le=300, description="Seconds (1-300).")
    fail_on_error: bool = Field(True, description="A failure ends the task as ERROR and skips the rest.")


class PostRunCommand(StrictModel):
    """A shell command run after grading; informational only."""

    command: NonBlank = Field(description="Shell command.")
    timeout: int = Field(30, ge=1, le=300, description="Seconds (1-300).")


class DatasetConfig(StrictModel):
    """Fan one task out into one task per row."""

    rows: list[dict[str, Any]] | None = Field(None, description="Inline rows; exclusive with paths.")
    paths: list[NonBlank] | None = Field(None, description="JSONL files relative to the task YAML, in order.")
    id_field: NonBlank = Field("id", description="Row field used as the row id (a directory name).")
    sample_per_stratum: int | None = Field(None, ge=1, description="Keep up to N rows per stratum.")
    stratify_field: NonBlank = Field("expected_skill", description="Row field that defines the stratum.")
    sample_seed: int | None = Field(None, description="Seed that pins the stratified draw.")

    @model_validator(mode="after")
    def _one_source(self) -> DatasetConfig:
        if self.rows is not None and self.paths is not None:
            raise ValueError("Dataset must specify only one of 'paths' or 'rows'")
        if self.rows is None and self.paths is None:
            raise ValueError("Dataset must specify either 'paths' or 'rows'")
        if self.paths is not None and not self.paths:
            raise ValueError("Dataset.paths must be a non-empty list")
        return self


class SimulationConfig(StrictModel):
    """A simulated user that keeps the conversation going."""

    enabled: bool = Field(
        False, description="Master switch: false keeps the block but runs single-shot (no simulator, no model call)."
    )
    persona: NonBlank | None = Field(None, description="Who the simulated user is (required when enabled).")
    goal: NonBlank | None = Field(None, description="What the simulated user wants (required when enabled).")
    constraints: list[str] = Field(default_factory=list, description="Rules the simulator follows.")
    max_turns: int = Field(8, ge=1, le=100, description="Cap on user/agent exchanges.")
    stop_token: str = Field("<<<DONE>>>", description="Sentinel the simulator emits to end the dialog.")
    stop_on_criteria_pass: bool = Field(False, description="End once every criterion passes.")
    max_total_tokens: int | None = Field(None, ge=1, description="Dialog-wide token budget.")
    n_trials: int = Field(1, ge=1, description="Independent dialogs per (task, variant).")
    check_criteria: Literal["end_of_dialog", "every_turn", "both"] = Field(
        "end_of_dialog", description="When criteria are checked."
    )
    model: str = Field("anthropic.claude-sonnet-4-6", description="Model that plays the user (pinned).")

    @model_validator(mode="after")
    def _stop_needs_checks(self) -> SimulationConfig:
        missing = [name for name in ("persona", "goal") if getattr(self, name) is None]
        if self.enabled and missing:
            raise ValueError(f"an enabled simulation needs {' and '.join(missing)}")
        if self.stop_on_criteria_pass and self.check_criteria == "end_of_dialog":
            raise ValueError("stop_on_criteria_pass needs check_criteria: every_turn or both")
        return self


class ApiRouteOverride(StrictModel):
    """Which backend the grading side (judges) uses."""

    route: Literal["direct", "bedrock", "litellm"] = Field(description="Backend name.")
    model: str | None = Field(None, description="llm_judge model when the criterion leaves model unset.")
    params: dict[str, Any] = Field(default_factory=dict, description="litellm only: literal call kwargs.")
    env_params: dict[str, str] = Field(default_factory=dict, description="litellm only: kwarg -> env var name.")

    @model_validator(mode="after")
    def _litellm_rules(self) -> ApiRouteOverride:
        if self.route != "litellm" and (self.params or self.env_params):
            raise ValueError("params and env_params are only valid with route: litellm")
        if self.route == "litellm" and not self.model:
            raise ValueError("route: litellm needs a model")
        return self


class CheckerContext(StrictModel):
    """Task-authored configuration for the grading side, by namespace."""

    api_route: ApiRouteOverride | None = Field(None, description="Backend for llm_judge / agent_judge.")
