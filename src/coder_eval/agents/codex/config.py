"""The `agent:` block of a `codex` task."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.agent import BaseAgentConfig

SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
ReasoningEffort = Literal["minimal", "low", "medium", "high", "xhigh"]
_OWNED = frozenset(
    {
        "model",
        "model_provider",
        "model_providers",
        "sandbox_mode",
        "developer_instructions",
        "model_reasoning_effort",
        "model_context_window",
    }
)


class CodexConfig(BaseAgentConfig):
    """OpenAI Codex (`codex exec --json`), pointed at the gateway's OpenAI Responses route."""

    type: Literal["codex"] = "codex"
    reasoning_effort: ReasoningEffort | None = Field(
        None, description="Codex `model_reasoning_effort`; omit for the model's default."
    )
    sandbox_mode: SandboxMode | None = Field(
        None,
        description="Codex's own command sandbox; omit to derive it from permission_mode "
        "(plan -> read-only, bypassPermissions -> danger-full-access, otherwise workspace-write).",
    )
    sdk_options: dict[str, Any] = Field(
        default_factory=dict,
        description="Extra Codex configuration keys (dotted paths allowed), each passed as `-c key=value`.",
    )
    cli_path: str | None = Field(None, description="A Codex CLI to run instead of the one in openai-codex-cli-bin.")
    accepts_context_window: ClassVar[bool] = True  # passed as Codex's model_context_window

    @field_validator("sdk_options")
    @classmethod
    def _harness_keys(cls, value: dict[str, Any]) -> dict[str, Any]:
        for key in value:
            if key.split(".")[0] in _OWNED:
                raise ValueError(
                    f"sdk_options may not set {key}: the harness sets it (the gateway route, the sandbox) "
                    "or a typed field does (model, sandbox_mode, reasoning_effort, system_prompt)"
                )
        return value

    @model_validator(mode="after")
    def _append_only(self) -> CodexConfig:
        if self.system_prompt_mode == "replace":
            raise ValueError(
                "system_prompt_mode: replace is not supported by codex (system_prompt is added as "
                "developer instructions on top of Codex's own); remove system_prompt_mode"
            )
        return self
