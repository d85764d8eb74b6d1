"""Every task file of the reference system's conformance corpus loads here, with no load warning.

The reference's own loader gives none for these files, so neither may ours: an ignored key or a
legacy form here would mean we read a real suite differently from the system it was written for.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.config.experiments import load_experiment
from coder_eval.loading.loader import SelectOptions, load_tasks

NEEDS_PLUGIN = {"fizzbuzz_delegate.yaml", "hello_date_delegate.yaml"}  # agent type `delegate`, out of tree


def test_every_conformance_task_loads_without_warnings(conformance: Path) -> None:
    report = load_tasks([str(conformance / "tasks")], SelectOptions(include_skipped=True))
    assert len(report.files) >= 50
    failed = {Path(str(e.file)).name: e.render() for e in report.errors}
    assert set(failed) == NEEDS_PLUGIN, failed
    assert report.warnings == {}, {str(p): [w.render() for w in ws] for p, ws in report.warnings.items()}


def test_every_conformance_experiment_loads(conformance: Path) -> None:
    files = sorted((conformance / "experiments").glob("*.yaml"))
    assert files
    for path in files:
        assert load_experiment(str(path), cwd=conformance).variants, path
