"""`coder-eval import plugin-eval` and `coder-eval import skill-evals`: other formats' eval suites."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from coder_eval.cli.guard import guarded

if TYPE_CHECKING:
    from coder_eval.suite_import.report import ImportReport

Output = Annotated[Path, typer.Option("--output", "-o", help="Directory the task directories and experiment go in.")]


def print_report(report: ImportReport) -> None:
    """One line per case imported (its losses under it) or refused, the suite's notes, the experiment."""
    from rich.markup import escape

    from coder_eval.cli.output import out
    from coder_eval.suite_import.report import report_lines

    lines = report_lines(report)
    for line in lines[:-1]:
        out().print(escape(line))
    if report.experiment is not None:
        out().print(f"experiment {escape(str(report.experiment))} (run the tasks with -e to compare the two arms)")
    out().print(escape(lines[-1]))


def import_plugin_eval(
    plugin: Annotated[Path, typer.Argument(help="The plugin's root directory (plugin.json and its evals/).")],
    output: Output = Path("tasks"),
    eval_dir: Annotated[
        str | None, typer.Option("--eval-dir", help="The suite's directory below the plugin (default: evals).")
    ] = None,
) -> None:
    """Turn a `claude plugin eval` suite into task files and a without/with-plugin experiment.

    Each case becomes OUT/<case>/task.yaml; its graders become criteria, and OUT/experiment.yaml
    runs every case without and with the plugin. What a case cannot carry is listed under it; a
    case with a grader that cannot be mapped is refused, naming it. Exit code 1 when any case was
    refused."""
    from coder_eval.suite_import.plugin_suite import import_plugin_eval as run_import

    report = run_import(plugin, output, eval_dir)
    print_report(report)
    if report.refused:
        raise typer.Exit(1)


@guarded
def import_skill_evals(
    skill: Annotated[Path, typer.Argument(help="The skill's directory (SKILL.md and evals/evals.json).")],
    output: Output = Path("tasks"),
    judge_all: Annotated[
        bool, typer.Option("--judge-all", help="Grade every expectation with a judge, none by a deterministic check.")
    ] = False,
) -> None:
    """Turn a skill-creator `evals/evals.json` into task files and a without/with-skill experiment.

    Each eval becomes OUT/<eval>/task.yaml: expectations a deterministic check can decide (a file
    created, a text in the reply, a command run, the skill used) become those criteria, the rest
    llm_judge. Exit code 1 when any eval was refused."""
    from coder_eval.suite_import.skill_evals import import_skill_evals as run_import

    report = run_import(skill, output, judge_all=judge_all)
    print_report(report)
    if report.refused:
        raise typer.Exit(1)
