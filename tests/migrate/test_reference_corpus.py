"""A generated suite in the reference system's style plans clean: as written, or after `migrate` for removed forms."""

from __future__ import annotations

from pathlib import Path

import pytest
from reference_corpus import CREDENTIALS, FORMS, REMOVED, WARNS, write_corpus

from coder_eval.engine.experiment_plan import PlanInputs, plan_units
from coder_eval.engine.validation import FilePlan, plan
from coder_eval.migrate.files import plan_migration, write_migration
from coder_eval.models.criteria import ReferenceComparisonCriterion


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    for name in CREDENTIALS:
        monkeypatch.setenv(name, "sk-test-not-used")
    return write_corpus(tmp_path / "suite")


def load_warnings(file_plan: FilePlan) -> list[str]:
    return [w for w in file_plan.warnings if "(line" in w]  # load warnings carry their line


def test_every_form_plans_as_written_except_the_removed_ones(corpus: dict[str, Path]) -> None:
    report = plan([str(p) for p in corpus.values()])
    by_stem = {f.path.stem: f for f in report.files}
    assert set(by_stem) == set(FORMS)
    for stem, file_plan in by_stem.items():
        if stem in REMOVED:
            assert file_plan.error is not None and "coder-eval migrate" in file_plan.error.render(), stem
            continue
        assert file_plan.error is None, f"{stem}: {file_plan.error.render() if file_plan.error else ''}"
        found = load_warnings(file_plan)
        if stem in WARNS:
            assert len(found) == 1 and WARNS[stem] in found[0], (stem, found)
        else:
            assert found == [], (stem, found)


def test_after_migrate_every_form_plans_clean(corpus: dict[str, Path]) -> None:
    suite = next(iter(corpus.values())).parents[2]
    results = plan_migration([str(suite / "tasks")])
    changed = {r.source.stem for r in results if r.changed}
    assert changed == REMOVED | {"stale_max_iterations", "stale_llm_reviewer", "alias_command_not_executed"}
    assert all(not r.problems for r in results), [r.problems for r in results if r.problems]
    for result in results:
        if result.changed:
            write_migration(result)
    report = plan([str(suite / "tasks")])
    assert report.ok, [f.error.render() for f in report.files if f.error]
    leftover = {f.path.stem: load_warnings(f) for f in report.files if load_warnings(f)}
    assert set(leftover) == {"unknown_key"}  # migrate leaves a key it does not know to the author
    assert not [r for r in plan_migration([str(suite / "tasks")]) if r.changed]  # a second pass has nothing to do


def test_the_migrated_reference_is_a_directory_holding_the_solution(corpus: dict[str, Path]) -> None:
    suite = next(iter(corpus.values())).parents[2]
    for result in plan_migration([str(suite / "tasks")]):
        write_migration(result)
    (loaded,) = plan([str(corpus["reference_file"])]).files[0].tasks
    assert loaded.definition.reference is not None and loaded.definition.reference.directory == "reference"
    assert (corpus["reference_file"].parent / "reference" / "answer.py").read_text() == "print(42)\n"
    (inline,) = plan([str(corpus["reference_code"])]).files[0].tasks
    assert (corpus["reference_code"].parent / "reference" / "calc.py").read_text().startswith("def add(a, b):")
    criterion = inline.definition.success_criteria[0]
    assert isinstance(criterion, ReferenceComparisonCriterion) and criterion.reference_file == "calc.py"


def test_the_experiment_shortcuts_resolve_on_the_corpus(corpus: dict[str, Path]) -> None:
    suite = next(iter(corpus.values())).parents[2]
    tasks = plan([str(corpus["expected_commands"])]).files[0].tasks
    units = plan_units(tasks, PlanInputs(experiment=str(suite / "experiments" / "reference-defaults.yaml")))
    assert not units.errors, [e.render() for e in units.errors]
    (unit,) = units.units
    sandbox = unit.task.definition.sandbox
    assert sandbox.driver == "tempdir"
    assert [getattr(s, "path", "") for s in sandbox.template_sources] == [
        str((suite / "templates" / "overlay").resolve())
    ]
