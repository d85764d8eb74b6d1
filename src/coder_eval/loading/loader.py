"""Load task files into validated tasks: parse, validate, fan out datasets, filter."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coder_eval.errors import Problem, TaskConfigError
from coder_eval.loading.compat import LoadWarning, lenient_top_level
from coder_eval.loading.dataset import check_row_ids, docker_placeholders, read_rows, row_document
from coder_eval.loading.discovery import discover_task_files
from coder_eval.loading.problems import validation_problems
from coder_eval.loading.safe_read import read_input_text
from coder_eval.loading.sampling import flat_sample, stratified_sample
from coder_eval.loading.static_checks import env_refs, expand_env, task_problems
from coder_eval.loading.yaml_source import LineMap, read_yaml
from coder_eval.models.run import SkippedTask
from coder_eval.models.task import TaskDefinition


@dataclass(frozen=True)
class LoadedTask:
    """A validated task ready to resolve and run; a dataset row when `row_id` is set."""

    definition: TaskDefinition
    source_file: Path
    suite_id: str | None = None
    row_id: str | None = None
    row: dict[str, Any] | None = None
    warnings: tuple[LoadWarning, ...] = ()
    """What the task file says that loads, but not as written (ignored keys, legacy forms)."""

    @property
    def task_id(self) -> str:
        if self.row_id is not None:
            return f"{self.suite_id}/{self.row_id}"
        return self.definition.task_id

    @cached_property
    def task_dir(self) -> Path:
        return _resolved_parent(self.source_file)


@lru_cache(maxsize=256)
def _resolved_parent(source_file: Path) -> Path:
    """The task file's directory, resolved once per file (each row of a dataset would resolve it again)."""
    return source_file.parent.resolve()


@dataclass
class SelectOptions:
    """CLI selection: sampling, tag filters, quarantined tasks."""

    sample: int | None = None
    sample_per_stratum: int | None = None
    tags: list[str] = field(default_factory=list)
    exclude_tags: list[str] = field(default_factory=list)
    include_skipped: bool = False


@dataclass
class LoadReport:
    tasks: list[LoadedTask] = field(default_factory=list)
    skipped: list[SkippedTask] = field(default_factory=list)
    errors: list[TaskConfigError] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    unselected: list[Path] = field(default_factory=list)
    """Valid task files left out by --tags / --exclude-tags."""
    warnings: dict[Path, list[LoadWarning]] = field(default_factory=dict)
    """Per loaded file: keys ignored and legacy forms read (shown by run and lint)."""


@dataclass(frozen=True)
class TaskFile:
    """One validated task file: the task, the mapping it was validated from, and its load warnings."""

    definition: TaskDefinition
    raw: dict[str, Any]
    warnings: list[LoadWarning]


def check_document(raw: Any, source: Path, lines: LineMap | None = None) -> TaskFile:
    """Validate one parsed YAML document as a task, reporting every problem at once.

    Unknown top-level keys are dropped with a warning (see `loading/compat.py`); if the rest is
    invalid, the dropped keys are listed among the problems, since a misspelt required key shows
    up as both."""
    if not isinstance(raw, dict):
        kind = "empty" if raw is None else type(raw).__name__
        raise TaskConfigError.single(
            source, f"a task file must be a YAML mapping, not {kind}", "", "start with `task_id: my-task`"
        )
    kept, warnings = lenient_top_level(raw, lines or {})
    try:
        definition = TaskDefinition.model_validate(kept)
    except ValidationError as exc:
        problems = validation_problems(exc, kept, lines or {}, TaskDefinition)
        dropped = [
            Problem(f"unknown key {w.field!r}", f"{w.field} (line {w.line})" if w.line else w.field, w.hint)
            for w in warnings
            if w.message.startswith("unknown top-level key")
        ]
        raise TaskConfigError(source, [*dropped, *problems]) from None
    return TaskFile(definition, kept, warnings)


def validate_document(raw: Any, source: Path, lines: LineMap | None = None) -> TaskDefinition:
    """The task a parsed YAML document describes (its load warnings dropped; see `check_document`)."""
    return check_document(raw, source, lines).definition


def read_task_file(path: Path) -> TaskFile:
    """Parse and validate one task file, reading a task-level `initial_prompt_file` into the prompt.

    The prompt file's text replaces the field in both the task and its mapping, so dataset rows
    substitute `${row.x}` in it and the resolved record carries what the agent was told."""
    raw, lines = read_yaml(path)
    loaded = check_document(raw, path, lines)
    prompt_file = loaded.definition.initial_prompt_file
    if prompt_file is None:
        return loaded
    text = read_input_text(
        path.parent / prompt_file, source=path, field="initial_prompt_file", what="initial_prompt_file"
    )
    definition = loaded.definition.model_copy(update={"initial_prompt": text, "initial_prompt_file": None})
    mapping = {k: v for k, v in loaded.raw.items() if k != "initial_prompt_file"}
    mapping["initial_prompt"] = text
    return TaskFile(definition, mapping, loaded.warnings)


def load_task_file(path: Path) -> tuple[TaskDefinition, dict[str, Any]]:
    """Parse and validate one task file; returns the task and its raw mapping (see `read_task_file`)."""
    loaded = read_task_file(path)
    return loaded.definition, loaded.raw


def _tag_matches(tag: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(tag, p) for p in patterns)


def is_selected(task: TaskDefinition, options: SelectOptions) -> bool:
    if options.tags and not any(_tag_matches(t, options.tags) for t in task.tags):
        return False
    return not (options.exclude_tags and any(_tag_matches(t, options.exclude_tags) for t in task.tags))


def _sample_rows(task: TaskDefinition, rows: list[dict[str, Any]], options: SelectOptions) -> list[dict[str, Any]]:
    assert task.dataset is not None
    if options.sample is not None:
        return flat_sample(rows, options.sample)
    per_stratum = options.sample_per_stratum or task.dataset.sample_per_stratum
    if per_stratum is not None:
        return stratified_sample(rows, per_stratum, task.dataset.stratify_field, task.dataset.sample_seed)
    return rows


def resolve_host_paths(task: TaskDefinition, task_dir: Path, source: Path | None = None) -> TaskDefinition:
    """Expand $VAR in plugin paths (relative ones become task-relative) and read system_prompt_file.

    The prompt file's text becomes `system_prompt`, so the resolved task (and its record)
    carries what the agent was actually told.
    """
    agent = task.agent
    if agent is None:
        return task
    update: dict[str, Any] = {}
    if agent.plugins:
        plugins = []
        for plugin in agent.plugins:
            expanded = Path(expand_env(plugin.path)).expanduser()
            if not _has_unexpanded_var(str(expanded)) and not expanded.is_absolute():
                expanded = (task_dir / expanded).resolve()
            plugins.append(plugin.model_copy(update={"path": str(expanded)}))
        update["plugins"] = plugins
    if agent.system_prompt_file:
        prompt_path = task_dir / agent.system_prompt_file
        text = read_input_text(
            prompt_path, source=source or task_dir, field="agent.system_prompt_file", what="system_prompt_file"
        )
        update.update(system_prompt=text, system_prompt_file=None)
    return task.model_copy(update={"agent": agent.model_copy(update=update)}) if update else task


def _has_unexpanded_var(text: str) -> bool:
    return bool(env_refs(text))


def expand_dataset(
    task: TaskDefinition,
    raw: dict[str, Any],
    source: Path,
    options: SelectOptions | None = None,
    warnings: tuple[LoadWarning, ...] = (),
) -> list[LoadedTask]:
    """One LoadedTask per (sampled) row; a task without a dataset yields itself."""
    task = resolve_host_paths(task, source.parent.resolve(), source)
    if task.dataset is None:
        placeholders = docker_placeholders((raw.get("sandbox") or {}).get("docker"))
        if placeholders:
            raise TaskConfigError.single(
                source,
                f"{placeholders[0]} names ${{row.x}}, but the task has no dataset to fill it",
                placeholders[0],
                "add a `dataset:` whose rows hold the field, or write the value itself",
            )
        return [LoadedTask(task, source, warnings=warnings)]
    options = options or SelectOptions()
    rows = read_rows(task.dataset, source.parent, source)
    check_row_ids(task.task_id, rows, task.dataset.id_field, source)
    rows_of = _RowDefinitions(raw, source)
    out: list[LoadedTask] = []
    for row in _sample_rows(task, rows, options):
        rid = str(row[task.dataset.id_field])
        try:
            doc = row_document(raw, row)
        except (KeyError, TypeError) as exc:
            message = exc.args[0] if exc.args else str(exc)
            raise TaskConfigError.single(
                source,
                f"row {rid!r}: {message}",
                "success_criteria/initial_prompt/sandbox.docker",
                "every ${row.x} must name a scalar field of every row",
            ) from None
        try:
            definition = rows_of.definition(doc)
        except ValidationError as exc:
            problems = validation_problems(exc, doc, {}, TaskDefinition)
            for p in problems:
                p.message = f"row {rid!r}: {p.message}"
            raise TaskConfigError(source, problems) from None
        out.append(LoadedTask(definition, source, suite_id=task.task_id, row_id=rid, row=row, warnings=warnings))
    return out


class _RowDefinitions:
    """Validated definitions of a dataset's rows, sharing what the rows share.

    Rows differ only where `${row.x}` was substituted (the prompt, the criteria, the docker image). A row whose
    document equals the template's reuses one definition; a row whose criteria equal the
    template's but whose prompt differs is a copy of it with its own (non-blank) prompt; any
    other row is validated in full, as before.
    """

    def __init__(self, raw: dict[str, Any], source: Path) -> None:
        self.template = {k: v for k, v in raw.items() if k != "dataset"}
        self.source = source
        self._shared: TaskDefinition | None = None

    def _validate(self, doc: dict[str, Any]) -> TaskDefinition:
        return resolve_host_paths(TaskDefinition.model_validate(doc), self.source.parent.resolve(), self.source)

    def definition(self, doc: dict[str, Any]) -> TaskDefinition:
        if doc.get("success_criteria") != self.template.get("success_criteria"):
            return self._validate(doc)
        if doc.get("sandbox") != self.template.get("sandbox"):
            return self._validate(doc)  # a row with its own image
        prompt = doc.get("initial_prompt")
        same_prompt = prompt == self.template.get("initial_prompt")
        if not same_prompt and not (isinstance(prompt, str) and prompt.strip()):
            return self._validate(doc)
        if self._shared is None:
            self._shared = self._validate(self.template)
        if same_prompt:
            return self._shared
        return self._shared.model_copy(update={"initial_prompt": prompt})


def load_tasks(paths: list[str], options: SelectOptions | None = None, *, cwd: Path | None = None) -> LoadReport:
    """Discover, validate, filter and expand. Bad files land in `errors`, not exceptions."""
    options = options or SelectOptions()
    report = LoadReport(files=discover_task_files(paths, cwd=cwd))
    seen_ids: dict[str, Path] = {}
    for path in report.files:
        try:
            loaded = read_task_file(path)
            task, raw = loaded.definition, loaded.raw
            if task.task_id in seen_ids:
                raise TaskConfigError.single(
                    path,
                    f"task_id {task.task_id!r} is also used by {seen_ids[task.task_id]}",
                    "task_id",
                    "task ids must be unique across a run",
                )
            seen_ids[task.task_id] = path
            problems = task_problems(task, path.parent.resolve())  # the same checks as `plan`
            if problems:
                raise TaskConfigError(path, problems)
            if loaded.warnings:
                report.warnings[path] = loaded.warnings
            if task.skip and not options.include_skipped:
                report.skipped.append(SkippedTask(path=str(path), reason="skip: true (use --include-skipped)"))
                continue
            if not is_selected(task, options):
                report.unselected.append(path)
                continue
            report.tasks.extend(expand_dataset(task, raw, path, options, tuple(loaded.warnings)))
        except TaskConfigError as exc:
            report.errors.append(exc)
    return report
