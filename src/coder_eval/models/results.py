"""Per-criterion and per-task results: what task.json holds."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, computed_field

from coder_eval.models.base import RecordModel
from coder_eval.models.network import NetworkRecord
from coder_eval.models.status import FinalStatus
from coder_eval.models.telemetry import CommandStatistics, TokenUsage, TurnRecord

CLASSIFICATION_TYPES = frozenset({"classification_match", "skill_triggered"})
JUDGE_TYPES = frozenset({"llm_judge", "agent_judge", "system_one_judge"})


class CriterionResult(BaseModel):
    """The outcome of one criterion. Extra keys round-trip so subclass fields survive."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    result_kind: Literal["basic"] = Field(
        "basic", description="Which result shape this is: basic, classification or judge."
    )
    criterion_type: str = Field(description="The criterion's `type` as written in the task file.")
    description: str = Field("", description="The criterion's description from the task file.")
    score: float = Field(0.0, ge=0.0, le=1.0, description="Score from 0 to 1.")
    details: str = Field("", description="What the checker found, in words.")
    error: str | None = Field(
        None,
        description="Why the criterion could not be checked (a bad pattern, a crashed command), if so.",
    )
    evaluation_status: Literal["evaluated", "not_evaluated"] = Field(
        "evaluated", description="`not_evaluated` when the criterion was skipped (its result then counts for nothing)."
    )
    pass_threshold: float = Field(0.9, description="Score at or above which the criterion passes.")
    weight: float = Field(1.0, description="Weight in the task's weighted score (0 = informational).")
    gating: bool = Field(True, description="False for informational criteria, which never decide pass or fail.")

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
    result_kind: Literal["classification"] = Field(
        "classification", description="Which result shape this is: basic, classification or judge."
    )  # type: ignore[assignment]
    observed_label: str = Field("", description="The label the agent produced.")
    expected_label: str = Field("", description="The label the task expected.")


class JudgeCriterionResult(CriterionResult):
    result_kind: Literal["judge"] = Field(
        "judge", description="Which result shape this is: basic, classification or judge."
    )  # type: ignore[assignment]
    findings: list[str] = Field(default_factory=list, description="The judge's findings, one per entry.")
    token_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Tokens and cost of the judge's own model calls."
    )
    transcript_path: str | None = Field(None, description="Where the judge's transcript was saved, if it was.")
    duration_seconds: float | None = Field(None, description="Wall-clock time the judge took.")


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

    command: str = Field(description="The shell command as run.")
    exit_code: int | None = Field(
        None, description="Exit code; None when the command did not finish (timeout, failed start)."
    )
    stdout: str = Field("", description="Standard output, truncated.")
    stderr: str = Field("", description="Standard error, truncated.")
    duration_seconds: float = Field(0.0, description="Wall-clock time the command took.")
    error: str | None = Field(None, description="Why the command could not run or finish, if so.")


class EarlyStopInfo(RecordModel):
    reason: Literal["criterion_passed", "criterion_failed", "decision_budget_exceeded"] = Field(
        description="Why the agent was stopped before its turns ran out."
    )
    deciding_criterion_type: str | None = Field(
        None, description="Type of the criterion whose verdict stopped the run."
    )
    deciding_criterion_description: str | None = Field(None, description="Description of that criterion.")
    armed_criteria: list[str] = Field(
        default_factory=list, description="Criteria that were being watched for an early verdict."
    )
    sdk_turn_index: int | None = Field(None, description="Agent turn at which the stop happened.")
    tool_call_index: int | None = Field(
        None, description="Tool call (counted over the whole task) after which the stop happened."
    )
    elapsed_seconds: float | None = Field(None, description="Seconds from the start of the agent phase to the stop.")
    turns_remaining_at_stop: int | None = Field(None, description="Turns the agent still had when it was stopped.")
    gate_threshold: float = Field(1.0, description="Score the deciding criterion had to reach.")


class RecordNotes(RecordModel):
    """How a record written in another format (the reference system's, an older one) was read."""

    mapped: list[str] = Field(
        default_factory=list, description="What differed from our format and how it was read (one line each)."
    )
    not_mapped: list[str] = Field(
        default_factory=list, description="What could not be carried over (dropped, or read as its default)."
    )

    def lines(self) -> list[str]:
        return [f"mapped: {m}" for m in self.mapped] + [f"not mapped: {n}" for n in self.not_mapped]


class EvaluationResult(RecordModel):
    """The authoritative record of one task replicate (task.json)."""

    task_id: str = Field(description="Task id (with `/row` for a dataset row).")
    task_description: str = Field("", description="The task's description.")
    variant_id: str = Field("default", description="Experiment variant this replicate ran under.")
    suite_id: str | None = Field(None, description="Dataset suite the row belongs to; None for a plain task.")
    row_id: str | None = Field(None, description="Dataset row id; None for a plain task.")
    replicate_index: int = Field(0, description="Which replicate of (task, variant) this is, from 0.")
    tags: list[str] = Field(default_factory=list, description="The task's tags.")
    task_path: str | None = Field(None, description="The task file this came from.")
    agent_type: str | None = Field(None, description="Agent kind that ran the task.")
    model_used: str | None = Field(None, description="Model the agent reported using.")
    started_at: datetime = Field(description="When the replicate started (UTC).")
    completed_at: datetime | None = Field(None, description="When it finished (UTC).")
    duration_seconds: float = Field(0.0, description="Wall-clock duration of the whole replicate.")

    final_status: FinalStatus = Field(
        description="The verdict: SUCCESS, FAILURE, TIMEOUT, ERROR, NOT_GRADED and so on."
    )
    weighted_score: float | None = Field(
        None, description="Weighted score over gating criteria, 0 to 1; None when nothing was scored."
    )
    max_turns_exhausted: bool = Field(False, description="True when the agent used every turn it was allowed.")
    iteration_count: int = Field(0, description="Number of turns (prompts) sent to the agent.")
    success_criteria_results: list[AnyCriterionResult] = Field(
        default_factory=list, description="One result per success criterion, in task-file order."
    )
    post_failure_criteria_results: list[AnyCriterionResult] = Field(
        default_factory=list, description="Criteria checked only after a failure, to explain it."
    )
    iterations: list[TurnRecord] = Field(
        default_factory=list,
        validation_alias="turns",
        description="The agent's turns: prompts, replies, tool calls, tokens (read also from `turns`).",
    )

    error_message: str | None = Field(
        None,
        description="One-line reason for ERROR or BUILD_FAILED; for a unit that did not succeed after its "
        "network refused a request, also that refusal.",
    )
    error_details: str | None = Field(None, description="Longer detail for the error (a traceback for a bug).")
    error_log_tail: str | None = Field(None, description="The last lines of the agent's log when it crashed.")

    environment_info: dict[str, Any] = Field(
        default_factory=dict, description="Harness version, Python version and platform."
    )
    agent_config: dict[str, Any] | None = Field(
        None, description="The agent configuration the task ran with, after every merge layer."
    )
    sdk_options: dict[str, Any] | None = Field(
        None, description="The options handed to the agent's SDK or CLI (secrets redacted)."
    )
    sandbox_path: str | None = Field(
        None, description="Where the sandbox (or the graded copy) was kept, if it was kept."
    )
    task_config: dict[str, Any] | None = Field(
        None, description="The resolved task, its source file and its dataset row."
    )
    secrets_in_artifacts: list[str] = Field(
        default_factory=list,
        description="Preserved files holding a credential ('path: VARIABLE'); the files are kept as evidence.",
    )
    reference_copies: list[str] = Field(
        default_factory=list,
        description="Files that held reference content written while a criterion saw the reference; "
        "the content was replaced by markers (the criterion's details say so too).",
    )
    config_fingerprint: dict[str, str] | None = Field(
        None, description="Digest per configuration field; --resume refuses a unit whose digests changed."
    )

    total_token_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Tokens and cost of the agent's model calls over every turn."
    )
    judge_cost_usd: float | None = Field(
        None, description="Cost of judge criteria's model calls; None when unpriced or none ran."
    )
    simulator_cost_usd: float | None = Field(
        None, description="Cost of the simulated user's model calls; None when unpriced or none ran."
    )
    judge_token_usage: TokenUsage | None = Field(
        None, description="Tokens and cost of every judge's model calls; None when no judge called a model."
    )
    simulator_token_usage: TokenUsage | None = Field(
        None, description="Tokens and cost of the simulated user's model calls; None when there was none."
    )
    command_stats: CommandStatistics = Field(
        default_factory=CommandStatistics, description="Counts and timings of the agent's tool calls."
    )
    total_assistant_turns: int = Field(0, description="Assistant messages over all turns.")
    expected_commands: int | None = Field(None, description="Tool calls the task expected (for commands_efficiency).")
    actual_commands: int | None = Field(None, description="Tool calls the agent made (for commands_efficiency).")
    commands_efficiency: float | None = Field(
        None, description="expected / actual tool calls, when the task asks for it."
    )
    pre_run_results: list[CommandResult] = Field(default_factory=list, description="Outcome of each pre_run command.")
    post_run_results: list[CommandResult] = Field(default_factory=list, description="Outcome of each post_run command.")
    simulation: dict[str, Any] | None = Field(None, description="What the simulated user did, when the task has one.")
    early_stop: EarlyStopInfo | None = Field(None, description="Why and when the agent was stopped early, if it was.")
    network: NetworkRecord | None = Field(
        None, description="The unit's network policy as it held, and every egress attempt it made."
    )
    record_notes: RecordNotes | None = Field(
        None, description="Set when this record was read from another format: what was mapped and what was not."
    )

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def agent_cost_usd(self) -> float | None:
        return self.total_token_usage.total_cost_usd

    @property
    def reference_similarity(self) -> float | None:
        scores = [r.score for r in self.success_criteria_results if r.criterion_type == "reference_comparison"]
        return sum(scores) / len(scores) if scores else None
