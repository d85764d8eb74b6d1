"""`coder-eval run PLUGIN_DIR` and `plan PLUGIN_DIR`: a plugin with a `claude plugin eval` suite, run as it is.

A path given to run or plan that is a plugin directory (a manifest, and an eval directory holding
cases) is imported first, into a directory the command owns (`<run dir>/suite` for run, a
temporary one for plan), and its experiment (without and with the plugin) is used unless `-e`
names another. A plugin suite is run on its own, one at a time; a case the import refuses stops
the command, naming it, since running the rest would report a suite that is not the one asked for.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.errors import UsageError
from coder_eval.suite_import.plugin_suite import import_plugin_eval, is_plugin_suite
from coder_eval.suite_import.report import ImportReport

SUITE_DIR = "suite"
"""Where `run` imports a plugin suite, inside its run directory."""


@dataclass
class Expanded:
    paths: list[str]
    experiment: str | None
    report: ImportReport | None = None
    plugin: Path | None = None
    notes: list[str] = field(default_factory=list)


def plugin_suites(paths: list[str], cwd: Path) -> list[Path]:
    """The given paths that are plugin directories with a suite."""
    found = []
    for raw in paths:
        path = Path(raw) if Path(raw).is_absolute() else cwd / raw
        if path.is_dir() and is_plugin_suite(path):
            found.append(path)
    return found


def expand_plugin_suite(paths: list[str], experiment: str | None, workdir: Path, cwd: Path) -> Expanded:
    """`paths` with a plugin suite replaced by its imported tasks (in `workdir`), and the experiment to use."""
    suites = plugin_suites(paths, cwd)
    if not suites:
        return Expanded(paths, experiment)
    if len(suites) > 1 or len(paths) > 1:
        raise UsageError(
            "a plugin directory with an eval suite is run on its own: pass one plugin directory and no other paths "
            "(or import each with `coder-eval import plugin-eval` and run the task directories)"
        )
    plugin = suites[0]
    if workdir.exists():
        shutil.rmtree(workdir)
    report = import_plugin_eval(plugin, workdir)
    if report.refused:
        refused = "; ".join(f"{r.source}: {r.reason}" for r in report.refused)
        raise UsageError(
            f"{len(report.refused)} case(s) of {plugin} cannot be carried, so the suite is not run: {refused}. "
            f"`coder-eval import plugin-eval {plugin} -o DIR` imports the others, to run without them"
        )
    chosen = experiment if experiment is not None else str(report.experiment)
    return Expanded([str(workdir)], chosen, report, plugin)
