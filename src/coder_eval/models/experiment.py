"""Experiment files: defaults shared by every arm, and the variants (arms) to compare.

`defaults`, and each variant, carry *partial* config dicts: only the keys that differ
from the layers below. At load each partial dict is checked against the model it will
merge into (unknown keys are errors with a did-you-mean); the full validation happens
on the merged task (see `coder_eval.config.resolve`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from coder_eval.models.adaptive import AdaptiveConfig
from coder_eval.models.base import Identifier, NonBlank, StrictModel
from coder_eval.models.partial import check_partial, check_partial_agent
from coder_eval.models.providers import ProvidersConfig
from coder_eval.models.sandbox import SandboxConfig, TemplateSource
from coder_eval.models.task_parts import (
    CheckerContext,
    PostRunCommand,
    PreRunCommand,
    RunLimits,
    SimulationConfig,
)

KEBAB_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _repeats(value: Any) -> Any:
    """One plain message for a bad `repeats`, instead of one per member of the union."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)  # "3" was always read as 3
    whole = isinstance(value, int) and not isinstance(value, bool)
    if value == "auto" or (whole and value >= 1):
        return value
    raise ValueError(f"repeats takes a whole number of at least 1, or auto (adaptive replicates), not {value!r}")


Repeats = Annotated[int | Literal["auto"], BeforeValidator(_repeats)]
"""A replicate count, or `auto`: adaptive replicates (docs/experiments.md, "Adaptive replicates")."""


class PrefixMutation(StrictModel):
    """Put text before the prompt."""

    type: Literal["prefix"] = Field(description="Mutation kind.")
    content: NonBlank = Field(description="Text placed before the prompt.")
    separator: str = Field("\n\n", description="Joins the content and the prompt.")


class SuffixMutation(StrictModel):
    """Put text after the prompt."""

    type: Literal["suffix"] = Field(description="Mutation kind.")
    content: NonBlank = Field(description="Text placed after the prompt.")
    separator: str = Field("\n\n", description="Joins the prompt and the content.")


class ReplaceMutation(StrictModel):
    """Replace text in the prompt: literally, or as a regular expression."""

    type: Literal["replace"] = Field(description="Mutation kind.")
    pattern: NonBlank = Field(description="Text (or, with regex: true, a Python regular expression) to find.")
    replacement: str = Field(description="Replacement; with regex: true, backreferences such as \\1 work.")
    regex: bool = Field(False, description="Treat pattern as a regular expression (re.sub).")

    @model_validator(mode="after")
    def _pattern_compiles(self) -> ReplaceMutation:
        if self.regex:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"pattern is not a valid regular expression: {exc}") from None
        return self


class TemplateMutation(StrictModel):
    """Substitute literal `{name}` placeholders; names without a value are left as written."""

    type: Literal["template"] = Field(description="Mutation kind.")
    variables: dict[str, str] = Field(min_length=1, description="Placeholder name -> replacement text.")


PromptMutation = Annotated[
    PrefixMutation | SuffixMutation | ReplaceMutation | TemplateMutation, Field(discriminator="type")
]


def apply_mutation(prompt: str, mutation: PrefixMutation | SuffixMutation | ReplaceMutation | TemplateMutation) -> str:
    """Apply one mutation to a prompt."""
    if isinstance(mutation, PrefixMutation):
        return f"{mutation.content}{mutation.separator}{prompt}"
    if isinstance(mutation, SuffixMutation):
        return f"{prompt}{mutation.separator}{mutation.content}"
    if isinstance(mutation, ReplaceMutation):
        if mutation.regex:
            return re.sub(mutation.pattern, mutation.replacement, prompt)
        return prompt.replace(mutation.pattern, mutation.replacement)
    for name, value in mutation.variables.items():
        prompt = prompt.replace("{" + name + "}", value)
    return prompt


def _raise_problems(problems: list[str]) -> None:
    if problems:
        raise ValueError("; ".join(problems))


def _check_agent(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None:
        _raise_problems(check_partial_agent(value))
    return value


_PARTIAL_TARGETS: dict[str, type[BaseModel]] = {
    "run_limits": RunLimits,
    "sandbox": SandboxConfig,
    "checker_context": CheckerContext,
    "simulation": SimulationConfig,
}


def _check_partial_block(value: dict[str, Any] | None, info: ValidationInfo) -> dict[str, Any] | None:
    """Partial blocks name only real fields of their target model (full validation follows the merge)."""
    if value is not None and info.field_name is not None:
        _raise_problems(check_partial(_PARTIAL_TARGETS[info.field_name].model_fields, value, info.field_name))
    return value


class ExperimentDefaults(StrictModel):
    """Partial config applied to every variant (layer 2 of the merge)."""

    agent: dict[str, Any] | None = Field(None, description="Partial agent config; `type` picks the agent kind.")
    run_limits: dict[str, Any] | None = Field(None, description="Partial run_limits (per-key).")
    sandbox: dict[str, Any] | None = Field(None, description="Partial sandbox config (deep-merged).")
    pre_run: list[PreRunCommand] = Field(
        default_factory=list, description="Commands run before each task's own pre_run."
    )
    post_run: list[PostRunCommand] = Field(
        default_factory=list, description="Commands run after each task's own post_run."
    )
    checker_context: dict[str, Any] | None = Field(None, description="Partial checker_context, per namespace.")
    simulation: dict[str, Any] | None = Field(None, description="Partial simulation config, per key.")
    prompt_mutations: list[PromptMutation] = Field(
        default_factory=list, description="Mutations applied to every variant's prompt, before the variant's own."
    )
    repeats: Repeats | None = Field(
        None,
        description="Replicates per (task, variant) unless a variant says; `auto` adds them in rounds while they "
        "can still change the verdict of two arms (see `adaptive`).",
    )
    driver: NonBlank | None = Field(
        None, description="Sandbox driver for every variant (a variant's own driver wins); same as sandbox.driver."
    )
    template_sources: list[TemplateSource] = Field(
        default_factory=list,
        description="Sources applied after each task's own, before a variant's (template_dir relative to the "
        "experiment file); same as sandbox.template_sources.",
    )

    _agent = field_validator("agent")(_check_agent)
    _partials = field_validator("run_limits", "sandbox", "checker_context", "simulation")(_check_partial_block)

    @model_validator(mode="after")
    def _one_spelling(self) -> ExperimentDefaults:
        sandbox = self.sandbox or {}
        if self.driver is not None and "driver" in sandbox:
            raise ValueError("defaults.driver and defaults.sandbox.driver say the same thing; keep one of them")
        if self.template_sources and "template_sources" in sandbox:
            raise ValueError(
                "defaults.template_sources and defaults.sandbox.template_sources say the same thing; keep one of them"
            )
        return self


class ExperimentVariant(StrictModel):
    """One arm of the experiment (layer 4 of the merge)."""

    variant_id: Identifier = Field(description="Unique arm id; also a directory name.")
    description: str = Field("", description="Human-readable label shown in reports.")
    agent: dict[str, Any] | None = Field(None, description="Partial agent config overrides.")
    simulation: dict[str, Any] | None = Field(None, description="Partial simulation overrides, per key.")
    repeats: int | None = Field(None, ge=1, description="Replicates for this arm (beats the experiment default).")
    template_sources: list[TemplateSource] = Field(
        default_factory=list, description="Extra sources applied after the task's (template_dir relative to here)."
    )
    prompt_mutations: list[PromptMutation] = Field(
        default_factory=list, description="Ordered mutations of the task prompt."
    )
    initial_prompt: str | None = Field(None, description="Replaces the task prompt.")
    initial_prompt_file: str | None = Field(
        None, description="File (relative to the experiment YAML) whose text replaces the task prompt."
    )
    run_limits: dict[str, Any] | None = Field(None, description="Partial run_limits overrides (per key).")
    driver: Literal["tempdir", "docker"] | None = Field(None, description="Sandbox driver for this arm.")
    checker_context: dict[str, Any] | None = Field(None, description="Partial checker_context, per namespace.")

    _agent = field_validator("agent")(_check_agent)
    _partials = field_validator("run_limits", "checker_context", "simulation")(_check_partial_block)

    @model_validator(mode="after")
    def _one_prompt_source(self) -> ExperimentVariant:
        used = [
            name
            for name, is_set in (
                ("initial_prompt", self.initial_prompt is not None),
                ("initial_prompt_file", self.initial_prompt_file is not None),
                ("prompt_mutations", bool(self.prompt_mutations)),
            )
            if is_set
        ]
        if len(used) > 1:
            raise ValueError(f"{' and '.join(used)} are mutually exclusive: a variant may set only one of them")
        return self


QuarantineMode = Literal["exclude", "weight"]


class Quarantine(StrictModel):
    """Tasks known to be unstable, kept out of (or down-weighted in) the experiment's statistics and verdict."""

    tasks: list[NonBlank] = Field(min_length=1, description="Task ids (a dataset row's id is `<task>/<row>`).")
    mode: QuarantineMode = Field(
        "exclude",
        description="`exclude`: left out of every statistic and the verdict; `weight`: counted with `weight`.",
    )
    weight: float | None = Field(
        None, gt=0, lt=1, description="With mode `weight`: each task's weight, between 0 and 1 (others weigh 1)."
    )
    reason: str = Field("", description="Why these tasks are quarantined; shown in every report.")

    @model_validator(mode="after")
    def _weight_with_its_mode(self) -> Quarantine:
        if self.mode == "weight" and self.weight is None:
            raise ValueError("mode weight needs a weight between 0 and 1 (for example weight: 0.25)")
        if self.mode == "exclude" and self.weight is not None:
            raise ValueError("weight applies to mode weight; with mode exclude the tasks are left out entirely")
        dupes = sorted({t for t in self.tasks if self.tasks.count(t) > 1})
        if dupes:
            raise ValueError(f"task {', '.join(map(repr, dupes))} is listed more than once")
        return self

    @property
    def task_weight(self) -> float:
        """The weight each listed task gets: 0 when excluded."""
        return 0.0 if self.mode == "exclude" else float(self.weight or 0.0)


class ExperimentDefinition(StrictModel):
    """An experiment file: shared defaults plus at least one variant."""

    experiment_id: str = Field(description="kebab-case experiment id.")
    description: str = Field("", description="What the experiment measures.")
    defaults: ExperimentDefaults = Field(
        default_factory=ExperimentDefaults, description="Partial config applied to every variant."
    )
    variants: list[ExperimentVariant] = Field(min_length=1, description="The arms; variant_id values are unique.")
    repeats: Repeats | None = Field(None, description="Same as defaults.repeats (set one or the other).")
    adaptive: AdaptiveConfig | None = Field(
        None, description="Settings of adaptive replicates, used when repeats is auto (here or on the command line)."
    )
    providers: ProvidersConfig | None = Field(
        None,
        description="Model providers for this experiment's runs, over the user's providers.yaml (same format: "
        "providers and defaults).",
    )

    quarantine: Quarantine | None = Field(
        None,
        description="Unstable tasks to leave out of the statistics and verdict (a list of task ids), or to "
        "down-weight ({tasks: [...], mode: weight, weight: 0.25}); every report says which and how.",
    )

    _source_file: Path | None = PrivateAttr(None)

    @field_validator("quarantine", mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        """`quarantine: [a, b]` is short for `quarantine: {tasks: [a, b]}` (mode exclude)."""
        return {"tasks": value} if isinstance(value, list) else value

    @field_validator("experiment_id")
    @classmethod
    def _kebab(cls, value: str) -> str:
        if not KEBAB_RE.fullmatch(value):
            raise ValueError(f"experiment_id {value!r} must be kebab-case (lowercase letters, digits and '-')")
        return value

    @model_validator(mode="after")
    def _rules(self) -> ExperimentDefinition:
        ids = [v.variant_id for v in self.variants]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"variant_id {', '.join(map(repr, dupes))} is used more than once")
        if self.repeats is not None and self.defaults.repeats is not None:
            raise ValueError("set repeats either at the top level or under defaults, not both")
        if self.default_repeats == "auto":
            fixed = [v.variant_id for v in self.variants if v.repeats is not None]
            if fixed:
                raise ValueError(
                    f"repeats: auto runs every arm's replicates in pairs, so variant {', '.join(map(repr, fixed))} "
                    "cannot set its own repeats; remove it (or set a number of repeats for the whole experiment)"
                )
        return self

    @property
    def source_file(self) -> Path | None:
        """The YAML file this experiment was loaded from (None when built in code)."""
        return self._source_file

    def with_source(self, path: Path) -> ExperimentDefinition:
        """Record the file this experiment came from; returns self."""
        self._source_file = path
        return self

    @property
    def default_repeats(self) -> int | Literal["auto"] | None:
        """Experiment-wide replicate count, wherever it was written."""
        return self.defaults.repeats if self.defaults.repeats is not None else self.repeats

    def variant(self, variant_id: str) -> ExperimentVariant:
        """The variant with this id (KeyError when absent)."""
        for variant in self.variants:
            if variant.variant_id == variant_id:
                return variant
        raise KeyError(variant_id)
