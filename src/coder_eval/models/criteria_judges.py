"""Criteria graded by a model, by a reference solution, or by an external evaluator."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import NonBlank, StrictModel, escapes_root
from coder_eval.models.criteria_base import BaseCriterion, names_reference
from coder_eval.models.sandbox import check_ignore_patterns
from coder_eval.models.sdk_options import check_sdk_options

DEFAULT_JUDGE_MODEL = "anthropic.claude-sonnet-4-6"


class JudgeContextFields(BaseCriterion):
    """What a judge is shown besides its prompt."""

    enabled: bool = Field(
        True,
        description="false switches the judge off: no model call, a result scored 1.0 whose details say it "
        "was not judged (as the reference system scores a disabled judge).",
    )
    prompt: NonBlank = Field(description="Grading instructions shown to the judge.")
    files: list[str] = Field(
        default_factory=list,
        description="Files shown to the judge: sandbox-relative, or $TASK_DIR/... and $REFERENCE_DIR/... host paths.",
    )
    include_reference: bool = Field(True, description="Show the reference solution to the judge (never the agent).")
    include_agent_output: bool = Field(False, description="Include the latest turn's raw output (as untrusted data).")
    include_tool_calls: bool = Field(False, description="Include a summary of the latest turn's tool calls.")
    include_dialog: bool = Field(False, description="Include the whole user/agent conversation.")
    max_dialog_chars: int = Field(80_000, ge=1, description="Cap on dialog text in the prompt.")
    max_file_chars: int = Field(20_000, ge=1, description="Per-file truncation before building the prompt.")
    capture_transcript: bool = Field(True, description="Write the judge transcript to judge-N.yaml.")
    max_transcript_chars: int = Field(100_000, ge=1, description="Cap on captured transcript text.")
    requires_agent: ClassVar[bool] = True

    @property
    def sees_reference(self) -> bool:
        return self.include_reference or any(names_reference(entry) for entry in self.files)


class LlmJudgeCriterion(JudgeContextFields):
    """Continuous: one model call grades the work against a rubric via a forced verdict tool."""

    type: Literal["llm_judge"] = "llm_judge"
    model: str | None = Field(None, description=f"Judge model id; default {DEFAULT_JUDGE_MODEL}.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    max_tokens: int = Field(2000, ge=1, description="Maximum tokens in the verdict.")


class JudgeAgentOverrides(StrictModel):
    """The judge sub-agent's configuration; unset fields keep the hardened judge defaults."""

    type: Literal["claude-code"] = Field("claude-code", description="Judges run on Claude Code.")
    model: str | None = Field(None, description="Judge agent model.")
    permission_mode: Literal["default", "acceptEdits", "plan", "bypassPermissions"] | None = None
    allowed_tools: list[str] | None = Field(None, description="Default: Bash, Read, Glob, Grep.")
    disallowed_tools: list[str] | None = None
    ignore_patterns: list[str] | None = Field(None, description="Extra ignore patterns for the sandbox copy.")
    sdk_options: dict[str, Any] = Field(default_factory=dict, description="Claude Agent SDK pass-through options.")

    @field_validator("ignore_patterns")
    @classmethod
    def _patterns(cls, values: list[str] | None) -> list[str] | None:
        return None if values is None else check_ignore_patterns(values)

    @field_validator("sdk_options")
    @classmethod
    def _sdk_keys(cls, options: dict[str, Any]) -> dict[str, Any]:
        return check_sdk_options(options)


class AgentJudgeCriterion(JudgeContextFields):
    """Continuous: a tool-using judge agent inspects a copy of the sandbox and returns a verdict."""

    type: Literal["agent_judge"] = "agent_judge"
    max_turns: int = Field(50, ge=1, description="Judge's inner-loop turn limit.")
    turn_timeout: float = Field(300, gt=0, description="Judge wall-clock limit in seconds.")
    agent: JudgeAgentOverrides = Field(default_factory=JudgeAgentOverrides, description="Judge agent settings.")


class NoulQuestion(StrictModel):
    """A yes/no question; `expected` says which answer earns the credit."""

    type: Literal["noul"] = "noul"
    instructions: NonBlank = Field(description="The question put to the judge.")
    expected: bool = Field(True, description="The answer that scores 1.0.")
    weight: float = Field(1.0, gt=0, description="Share of this question in the rubric score.")


class ChoiceQuestion(StrictModel):
    """Pick one option; credit from `expected` (one right answer) or from `values` (partial credit)."""

    type: Literal["choice"] = "choice"
    instructions: NonBlank = Field(description="The question put to the judge.")
    criteria: list[NonBlank] | dict[str, str] = Field(description="The options, bare or with descriptions.")
    expected: str | None = Field(None, description="The option that scores 1.0.")
    values: dict[str, float] | None = Field(None, description="Score per option (unlisted options score 0).")
    weight: float = Field(1.0, gt=0, description="Share of this question in the rubric score.")

    @property
    def options(self) -> list[str]:
        return list(self.criteria) if isinstance(self.criteria, list) else list(self.criteria.keys())

    @model_validator(mode="after")
    def _scored(self) -> ChoiceQuestion:
        opts = self.options
        if len(opts) < 2:
            raise ValueError("a choice question needs at least two options")
        if (self.expected is None) == (self.values is None):
            raise ValueError("give exactly one of expected (one right answer) or values (partial credit)")
        if self.expected is not None and self.expected not in opts:
            raise ValueError(f"expected {self.expected!r} is not one of the options {opts}")
        for key, val in (self.values or {}).items():
            if key not in opts:
                raise ValueError(f"values names {key!r}, which is not one of the options {opts}")
            if not 0.0 <= val <= 1.0:
                raise ValueError(f"value for {key!r} must be between 0 and 1")
        return self


class ScoreQuestion(StrictModel):
    """An ordered scale, worst level first; level i of n scores i/(n-1)."""

    type: Literal["score"] = "score"
    instructions: NonBlank = Field(description="The question put to the judge.")
    criteria: list[NonBlank] = Field(min_length=2, description="Levels from worst to best.")
    weight: float = Field(1.0, gt=0, description="Share of this question in the rubric score.")


RubricQuestion = Annotated[NoulQuestion | ChoiceQuestion | ScoreQuestion, Field(discriminator="type")]


class SystemOneJudgeCriterion(JudgeContextFields):
    """Continuous: a rubric of typed questions answered by a judge, reduced to a weighted mean."""

    type: Literal["system_one_judge"] = "system_one_judge"
    questions: dict[str, RubricQuestion] = Field(min_length=1, description="Named rubric questions.")
    model: str | None = Field(None, description="Judge model id.")
    include_reference: bool = Field(False, description="Show the reference solution to the judge.")
    scoring: Literal["expected", "argmax"] = Field(
        "expected",
        description="How an answer earns its credit when the judge gives a distribution over the options: "
        "`expected` is the probability-weighted mean credit, `argmax` the credit of the likeliest option. "
        "Without a distribution both use the answer given.",
    )
    base_url: str | None = Field(
        None,
        description="An Anthropic Messages-compatible endpoint the judge calls (relayed by the gateway, which "
        "records and prices the call) instead of the run's default provider.",
    )
    api_key_env: NonBlank | None = Field(
        None, description="Environment variable holding the key for base_url (sent as x-api-key); needs base_url."
    )
    timeout_seconds: float | None = Field(
        None, gt=0, description="Seconds the judge call may take (default: the unit's turn_timeout, else 300)."
    )
    max_state_chars: int | None = Field(
        None,
        ge=1,
        description="Cap on the whole context shown to the judge (files, output, tool calls, dialog) after the "
        "per-block caps; the cut is marked in the prompt and noted in the details.",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http:// or https:// URL")
        return value

    @model_validator(mode="after")
    def _key_needs_endpoint(self) -> SystemOneJudgeCriterion:
        if self.api_key_env is not None and self.base_url is None:
            raise ValueError("api_key_env names the key for base_url; set base_url too (or drop api_key_env)")
        return self


class ReferenceComparisonCriterion(BaseCriterion):
    """Continuous: similarity of one agent file to one reference file (ast, token or complexity)."""

    type: Literal["reference_comparison"] = "reference_comparison"
    agent_file: NonBlank = Field(description="Agent's file, sandbox-relative (a glob when no literal match).")
    reference_file: NonBlank = Field(description="File inside reference.directory to compare against.")
    comparison_method: Literal["ast", "token", "complexity", "ast_shape"] = Field(
        "ast",
        description="Similarity method: ast, token, complexity (as the reference system scores them) or ast_shape.",
    )
    similarity_threshold: float = Field(0.8, ge=0.0, le=1.0, description="Minimum similarity that passes.")
    reads_files_only: ClassVar[bool] = True

    @property
    def sees_reference(self) -> bool:
        return True

    @field_validator("reference_file")
    @classmethod
    def _inside_reference(cls, value: str) -> str:
        if escapes_root(value):
            raise ValueError("reference_file must be relative and stay inside the reference directory")
        return value


class UipathEvalCriterion(BaseCriterion):
    """Fractional: metrics of a UiPath evaluation set that meet their thresholds."""

    type: Literal["uipath_eval"] = "uipath_eval"
    agent_name: NonBlank = Field(description="UiPath agent to evaluate.")
    eval_set: NonBlank = Field(description="Evaluation set identifier.")
    thresholds: dict[str, float] = Field(min_length=1, description="Minimum value per metric.")
    requires_agent: ClassVar[bool] = False
