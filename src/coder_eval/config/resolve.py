"""Resolve one loaded task under one experiment variant: the five-layer merge, prompt and repeats.

Layers, lowest first: baseline defaults, experiment defaults, the task, the variant and
the command line. `agent`, `run_limits`, `sandbox`, `pre_run`, `post_run`,
`checker_context` and `simulation` go through the one resolver (`config.merge`); the
merged task is then validated as a whole, so cross-field rules see the final values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder_eval.config.merge import LAYER_ORDER, Layer, Lineage, LineageEntry, resolve_root, winning_agent_type
from coder_eval.config.overrides import check_agent_paths
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.loading.compat import LoadWarning
from coder_eval.loading.loader import LoadedTask, resolve_host_paths
from coder_eval.loading.problems import validation_problems
from coder_eval.models.experiment import (
    ExperimentDefaults,
    ExperimentDefinition,
    ExperimentVariant,
    PromptMutation,
    apply_mutation,
)
from coder_eval.models.task import TaskDefinition

MERGED_ROOTS = ("agent", "run_limits", "sandbox", "pre_run", "post_run", "checker_context", "simulation")


@dataclass(frozen=True)
class ResolvedTask:
    """A task with one variant's config applied: what the run pipeline executes."""

    definition: TaskDefinition
    source_file: Path
    variant_id: str
    experiment_id: str
    repeats: int
    lineage: Mapping[str, LineageEntry] = field(default_factory=dict)
    suite_id: str | None = None
    row_id: str | None = None
    row: dict[str, Any] | None = None
    warnings: tuple[LoadWarning, ...] = ()
    """The task file's load warnings (ignored keys, legacy forms), repeated in each unit's task.log."""

    @property
    def task_id(self) -> str:
        """`suite/row` for dataset rows, else the task id."""
        return self.loaded().task_id

    @property
    def task_dir(self) -> Path:
        return self.source_file.parent.resolve()

    def loaded(self) -> LoadedTask:
        """This task as a LoadedTask carrying the resolved definition."""
        return LoadedTask(self.definition, self.source_file, self.suite_id, self.row_id, self.row, self.warnings)

    def replicate_ids(self) -> list[str]:
        """Zero-padded replicate directory names: 00, 01, ... (at least two digits)."""
        width = max(2, len(str(self.repeats - 1)))
        return [str(i).zfill(width) for i in range(self.repeats)]


def same_experiment(a: ExperimentDefinition, b: ExperimentDefinition) -> bool:
    """True when both are the same experiment file (so its defaults must apply only once)."""
    if a is b:
        return True
    if a.source_file is not None and b.source_file is not None:
        return a.source_file.resolve() == b.source_file.resolve()
    return False


def _anchor_sources(sources: list[Any], base_dir: Path) -> list[Any]:
    """template_dir sources written in an experiment file are relative to that file."""
    out: list[Any] = []
    for src in sources:
        if isinstance(src, dict) and src.get("type") == "template_dir" and isinstance(src.get("path"), str):
            src = {**src, "path": str((base_dir / src["path"]).resolve())}
        out.append(src)
    return out


def defaults_layer(name: str, defaults: ExperimentDefaults, detail: str, base_dir: Path) -> Layer:
    """Layer 1 or 2 from an experiment's `defaults:` block."""
    data: dict[str, Any] = {}
    for key in ("agent", "run_limits", "checker_context", "simulation"):
        value = getattr(defaults, key)
        if value is not None:
            data[key] = value
    sandbox = dict(defaults.sandbox or {})
    if defaults.driver is not None:
        sandbox["driver"] = defaults.driver
    if defaults.template_sources:
        sandbox["template_sources"] = [s.model_dump(exclude_unset=True) for s in defaults.template_sources]
    if isinstance(sandbox.get("template_sources"), list):
        sandbox["template_sources"] = _anchor_sources(sandbox["template_sources"], base_dir)
    if defaults.sandbox is not None or sandbox:
        data["sandbox"] = sandbox
    if defaults.pre_run:
        data["pre_run"] = [c.model_dump(exclude_unset=True) for c in defaults.pre_run]
    if defaults.post_run:
        data["post_run"] = [c.model_dump(exclude_unset=True) for c in defaults.post_run]
    return Layer("baseline" if name == "baseline" else "experiment", data, detail)


def variant_layer(experiment: ExperimentDefinition, variant: ExperimentVariant, experiment_dir: Path) -> Layer:
    """Layer 4 from one variant."""
    data: dict[str, Any] = {}
    for key in ("agent", "run_limits", "checker_context", "simulation"):
        value = getattr(variant, key)
        if value is not None:
            data[key] = value
    sandbox: dict[str, Any] = {}
    if variant.driver is not None:
        sandbox["driver"] = variant.driver
    if variant.template_sources:
        dumped = [s.model_dump(exclude_unset=True) for s in variant.template_sources]
        sandbox["template_sources"] = _anchor_sources(dumped, experiment_dir)
    if sandbox:
        data["sandbox"] = sandbox
    return Layer("variant", data, f"{experiment.experiment_id}/{variant.variant_id}")


def task_layer(task: LoadedTask) -> Layer:
    """Layer 3: what the task file itself set."""
    dumped = task.definition.model_dump(exclude_unset=True)
    return Layer("task", {k: dumped[k] for k in MERGED_ROOTS if k in dumped}, str(task.source_file))


def build_layers(
    task: LoadedTask,
    *,
    experiment: ExperimentDefinition,
    variant: ExperimentVariant,
    baseline: ExperimentDefinition,
    cli: Layer | None,
    experiment_dir: Path,
) -> list[Layer]:
    """The five layers, lowest first (the experiment layer is skipped when it is the baseline)."""
    base_detail = str(baseline.source_file or "baseline")
    base_dir = baseline.source_file.parent if baseline.source_file else experiment_dir
    layers = [defaults_layer("baseline", baseline.defaults, base_detail, base_dir)]
    if not same_experiment(experiment, baseline):
        detail = str(experiment.source_file or experiment.experiment_id)
        layers.append(defaults_layer("experiment", experiment.defaults, detail, experiment_dir))
    layers.append(task_layer(task))
    layers.append(variant_layer(experiment, variant, experiment_dir))
    if cli is not None:
        layers.append(cli)
    return layers


def resolve_repeats(
    variant: ExperimentVariant,
    experiment: ExperimentDefinition,
    baseline: ExperimentDefinition,
    cli_repeats: int | None = None,
) -> int:
    """CLI --repeats, else the variant's, else the experiment's, else the baseline's, else 1.

    `auto` (adaptive replicates) never gets here: the experiment plan turns it into its cap."""
    for value in (cli_repeats, variant.repeats, experiment.default_repeats, baseline.default_repeats):
        if value == "auto":
            raise ValueError("repeats: auto must be resolved by the experiment plan (engine/experiment_plan.py)")
        if value is not None:
            return value
    return 1


def _prompt_mutations(
    experiment: ExperimentDefinition, variant: ExperimentVariant, baseline: ExperimentDefinition
) -> list[PromptMutation]:
    chain = list(baseline.defaults.prompt_mutations)
    if not same_experiment(experiment, baseline):
        chain += experiment.defaults.prompt_mutations
    return chain + list(variant.prompt_mutations)


def resolve_prompt(
    prompt: str | None,
    *,
    experiment: ExperimentDefinition,
    variant: ExperimentVariant,
    baseline: ExperimentDefinition,
    experiment_dir: Path,
) -> str | None:
    """The variant's prompt: replaced (initial_prompt / initial_prompt_file), then mutated in order."""
    if variant.initial_prompt is not None:
        prompt = variant.initial_prompt
    elif variant.initial_prompt_file is not None:
        prompt = _read_prompt_file(experiment, variant, experiment_dir)
    mutations = _prompt_mutations(experiment, variant, baseline)
    if prompt is None or not mutations:
        return prompt
    for mutation in mutations:
        prompt = apply_mutation(prompt, mutation)
    return prompt


def _read_prompt_file(experiment: ExperimentDefinition, variant: ExperimentVariant, experiment_dir: Path) -> str:
    assert variant.initial_prompt_file is not None
    path = experiment_dir / variant.initial_prompt_file
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskConfigError.single(
            experiment.source_file or experiment_dir,
            f"cannot read initial_prompt_file {path} ({exc.strerror or exc})",
            f"variants[{variant.variant_id}].initial_prompt_file",
            "the path is relative to the experiment YAML",
        ) from None


def _rank(entry: LineageEntry | None) -> int:
    if entry is None:
        return -1
    names = [n for n in entry["source"].split(",") if n in LAYER_ORDER]
    return max((LAYER_ORDER.index(n) for n in names), default=-1)


def settle_system_prompt(agent: dict[str, Any], lineage: Lineage) -> None:
    """Setting system_prompt or system_prompt_file in a higher layer clears the other one."""
    if agent.get("system_prompt") and agent.get("system_prompt_file"):
        text, file = _rank(lineage.get("agent.system_prompt")), _rank(lineage.get("agent.system_prompt_file"))
        if text != file:
            agent.pop("system_prompt" if file > text else "system_prompt_file")


def fill_default_lineage(lineage: Lineage, value: Any, path: str) -> None:
    """Add `default` entries for resolved leaves no layer set."""
    if path in lineage:
        return
    if isinstance(value, dict) and value:
        for key, child in value.items():
            fill_default_lineage(lineage, child, f"{path}.{key}")
        return
    lineage[path] = {"value": value, "source": "default", "source_detail": "model default"}


def _lineage_hint(field_path: str, lineage: Lineage) -> str:
    path = field_path.split(" (line")[0]
    best = ""
    for key in lineage:
        if (path == key or path.startswith(key + ".") or path.startswith(key + "[")) and len(key) > len(best):
            best = key
    if not best:
        return ""
    entry = lineage[best]
    return f"{best} set by {entry['source']} ({entry['source_detail']})"


def _validation_error(
    task: LoadedTask, variant: ExperimentVariant, exc: ValidationError, doc: Any, lineage: Lineage
) -> TaskConfigError:
    problems = validation_problems(exc, doc, {}, TaskDefinition)
    out: list[Problem] = []
    for p in problems:
        hint = "; ".join(h for h in (p.hint, _lineage_hint(p.field_path, lineage)) if h)
        out.append(Problem(f"variant {variant.variant_id!r}: {p.message}", p.field_path, hint))
    return TaskConfigError(task.source_file, out)


def merge_layers(layers: Sequence[Layer]) -> tuple[dict[str, Any], Lineage]:
    """Run the resolver over the task-level roots."""
    return resolve_root(TaskDefinition, layers)


def resolve_task(
    task: LoadedTask,
    *,
    experiment: ExperimentDefinition,
    variant: ExperimentVariant,
    baseline: ExperimentDefinition,
    cli: Layer | None,
    experiment_dir: Path,
    cli_repeats: int | None = None,
) -> ResolvedTask:
    """Apply the five layers, the variant's prompt changes and repeats to one loaded task."""
    layers = build_layers(
        task, experiment=experiment, variant=variant, baseline=baseline, cli=cli, experiment_dir=experiment_dir
    )
    merged, lineage = merge_layers(layers)
    check_agent_paths(cli, winning_agent_type([layer.data.get("agent") for layer in layers]))
    if isinstance(merged.get("agent"), dict):
        settle_system_prompt(merged["agent"], lineage)
    doc = task.definition.model_dump(exclude_unset=True)
    for root in MERGED_ROOTS:
        doc.pop(root, None)
    doc.update(merged)
    prompt = resolve_prompt(
        task.definition.initial_prompt,
        experiment=experiment,
        variant=variant,
        baseline=baseline,
        experiment_dir=experiment_dir,
    )
    if prompt != task.definition.initial_prompt:
        doc["initial_prompt"] = prompt
        lineage["initial_prompt"] = {"value": prompt, "source": "variant", "source_detail": variant_detail(variant)}
    try:
        definition = TaskDefinition.model_validate(doc)
    except ValidationError as exc:
        raise _validation_error(task, variant, exc, doc, lineage) from None
    definition = resolve_host_paths(definition, task.task_dir, task.source_file)
    resolved = definition.model_dump(mode="json")
    for root in ("agent", "run_limits", "sandbox"):
        fill_default_lineage(lineage, resolved.get(root), root)
    return ResolvedTask(
        definition=definition,
        source_file=task.source_file,
        variant_id=variant.variant_id,
        experiment_id=experiment.experiment_id,
        repeats=resolve_repeats(variant, experiment, baseline, cli_repeats),
        lineage=dict(sorted(lineage.items())),
        suite_id=task.suite_id,
        row_id=task.row_id,
        row=task.row,
        warnings=task.warnings,
    )


def variant_detail(variant: ExperimentVariant) -> str:
    """How the variant changed the prompt, for lineage."""
    if variant.initial_prompt is not None:
        return f"{variant.variant_id}: initial_prompt"
    if variant.initial_prompt_file is not None:
        return f"{variant.variant_id}: initial_prompt_file {variant.initial_prompt_file}"
    return f"{variant.variant_id}: prompt_mutations"
