"""Experiment files: loading, lookup, conformance corpus, prompt changes, exclusivity, repeats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder_eval.config.experiments import baseline_experiment, load_experiment, shipped_experiments_dir
from coder_eval.config.resolve import ResolvedTask, resolve_repeats, resolve_task
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.loading.loader import LoadedTask, load_tasks
from coder_eval.models.experiment import ExperimentDefinition
from coder_eval.models.task import TaskDefinition

CONFORMANCE_TASKS = ["hello_date.yaml", "sentiment_classification.yaml", "smoke_variants.yaml"]


def _tasks(conformance: Path) -> list[LoadedTask]:
    report = load_tasks([str(conformance / "tasks" / name) for name in CONFORMANCE_TASKS])
    assert not report.errors
    return report.tasks


def _resolve_all(exp: ExperimentDefinition, tasks: list[LoadedTask], tmp_path: Path) -> list[ResolvedTask]:
    baseline = baseline_experiment(tmp_path)
    assert exp.source_file is not None
    return [
        resolve_task(t, experiment=exp, variant=v, baseline=baseline, cli=None, experiment_dir=exp.source_file.parent)
        for t in tasks
        for v in exp.variants
    ]


def test_every_conformance_experiment_loads_and_resolves(conformance: Path, tmp_path: Path) -> None:
    tasks = _tasks(conformance)
    files = sorted((conformance / "experiments").glob("*.yaml"))
    assert len(files) >= 7
    for path in files:
        exp = load_experiment(str(path), cwd=tmp_path)
        resolved = _resolve_all(exp, tasks, tmp_path)
        assert len(resolved) == len(tasks) * len(exp.variants)


def test_smoke_variants_max_turns(conformance: Path, tmp_path: Path) -> None:
    exp = load_experiment(str(conformance / "experiments" / "smoke_variants.yaml"), cwd=tmp_path)
    task = next(t for t in _tasks(conformance) if t.task_id == "smoke_variants")
    by_variant = {r.variant_id: r for r in _resolve_all(exp, [task], tmp_path)}
    assert by_variant["turns-low"].definition.run_limits.max_turns == 1
    assert by_variant["turns-mid"].definition.run_limits.max_turns == 2
    assert by_variant["turns-low"].lineage["run_limits.max_turns"]["source"] == "variant"
    assert by_variant["turns-low"].definition.run_limits.task_timeout == 600  # baseline survives
    assert [c.command for c in by_variant["turns-low"].definition.post_run] == ["rm -rf node_modules .npm-prefix"]


def test_dataset_rows_resolve_per_row(conformance: Path, tmp_path: Path) -> None:
    exp = load_experiment(str(conformance / "experiments" / "model-comparison.yaml"), cwd=tmp_path)
    rows = [t for t in _tasks(conformance) if t.suite_id == "sentiment-classification"]
    resolved = _resolve_all(exp, rows, tmp_path)
    assert len(resolved) == 2 * len(rows) == 6
    assert {r.task_id.split("/")[0] for r in resolved} == {"sentiment-classification"}
    assert {r.definition.agent.model for r in resolved if r.definition.agent} == {"claude-sonnet-5", "claude-opus-5"}
    assert all("${row." not in (r.definition.initial_prompt or "") for r in resolved)


def test_prompt_mutations_example(conformance: Path, tmp_path: Path) -> None:
    exp = load_experiment(str(conformance / "experiments" / "prompt-mutations-example.yaml"), cwd=tmp_path)
    task = next(t for t in _tasks(conformance) if t.task_id == "hello_date_smoke_test")
    base = task.definition.initial_prompt
    by_variant = {r.variant_id: r.definition.initial_prompt for r in _resolve_all(exp, [task], tmp_path)}
    assert by_variant["baseline"] == base
    assert by_variant["step-by-step"] == f"Think step by step before writing any code.\n\n{base}"
    assert by_variant["detailed"] == (
        f"Follow best practices for production code.\n\n{base}\n\nInclude error handling, type hints, and docstrings."
    )


def test_shipped_default(tmp_path: Path) -> None:
    exp = load_experiment(None, cwd=tmp_path)
    assert exp.experiment_id == "default" and [v.variant_id for v in exp.variants] == ["default"]
    assert exp.defaults.agent == {"type": "claude-code", "permission_mode": "acceptEdits"}
    assert exp.defaults.run_limits == {"max_turns": 100, "task_timeout": 600, "turn_timeout": 300}
    assert not exp.defaults.post_run
    assert exp.source_file == (shipped_experiments_dir() / "default.yaml").resolve()


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_lookup_order_and_project_default(tmp_path: Path) -> None:
    _write(tmp_path / "experiments" / "mine.yaml", "experiment_id: mine\nvariants: [{variant_id: a}]\n")
    _write(tmp_path / "experiments" / "default.yaml", "experiment_id: own-default\nvariants: [{variant_id: a}]\n")
    assert load_experiment("mine", cwd=tmp_path).experiment_id == "mine"
    assert load_experiment("experiments/mine.yaml", cwd=tmp_path).experiment_id == "mine"
    assert baseline_experiment(tmp_path).experiment_id == "own-default"
    assert load_experiment(None, cwd=tmp_path).experiment_id == "own-default"
    with pytest.raises(UsageError, match="did you mean 'mine'"):
        load_experiment("mime", cwd=tmp_path)
    with pytest.raises(UsageError, match="not found"):
        load_experiment("nope/x.yaml", cwd=tmp_path)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("experiment_id: Bad_Id\nvariants: [{variant_id: a}]\n", "kebab-case"),
        ("experiment_id: x\nvariants: []\n", "variants"),
        ("experiment_id: x\nvariants: [{variant_id: a}, {variant_id: a}]\n", "more than once"),
        ("experiment_id: x\ndefaults:\n  agent:\n    modle: y\nvariants: [{variant_id: a}]\n", "did you mean 'model'"),
        ("experiment_id: x\ndefaults:\n  run_limits: {max_turn: 3}\nvariants: [{variant_id: a}]\n", "max_turns"),
        ("experiment_id: x\nvariants:\n  - variant_id: a\n    run_limits: {max_turns: 0}\n", "greater than or equal"),
        ("experiment_id: x\nvariants:\n  - variant_id: a\n    driver: vm\n", "driver"),
        ("experiment_id: x\nvariants:\n  - variant_id: a\n    prompt_mutations: [{type: suffix, text: y}]\n", "text"),
        (
            "experiment_id: x\nvariants:\n  - variant_id: a\n    initial_prompt: p\n    initial_prompt_file: f\n",
            "mutually exclusive",
        ),
        (
            "experiment_id: x\nvariants:\n  - variant_id: a\n    initial_prompt: p\n"
            "    prompt_mutations: [{type: prefix, content: c}]\n",
            "mutually exclusive",
        ),
        ("experiment_id: x\nrepeats: 2\ndefaults: {repeats: 3}\nvariants: [{variant_id: a}]\n", "not both"),
        ("experiment_id: x\nrepeats: lots\nvariants: [{variant_id: a}]\n", "whole number of at least 1, or auto"),
        (
            "experiment_id: x\ndefaults: {repeats: auto}\nvariants: [{variant_id: a, repeats: 3}, {variant_id: b}]\n",
            "cannot set its own repeats",
        ),
        (
            "experiment_id: x\nadaptive: {min_repeats: 8, max_repeats: 4}\nvariants: [{variant_id: a}]\n",
            "above max_repeats",
        ),
        ("experiment_id: x\nadaptive: {effect_size: 1.5}\nvariants: [{variant_id: a}]\n", "effect_size"),
    ],
)
def test_invalid_experiments(tmp_path: Path, body: str, fragment: str) -> None:
    path = _write(tmp_path / "bad.yaml", body)
    with pytest.raises(TaskConfigError, match=fragment) as info:
        load_experiment(str(path), cwd=tmp_path)
    assert str(path) in str(info.value)


def test_error_names_the_line(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "bad.yaml", "experiment_id: x\ndefaults:\n  agent:\n    modle: y\nvariants: [{variant_id: a}]\n"
    )
    with pytest.raises(TaskConfigError, match=r"defaults\.agent \(line \d\)"):
        load_experiment(str(path), cwd=tmp_path)


TASK: dict[str, Any] = {
    "task_id": "t",
    "description": "d",
    "initial_prompt": "Write {lang} code in app.py",
    "success_criteria": [{"type": "file_exists", "path": "a", "description": "a"}],
    "pre_run": [{"command": "task-pre"}],
    "post_run": [{"command": "task-post"}],
    "sandbox": {"template_sources": [{"type": "template_dir", "path": "base"}]},
}


def _one(tmp_path: Path, exp_doc: dict[str, Any], task_doc: dict[str, Any] | None = None) -> ResolvedTask:
    exp = ExperimentDefinition.model_validate(exp_doc).with_source(tmp_path / "exp.yaml")
    base = ExperimentDefinition.model_validate({"experiment_id": "default", "variants": [{"variant_id": "default"}]})
    task = LoadedTask(TaskDefinition.model_validate(task_doc or TASK), tmp_path / "tasks" / "t.yaml")
    return resolve_task(task, experiment=exp, variant=exp.variants[0], baseline=base, cli=None, experiment_dir=tmp_path)


@pytest.mark.parametrize(
    ("mutations", "expected"),
    [
        ([{"type": "replace", "pattern": "app.py", "replacement": "main.py"}], "Write {lang} code in main.py"),
        ([{"type": "replace", "pattern": r"(\w+)\.py", "replacement": r"src/\1.py", "regex": True}],
         "Write {lang} code in src/app.py"),
        ([{"type": "template", "variables": {"lang": "Go", "unused": "x"}}], "Write Go code in app.py"),
        ([{"type": "suffix", "content": "Be brief.", "separator": " "},
          {"type": "replace", "pattern": "brief", "replacement": "terse"}], "Write {lang} code in app.py Be terse."),
    ],
)  # fmt: skip
def test_mutations(tmp_path: Path, mutations: list[dict[str, Any]], expected: str) -> None:
    exp = {"experiment_id": "e", "variants": [{"variant_id": "v", "prompt_mutations": mutations}]}
    resolved = _one(tmp_path, exp)
    assert resolved.definition.initial_prompt == expected
    assert resolved.lineage["initial_prompt"]["source"] == "variant"


def test_defaults_mutations_compose_before_variant(tmp_path: Path) -> None:
    exp = {
        "experiment_id": "e",
        "defaults": {"prompt_mutations": [{"type": "prefix", "content": "A"}]},
        "variants": [{"variant_id": "v", "prompt_mutations": [{"type": "prefix", "content": "B"}]}],
    }
    assert _one(tmp_path, exp).definition.initial_prompt == "B\n\nA\n\nWrite {lang} code in app.py"


def test_initial_prompt_and_file(tmp_path: Path) -> None:
    exp = {"experiment_id": "e", "variants": [{"variant_id": "v", "initial_prompt": "new"}]}
    assert _one(tmp_path, exp).definition.initial_prompt == "new"
    _write(tmp_path / "prompts" / "p.md", "from file")
    exp = {"experiment_id": "e", "variants": [{"variant_id": "v", "initial_prompt_file": "prompts/p.md"}]}
    assert _one(tmp_path, exp).definition.initial_prompt == "from file"
    exp = {"experiment_id": "e", "variants": [{"variant_id": "v", "initial_prompt_file": "missing.md"}]}
    with pytest.raises(TaskConfigError, match="relative to the experiment YAML"):
        _one(tmp_path, exp)


def test_command_order_driver_and_templates(tmp_path: Path) -> None:
    exp = {
        "experiment_id": "e",
        "defaults": {"pre_run": [{"command": "exp-pre"}], "post_run": [{"command": "exp-post"}]},
        "variants": [
            {
                "variant_id": "v",
                "driver": "docker",
                "template_sources": [{"type": "template_dir", "path": "overlay"}],
            }
        ],
    }
    d = _one(tmp_path, exp).definition
    assert [c.command for c in d.pre_run] == ["exp-pre", "task-pre"]
    assert [c.command for c in d.post_run] == ["task-post", "exp-post"]
    assert d.sandbox.driver == "docker"
    paths = [getattr(s, "path", None) for s in d.sandbox.template_sources]
    assert paths == ["base", str((tmp_path / "overlay").resolve())]


def test_variant_checker_context_and_simulation_per_namespace(tmp_path: Path) -> None:
    task = {**TASK, "simulation": {"enabled": True, "persona": "p", "goal": "g", "max_turns": 4}}
    exp = {
        "experiment_id": "e",
        "variants": [
            {
                "variant_id": "v",
                "simulation": {"n_trials": 3},
                "checker_context": {"api_route": {"route": "bedrock"}},
            }
        ],
    }
    d = _one(tmp_path, exp, task).definition
    assert d.simulation is not None and (d.simulation.n_trials, d.simulation.max_turns) == (3, 4)
    assert d.checker_context is not None and d.checker_context.api_route is not None
    assert d.checker_context.api_route.route == "bedrock"


def test_repeats_precedence(tmp_path: Path) -> None:
    base = ExperimentDefinition.model_validate(
        {"experiment_id": "default", "defaults": {"repeats": 2}, "variants": [{"variant_id": "d"}]}
    )
    exp = ExperimentDefinition.model_validate(
        {
            "experiment_id": "e",
            "defaults": {"repeats": 3},
            "variants": [{"variant_id": "a", "repeats": 5}, {"variant_id": "b"}],
        }
    )
    plain = ExperimentDefinition.model_validate({"experiment_id": "p", "variants": [{"variant_id": "a"}]})
    assert resolve_repeats(exp.variants[0], exp, base, cli_repeats=9) == 9
    assert resolve_repeats(exp.variants[0], exp, base) == 5
    assert resolve_repeats(exp.variants[1], exp, base) == 3
    assert resolve_repeats(plain.variants[0], plain, base) == 2
    assert resolve_repeats(plain.variants[0], plain, plain) == 1
    top = ExperimentDefinition.model_validate({"experiment_id": "t", "repeats": 4, "variants": [{"variant_id": "a"}]})
    assert resolve_repeats(top.variants[0], top, plain) == 4


def test_replicate_ids(tmp_path: Path) -> None:
    exp = {"experiment_id": "e", "variants": [{"variant_id": "v", "repeats": 3}]}
    resolved = _one(tmp_path, exp)
    assert resolved.repeats == 3 and resolved.replicate_ids() == ["00", "01", "02"]


def test_variant_error_points_at_its_source(tmp_path: Path) -> None:
    exp = {
        "experiment_id": "e",
        "variants": [{"variant_id": "v", "agent": {"type": "none", "system_prompt_mode": "replace"}}],
    }
    with pytest.raises(TaskConfigError, match="variant 'v'"):
        _one(tmp_path, exp)


def test_baseline_applies_once_when_it_is_the_experiment(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "experiments" / "default.yaml",
        "experiment_id: default\ndefaults:\n  post_run: [{command: cleanup}]\nvariants: [{variant_id: default}]\n",
    )
    exp = load_experiment(None, cwd=tmp_path)
    task = LoadedTask(TaskDefinition.model_validate(TASK), tmp_path / "t.yaml")
    resolved = resolve_task(
        task, experiment=exp, variant=exp.variants[0], baseline=baseline_experiment(tmp_path), cli=None,
        experiment_dir=path.parent,
    )  # fmt: skip
    assert [c.command for c in resolved.definition.post_run] == ["task-post", "cleanup"]


def test_defaults_driver_and_template_sources_reach_every_variant(tmp_path: Path) -> None:
    exp = {
        "experiment_id": "e",
        "defaults": {"driver": "tempdir", "template_sources": [{"type": "template_dir", "path": "shared"}]},
        "variants": [
            {"variant_id": "v", "template_sources": [{"type": "template_dir", "path": "overlay"}]},
        ],
    }
    d = _one(tmp_path, exp).definition
    assert d.sandbox.driver == "tempdir"
    paths = [getattr(s, "path", None) for s in d.sandbox.template_sources]
    assert paths == ["base", str((tmp_path / "shared").resolve()), str((tmp_path / "overlay").resolve())]
    exp["variants"] = [{"variant_id": "v", "driver": "docker"}]
    assert _one(tmp_path, exp).definition.sandbox.driver == "docker"  # the variant's own driver wins


@pytest.mark.parametrize(
    "defaults",
    [
        {"driver": "tempdir", "sandbox": {"driver": "docker"}},
        {"template_sources": [{"type": "template_dir", "path": "a"}], "sandbox": {"template_sources": []}},
    ],
)
def test_defaults_shortcuts_and_their_sandbox_spelling_are_exclusive(defaults: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="say the same thing"):
        ExperimentDefinition.model_validate(
            {"experiment_id": "e", "defaults": defaults, "variants": [{"variant_id": "v"}]}
        )
