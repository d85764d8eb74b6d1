"""Turn loaded tasks into run units: resolve each task under each experiment variant."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from coder_eval.config.experiments import baseline_experiment, load_experiment
from coder_eval.config.overrides import build_cli_layer
from coder_eval.config.resolve import ResolvedTask, resolve_prompt, resolve_task
from coder_eval.engine.control_checks import control_problem, trial_count
from coder_eval.engine.units import RunUnit
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.experiments.adaptive_settings import AdaptiveSettings
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.agent import DEFAULT_AGENT_KIND, parse_agent_config
from coder_eval.models.experiment import ExperimentDefinition, ExperimentVariant
from coder_eval.models.task import TaskDefinition


@dataclass
class ExperimentPlan:
    experiment: ExperimentDefinition
    units: list[RunUnit] = field(default_factory=list)
    errors: list[TaskConfigError] = field(default_factory=list)
    held_back: list[RunUnit] = field(default_factory=list)
    """Units resolved but refused by a control rule (in `errors`): the unit checks still read
    them, so one pass reports every problem of a file."""
    adaptive: AdaptiveSettings | None = None
    """Set when replicates are adaptive (`repeats: auto`): `units` is then the fixed design, every
    replicate up to the cap, from which engine/adaptive.py runs only what the rounds ask for."""


@dataclass(frozen=True)
class PlanInputs:
    """What the command line contributes to resolution (layer 5 and the experiment choice)."""

    experiment: str | None = None
    sets: tuple[str, ...] = ()
    model: str | None = None
    driver: str | None = None
    agent_type: str | None = None
    repeats: int | Literal["auto"] | None = None
    max_repeats: int | None = None
    confidence: float | None = None
    effect_size: float | None = None
    """--max-repeats, --confidence, --effect-size: adaptive replicates' settings over the experiment's."""


def plan_units(tasks: list[LoadedTask], inputs: PlanInputs, *, cwd: Path | None = None) -> ExperimentPlan:
    """One unit per (variant, task, replicate); a task that fails to resolve is reported, not run."""
    base = cwd or Path.cwd()
    experiment = load_experiment(inputs.experiment, cwd=base)
    baseline = baseline_experiment(base)
    cli = build_cli_layer(inputs.sets, model=inputs.model, driver=inputs.driver, agent_type=inputs.agent_type)
    exp_dir = experiment.source_file.parent if experiment.source_file else base
    adaptive = adaptive_settings(inputs, experiment, baseline)
    if adaptive is not None:
        inputs = replace(inputs, repeats=adaptive.max_repeats)  # the fixed design: every replicate up to the cap
    plan = ExperimentPlan(experiment, adaptive=adaptive)
    for variant in experiment.variants:
        first_row: dict[Path, tuple[ResolvedTask, TaskDefinition]] = {}  # resolved, and as loaded
        prompts: dict[str | None, str | None] = {}  # a row's prompt -> the variant's prompt for it
        lineages: dict[int, dict[str, Any]] = {}  # rows resolved like the first share its lineage
        for task in tasks:
            try:
                if task.suite_id is not None and _same_sandbox(first_row.get(task.source_file), task):
                    resolved = _like_first_row(
                        *first_row[task.source_file], task, experiment, variant, baseline, exp_dir, prompts
                    )
                else:
                    resolved = resolve_task(
                        task,
                        experiment=experiment,
                        variant=variant,
                        baseline=baseline,
                        cli=cli,
                        experiment_dir=exp_dir,
                        cli_repeats=inputs.repeats if inputs.repeats != "auto" else None,
                    )
                    if task.suite_id is not None:
                        first_row[task.source_file] = (resolved, task.definition)
            except TaskConfigError as exc:
                plan.errors.append(exc)
                continue
            loaded = resolved.loaded()
            agent = loaded.definition.agent or parse_agent_config({"type": DEFAULT_AGENT_KIND})
            problem = control_problem(loaded.definition, agent.type) or _adaptive_problem(loaded, adaptive)
            if problem is not None:
                plan.errors.append(TaskConfigError.single(task.source_file, *problem))
                plan.held_back.append(RunUnit(loaded, agent, variant.variant_id, 0))
                continue
            lineage = lineages.get(id(resolved.lineage))
            if lineage is None:
                lineage = lineages[id(resolved.lineage)] = _set_by_layers(resolved.lineage)
            plan.units.extend(
                RunUnit(loaded, agent, variant.variant_id, i, lineage=lineage)
                for i in range(trial_count(loaded.definition, resolved.repeats))
            )
    return plan


def _same_sandbox(first: tuple[ResolvedTask, TaskDefinition] | None, task: LoadedTask) -> bool:
    """Whether a row's sandbox is the first row's (a `${row.x}` in docker or template sources makes it differ)."""
    if first is None:
        return False
    sandbox = first[1].sandbox
    return task.definition.sandbox is sandbox or task.definition.sandbox == sandbox


def _like_first_row(
    first: ResolvedTask,
    first_loaded: TaskDefinition,
    task: LoadedTask,
    experiment: ExperimentDefinition,
    variant: ExperimentVariant,
    baseline: ExperimentDefinition,
    exp_dir: Path,
    prompts: dict[str | None, str | None],
) -> ResolvedTask:
    """Rows of one dataset with the first row's sandbox differ only in prompt and criteria, so they
    share the first row's resolution.

    `prompts` remembers the variant's prompt per row prompt (rows often share one). A row loaded as
    the very definition the first row was (the loader shares it between rows that equal the
    template) shares the first row's resolved definition too, so what units derive from it is
    computed once."""
    if task.definition is first_loaded:
        return replace(first, row_id=task.row_id, row=task.row)
    own = task.definition.initial_prompt
    if own not in prompts:
        prompts[own] = resolve_prompt(
            own, experiment=experiment, variant=variant, baseline=baseline, experiment_dir=exp_dir
        )
    definition = first.definition
    criteria = task.definition.success_criteria
    if prompts[own] != definition.initial_prompt or criteria != definition.success_criteria:
        definition = definition.model_copy(update={"initial_prompt": prompts[own], "success_criteria": criteria})
    # else: the row's task is the first row's, shared (a 10,000-row dataset is not 10,000 copies of it)
    return replace(first, definition=definition, row_id=task.row_id, row=task.row)


def _set_by_layers(lineage: Mapping[str, Any]) -> dict[str, Any]:
    """Lineage of the values some layer set (model defaults are implied), to keep task.json small."""
    return {path: entry for path, entry in lineage.items() if entry.get("source") != "default"}


def adaptive_settings(
    inputs: PlanInputs, experiment: ExperimentDefinition, baseline: ExperimentDefinition
) -> AdaptiveSettings | None:
    """The adaptive settings when the run's repeats are `auto` (the command line's, else the
    experiment's, else the baseline's), else None. Adaptive replicates compare exactly two arms."""
    repeats = inputs.repeats
    if repeats is None:
        repeats = experiment.default_repeats if experiment.default_repeats is not None else baseline.default_repeats
    flags = {
        "--max-repeats": inputs.max_repeats,
        "--confidence": inputs.confidence,
        "--effect-size": inputs.effect_size,
    }
    if repeats != "auto":
        given = [name for name, value in flags.items() if value is not None]
        if given:
            raise UsageError(
                f"{', '.join(given)} set(s) adaptive replicates, which need --repeats auto "
                "(or repeats: auto in the experiment file)"
            )
        return None
    arms = [v.variant_id for v in experiment.variants]
    if len(arms) != 2:
        where = f"experiment {experiment.experiment_id!r} has {len(arms)} arm(s) ({', '.join(arms)})"
        raise UsageError(
            f"--repeats auto compares two arms, and {where}; run it with an experiment of exactly two "
            "variants (-e), or give a number of repeats"
        )
    own = experiment.adaptive
    chosen: dict[str, Any] = {
        "max_repeats": inputs.max_repeats if inputs.max_repeats is not None else own and own.max_repeats,
        "min_repeats": own and own.min_repeats,
        "confidence": inputs.confidence if inputs.confidence is not None else own and own.confidence,
        "effect_size": inputs.effect_size if inputs.effect_size is not None else own and own.effect_size,
    }
    try:
        return AdaptiveSettings(**{k: v for k, v in chosen.items() if v is not None})
    except ValueError as exc:
        raise UsageError(f"adaptive replicates: {exc}") from None


def _adaptive_problem(task: LoadedTask, adaptive: AdaptiveSettings | None) -> tuple[str, str, str] | None:
    """A dialog's simulation.n_trials fixes its replicates, which adaptive rounds must choose."""
    simulation = task.definition.simulation
    if adaptive is None or simulation is None or not simulation.enabled:
        return None
    return (
        "a simulated dialog runs simulation.n_trials replicates, so adaptive replicates cannot choose them",
        "simulation.n_trials",
        "give a number of repeats for this run, or leave this task out of the adaptive experiment",
    )
