"""Per-criterion and per-task results: what task.json holds."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, computed_field

from coder_eval.models.base import RecordModel
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import CommandStatistics, TokenUsage, TurnRecord

CLASSIFICATION_TYPES = frozenset({"classification_match", "skill_triggered"})
JUDGE_TYPES = frozenset({"llm_judge", "agent_judge", "system_one_judge"})


class CriterionResult(BaseModel):
    """The outcome of one criterion. Extra keys round-trip so subclass fields survive."""

    model_config = ConfigDict(extra="allow")

    result_kind: Literal["basic"] = "basic"
    criterion_type: str
    description: str = ""
    score: float = Field(0.0, ge=0.0, le=1.0)
    details: str = ""
    error: str | None = None
    evaluation_status: Literal["evaluated", "not_evaluated"] = "evaluated"
    pass_threshold: float = 0.9
    weight: float = 1.0
    gating: bool = True

    @property
    def passed(self) -> bool:
        return self.evaluation_status == "evaluated" and self.score >= self.pass_threshold

    @property
    def outcome(self) -> Literal["pass", "fail", "info", "skipped"]:
        if self.evaluation_status == "not_evaluated":
            return "skipped"
        if not self.gating:
            return "info"
        return "pass" if self.passed else "fail"


def criterion_title(criterion: CriterionResult) -> str:
    """`type: description`, or just the type when there is no description."""
    if criterion.description:
        return f"{criterion.criterion_type}: {criterion.description}"
    return criterion.criterion_type


def score_against_threshold(criterion: CriterionResult) -> str:
    """`score 0.400 < threshold 0.900` for an evaluated criterion, the comparison matching the outcome."""
    sign = ">=" if criterion.score >= criterion.pass_threshold else "<"
    return f"score {criterion.score:.3f} {sign} threshold {criterion.pass_threshold:.3f}"


class ClassificationCriterionResult(CriterionResult):
    result_kind: Literal["classification"] = "classification"  # type: ignore[assignment]
    observed_label: str = ""
    expected_label: str = ""


class JudgeCriterionResult(CriterionResult):
    result_kind: Literal["judge"] = "judge"  # type: ignore[assignment]
    findings: list[str] = Field(default_factory=list)
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    transcript_path: str | None = None


def _result_kind(value: Any) -> str:
    if isinstance(value, CriterionResult):
        return value.result_kind
    if isinstance(value, dict):
        kind = value.get("result_kind")
        if kind:
            return str(kind)
        ctype = value.get("criterion_type", "")
        if ctype in CLASSIFICATION_TYPES:
            return "classification"
        if ctype in JUDGE_TYPES:
            return "judge"
    return "basic"


AnyCriterionResult = Annotated[
    Annotated[CriterionResult, Tag("basic")]
    | Annotated[ClassificationCriterionResult, Tag("classification")]
    | Annotated[JudgeCriterionResult, Tag("judge")],
    Discriminator(_result_kind),
]


class CommandResult(RecordModel):
    """Outcome of one pre_run or post_run command (output truncated to 100 KB each)."""

    command: str
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    duration_seconds: float = 0.0
    error: str | None = None


class EarlyStopInfo(RecordModel):
    reason: Literal["criterion_passed", "criterion_failed", "decision_budget_exceeded"]
    deciding_criterion_type: str | None = None
    deciding_criterion_description: str | None = None
    armed_criteria: list[str] = Field(default_factory=list)
    sdk_turn_index: int | None = None
    tool_call_index: int | None = None
    elapsed_seconds: float | None = None
    turns_remaining_at_stop: int | None = None
    gate_threshold: float = 1.0


class EvaluationResult(RecordModel):
    """The authoritative record of one task replicate (task.json)."""

    task_id: str
    task_description: str = ""
    variant_id: str = "default"
    suite_id: str | None = None
    row_id: str | None = None
    replicate_index: int = 0
    tags: list[str] = Field(default_factory=list)
    task_path: str | None = None
    agent_type: str | None = None
    model_used: str | None = None
    started_at: datetime
    completed_at: datetime | None = None
    duration_seconds: float = 0.0

    final_status: FinalStatus
    weighted_score: float | None = None
    max_turns_exhausted: bool = False
    iteration_count: int = 0
    success_criteria_results: list[AnyCriterionResult] = Field(default_factory=list)
    post_failure_criteria_results: list[AnyCriterionResult] = Field(default_factory=list)
    iterations: list[TurnRecord] = Field(default_factory=list, validation_alias="turns")

    error_message: str | None = None
    error_details: str | None = None
    error_log_tail: str | None = None

    environment_info: dict[str, Any] = Field(default_factory=dict)
    agent_config: dict[str, Any] | None = None
    sdk_options: dict[str, Any] | None = None
    sandbox_path: str | None = None
    task_config: dict[str, Any] | None = None

    total_token_usage: TokenUsage = Field(default_factory=TokenUsage)
    judge_cost_usd: float | None = None
    simulator_cost_usd: float | None = None
    command_stats: CommandStatistics = Field(default_factory=CommandStatistics)
    total_assistant_turns: int = 0
    expected_commands: int | None = None
    actual_commands: int | None = None
    commands_efficiency: float | None = None
    pre_run_results: list[CommandResult] = Field(default_factory=list)
    post_run_results: list[CommandResult] = Field(default_factory=list)
    simulation: dict[str, Any] | None = None
    early_stop: EarlyStopInfo | None = None

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def agent_cost_usd(self) -> float | None:
        return self.total_token_usage.total_cost_usd

    @property
    def reference_similarity(self) -> float | None:
        scores = [r.score for r in self.success_criteria_results if r.criterion_type == "reference_comparison"]
        return sum(scores) / len(scores) if scores else None
