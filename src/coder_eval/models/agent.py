"""Agent configuration: the shared base and the registry of config classes by `type`.

`agent.type` is an open string. Each agent kind (built in or from a plugin)
registers its config class here; a task's `agent:` block is validated against the
class registered for its `type`.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import NonBlank, StrictModel
from coder_eval.models.registry import Registry, UnknownKindError

DEFAULT_AGENT_KIND = "claude-code"

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions"]


class PluginSpec(StrictModel):
    """A local plugin root (for Claude Code it must hold a `skills/` directory)."""

    type: Literal["local"] = Field("local", description="Only local plugin roots are supported.")
    path: NonBlank = Field(description="Directory; $VAR and ${VAR} are expanded from the environment.")


class BaseAgentConfig(StrictModel):
    """Fields every agent kind shares. Subclasses narrow `type` to a Literal."""

    type: str = Field(DEFAULT_AGENT_KIND, description="Agent kind, e.g. claude-code, codex, none, or a plugin's.")
    model: str | None = Field(None, description="Model id; omit for the route default.")
    permission_mode: PermissionMode = Field("acceptEdits", description="Permission handling for tool use.")
    allowed_tools: list[str] | None = Field(None, description="Tool allowlist; unset allows every tool.")
    disallowed_tools: list[str] | None = Field(None, description="Tool denylist.")
    plugins: list[PluginSpec] = Field(default_factory=list, description="Local plugin roots carrying skills.")
    system_prompt: str | None = Field(None, description="Appended to the agent's default system prompt.")
    system_prompt_mode: Literal["append", "replace"] = Field(
        "append", description="`replace` sends system_prompt as the whole system prompt."
    )
    system_prompt_file: str | None = Field(
        None, description="File (relative to the task YAML) read into system_prompt."
    )
    context_window: int | None = Field(
        None,
        ge=1,
        description="Cap, in tokens, on the context the agent's harness plans for (compaction, what is "
        "left); only kinds that can pass it on accept it (codex, pi), the others refuse it at load.",
    )

    accepts_context_window: ClassVar[bool] = False
    """A kind whose CLI can be told `context_window` sets this; any other refuses the field at load."""

    @field_validator("system_prompt")
    @classmethod
    def _blank_is_unset(cls, value: str | None) -> str | None:
        return value if value and value.strip() else None

    @model_validator(mode="after")
    def _prompt_rules(self) -> BaseAgentConfig:
        if self.system_prompt and self.system_prompt_file:
            raise ValueError("system_prompt and system_prompt_file are mutually exclusive")
        if self.system_prompt_mode == "replace" and not (self.system_prompt or self.system_prompt_file):
            raise ValueError("system_prompt_mode: replace needs a non-blank system_prompt or system_prompt_file")
        if self.context_window is not None and not type(self).accepts_context_window:
            raise ValueError(
                f"agent type {self.type!r} cannot be given a context_window (its harness has no setting for it); "
                "remove context_window, or use an agent kind that takes one (codex, pi)"
            )
        return self


AGENT_CONFIGS: Registry[type[BaseAgentConfig]] = Registry("agent type")
"""Agent kind -> its config class. Filled by agent registration (`coder_eval.agents.registry`)."""


def register_agent_config(kind: str, config_class: type[BaseAgentConfig]) -> None:
    """Bind an agent kind to its config class. Re-binding the same class is a no-op."""
    AGENT_CONFIGS.add(kind, config_class)


def registered_agent_kinds() -> list[str]:
    return AGENT_CONFIGS.names()


def agent_config_class(kind: str) -> type[BaseAgentConfig]:
    """The config class for `kind`, or a ValueError that names the known kinds."""
    try:
        return AGENT_CONFIGS.get(kind)
    except UnknownKindError as exc:
        raise ValueError(str(exc)) from None


def parse_agent_config(value: Any) -> Any:
    """Validate a raw `agent:` mapping against the config class registered for its type."""
    if value is None or isinstance(value, BaseAgentConfig):
        return value
    if not isinstance(value, dict):
        raise ValueError("agent must be a mapping with at least a `type`")
    kind = value.get("type", DEFAULT_AGENT_KIND)
    if not isinstance(kind, str):
        raise ValueError("agent.type must be a string")
    return agent_config_class(kind).model_validate({**value, "type": kind})
