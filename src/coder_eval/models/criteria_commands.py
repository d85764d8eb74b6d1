"""Criteria that run commands or read what the agent executed."""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import NonBlank, RegexStr, StrictModel
from coder_eval.models.criteria_base import BaseCriterion, LiveCriterion, names_reference


class RunCommandCriterion(BaseCriterion):
    """Binary: a shell command exits as expected, optionally with matching stdout."""

    type: Literal["run_command"] = "run_command"
    command: NonBlank = Field(
        description="Shell command run in the sandbox (TASK_DIR in env; REFERENCE_DIR when the command names it)."
    )
    timeout: float = Field(30, gt=0, description="Seconds before the command is killed (scores 0).")
    expected_exit_code: int = Field(0, description="Exit code that counts as success.")
    expected_stdout: str | None = Field(None, description="When set, stdout must also match.")
    stdout_match: Literal["exact", "contains", "regex"] = Field(
        "exact", description="exact (whitespace-stripped), contains (substring) or regex (search)."
    )
    score_from_stdout: bool = Field(
        False, description="Read a 0.0-1.0 score from the first stdout line; later lines become details."
    )
    read_only: bool = Field(
        False,
        description="Declares the command artifact-only (it reads the workspace, changes nothing): it then also "
        "runs after an agent crash or timeout, recorded among the diagnostics and never scored there.",
    )

    @property
    def runs_after_failure(self) -> bool:
        return self.read_only

    @property
    def sees_reference(self) -> bool:
        return names_reference(self.command)

    @model_validator(mode="after")
    def _exclusive(self) -> RunCommandCriterion:
        if self.score_from_stdout and self.expected_stdout is not None:
            raise ValueError("score_from_stdout and expected_stdout are mutually exclusive")
        if self.stdout_match == "regex" and self.expected_stdout is not None:
            RegexStrCheck(pattern=self.expected_stdout)
        return self


class RegexStrCheck(StrictModel):
    pattern: RegexStr


class FlagPredicate(StrictModel):
    """A predicate on one flag's values. Exactly one of the predicate keys is set."""

    equals: str | None = Field(None, description="The value equals this string.")
    contains: str | None = Field(None, description="The value contains this substring.")
    matches_regex: RegexStr | None = Field(None, description="The value matches this regex (search).")
    any_of: list[str] | None = Field(None, description="The value equals one of these strings.")
    present: Literal[True] | None = Field(None, description="The flag was passed, whatever its value.")
    absent: Literal[True] | None = Field(None, description="The flag was not passed at all.")
    flags: int | None = Field(None, ge=0, description="`re` flags for matches_regex only.")
    aliases: list[NonBlank] = Field(default_factory=list, description="Other names of the same flag.")

    PREDICATES: ClassVar[tuple[str, ...]] = (
        "equals",
        "contains",
        "matches_regex",
        "any_of",
        "present",
        "absent",
    )

    @field_validator("aliases")
    @classmethod
    def _strip_alias_dashes(cls, names: list[str]) -> list[str]:
        return [_flag_name(n) for n in names]

    @model_validator(mode="after")
    def _exactly_one(self) -> FlagPredicate:
        chosen = [name for name in self.PREDICATES if getattr(self, name) is not None]
        if len(chosen) != 1:
            listed = ", ".join(chosen) if chosen else "none"
            raise ValueError(f"give exactly one of {', '.join(self.PREDICATES)} (got {listed})")
        if self.flags is not None and chosen[0] != "matches_regex":
            raise ValueError("`flags` only applies to matches_regex")
        if self.any_of is not None and not self.any_of:
            # An empty list can never match, which would make a negative guard pass vacuously.
            raise ValueError("any_of needs at least one value")
        return self

    @property
    def predicate(self) -> str:
        return next(name for name in self.PREDICATES if getattr(self, name) is not None)

    @property
    def takes_value(self) -> bool:
        return self.predicate not in ("present", "absent")


def _flag_name(name: str) -> str:
    """The flag name as matched: leading dashes removed; it must still name something."""
    bare = name.lstrip("-")
    if not bare or "=" in bare or any(ch.isspace() for ch in bare):
        raise ValueError(f"{name!r} is not a flag name (need a name without '=' or whitespace)")
    return bare


def _reject_flag_tokens(verb: str) -> None:
    """A verb is matched against non-flag arguments only, so a flag token in it could never match."""
    for token in verb.split():
        if token.startswith("-") and token.lstrip("-")[:1].isalpha():
            raise ValueError(f"verb {verb!r} contains the flag {token!r}; assert flags under `flags:`")


class CliCalledCriterion(BaseCriterion):
    """Binary: the JSON Lines invocation log holds a call matching a structured pattern."""

    type: Literal["cli_called"] = "cli_called"
    log: str | None = Field(None, description="Invocation log; defaults to the record_cli log cli_mocks/calls.jsonl.")
    tool: str | None = Field(None, description="Only records of this tool.")
    verb: str | None = Field(None, description="Ordered prefix of the non-flag arguments, space separated.")
    verb_any_of: list[NonBlank] | None = Field(None, description="Alternative complete verbs; any one matches.")
    positional: list[str] | None = Field(None, description="Non-flag arguments after the verb (a prefix).")
    flags: dict[str, FlagPredicate] = Field(default_factory=dict, description="Predicates per flag name.")
    value_flags: list[NonBlank] | None = Field(
        None, description="Flags that take the next token (default: an ignored `output`); [] declares that none does."
    )
    ignore_flags: list[NonBlank] = Field(
        default_factory=lambda: ["output"], description="Flags dropped before matching."
    )
    min_count: int = Field(1, ge=0, description="Minimum matching invocations.")
    max_count: int | None = Field(None, ge=0, description="Maximum matching invocations; 0 forbids the call.")

    @field_validator("flags", mode="before")
    @classmethod
    def _scalar_is_equals(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        normalized: dict[str, object] = {}
        for key, pred in value.items():
            name = _flag_name(str(key))
            if name in normalized:
                raise ValueError(f"flag {name!r} is given twice (names are compared without leading dashes)")
            is_scalar = isinstance(pred, str | int | float) and not isinstance(pred, bool)
            normalized[name] = {"equals": str(pred)} if is_scalar else pred
        return normalized

    @field_validator("value_flags", "ignore_flags")
    @classmethod
    def _strip_dashes(cls, names: list[str] | None) -> list[str] | None:
        return None if names is None else [_flag_name(n) for n in names]

    @model_validator(mode="after")
    def _consistent(self) -> CliCalledCriterion:
        if self.verb is not None and self.verb_any_of is not None:
            raise ValueError("verb and verb_any_of are mutually exclusive")
        if self.verb is not None and not self.verb.split():
            raise ValueError("verb must name at least one token")
        for verb in [self.verb] if self.verb is not None else self.verb_any_of or []:
            _reject_flag_tokens(verb)
        if self.verb_any_of is not None:
            self._check_alternatives(self.verb_any_of)
        if self.positional is not None and not self.positional:
            raise ValueError("positional: [] asserts nothing; omit it or name the arguments")
        if self.max_count is not None and self.max_count < self.min_count:
            raise ValueError(f"max_count ({self.max_count}) is below min_count ({self.min_count})")
        owner: dict[str, str] = {}
        for key, pred in self.flags.items():
            if key in self.ignore_flags:
                raise ValueError(f"flag {key!r} has a predicate but is also in ignore_flags, so it could never match")
            for name in [key, *pred.aliases]:
                if (name in owner and owner[name] != key) or (name != key and name in self.flags):
                    raise ValueError(f"flag name {name!r} belongs to more than one predicate")
                if name in self.ignore_flags:
                    raise ValueError(f"alias {name!r} of {key!r} is also in ignore_flags")
                owner[name] = key
        return self

    @staticmethod
    def _check_alternatives(verbs: list[str]) -> None:
        if not verbs:
            raise ValueError("verb_any_of needs at least one verb")
        split = [v.split() for v in verbs]
        for i, a in enumerate(split):
            for j, b in enumerate(split):
                if i != j and len(a) <= len(b) and b[: len(a)] == a:
                    raise ValueError(
                        f"verb_any_of entry {verbs[i]!r} is a prefix of {verbs[j]!r}, so the longer one adds nothing"
                    )


class CommandExecutedCriterion(LiveCriterion):
    """Fractional: the agent ran matching tool calls (min_count..max_count of them)."""

    type: Literal["command_executed"] = "command_executed"
    tool_name: str | None = Field(
        None,
        description="Tool filter: a raw tool name, a canonical kind (shell, read, write, edit, ...) or a "
        "Claude Code name standing for its kind on every agent (Bash = any shell tool); null counts any tool.",
    )
    command_pattern: RegexStr | None = Field(None, description="Regex over the command (raw and shell-normalized).")
    exclude_pattern: RegexStr | None = Field(None, description="Commands matching this regex are skipped.")
    min_count: int = Field(1, ge=0, description="Minimum matching commands.")
    max_count: int | None = Field(None, ge=0, description="Inclusive upper bound on matching commands.")
    require_success: bool = Field(False, description="Count only commands that succeeded.")
    requires_agent: ClassVar[bool] = True

    @model_validator(mode="after")
    def _bounds(self) -> CommandExecutedCriterion:
        if self.max_count is not None and self.max_count < self.min_count:
            raise ValueError(f"max_count ({self.max_count}) is below min_count ({self.min_count})")
        return self


class CommandsEfficiencyCriterion(BaseCriterion):
    """Continuous: expected tool calls / max(actual, expected)."""

    type: Literal["commands_efficiency"] = "commands_efficiency"
    expected_commands: int = Field(ge=1, description="Budget of tool calls for the task.")
    requires_agent: ClassVar[bool] = True


class SkillTriggeredCriterion(LiveCriterion):
    """Binary classifier: did the agent engage the named skill?"""

    type: Literal["skill_triggered"] = "skill_triggered"
    skill_name: NonBlank = Field(description="Skill to detect (a Skill call, or a read under skills/<name>/).")
    expected_skill: str = Field(description="The row's true skill; empty for rows where it must not fire.")
    requires_agent: ClassVar[bool] = True


class HarborVerifierCriterion(BaseCriterion):
    """A Harbor task's verifier: its tests run in the sandbox, scored by the reward it writes."""

    type: Literal["harbor_verifier"] = "harbor_verifier"
    tests_dir: NonBlank = Field(
        "tests", description="The verifier's directory (holding test.sh), relative to the task YAML."
    )
    tests_path: NonBlank = Field("/tests", description="Where the verifier's directory is copied inside the sandbox.")
    logs_path: NonBlank = Field(
        "/logs/verifier", description="Where the verifier writes reward.json / reward.txt and its logs."
    )
    timeout: float = Field(600, gt=0, description="Seconds the verifier may take (Harbor's [verifier] timeout_sec).")
    env: dict[str, str] = Field(default_factory=dict, description="Variables the verifier runs with ([verifier] env).")

    @field_validator("tests_path", "logs_path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith("/") or ".." in value.split("/") or not value.strip("/"):
            raise ValueError(f"must be an absolute path inside the sandbox, not / and without '..', not {value!r}")
        return value.rstrip("/")

    @field_validator("tests_dir")
    @classmethod
    def _relative(cls, value: str) -> str:
        if value.startswith("/") or ".." in value.replace("\\", "/").split("/"):
            raise ValueError(f"must be a directory under the task's directory, not {value!r}")
        return value

    @field_validator("env")
    @classmethod
    def _names(cls, value: dict[str, str]) -> dict[str, str]:
        bad = [k for k in value if not _ENV_NAME.fullmatch(k)]
        if bad:
            raise ValueError(f"not environment variable names: {', '.join(map(repr, bad))}")
        return value


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
