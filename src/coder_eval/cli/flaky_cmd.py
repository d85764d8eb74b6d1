"""`coder-eval flaky RUN_DIR...`: tasks whose outcome flips across replicates and runs, with the evidence,
and (with `--regrade N`, or re-grades made before) tasks whose grader is nondeterministic."""

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from coder_eval.cli.guard import guarded


@guarded
def flaky(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (their task.json records are pooled).")],
    show_all: Annotated[bool, typer.Option("--all", help="List stable tasks too.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print every task's stability as JSON.")] = False,
    regrade: Annotated[
        int,
        typer.Option(
            "--regrade",
            metavar="N",
            help="First re-grade every graded unit's preserved workspace N times (in the unit's sandbox) to find "
            "graders whose grade differs on the same workspace. Re-grades are kept in the run's regrades.json.",
        ),
    ] = 0,
    allow_recorded_commands: Annotated[
        bool,
        typer.Option("--allow-recorded-commands", help="With --regrade: allow commands taken from the records to run."),
    ] = False,
) -> None:
    """List tasks whose outcome differs between replicates or runs: stability, strips, criteria that flip.

    Units are grouped by configuration (task, variant, agent, model) over every run given; runs of
    the same configuration are what make the comparison fair. Re-grades of the same workspace
    (--regrade N, or made earlier) flag grader defects apart from the agent's variance. Exit 0 (the
    listing is information, not a gate)."""
    from coder_eval.engine.grader_check import read_regrades, regrade_units
    from coder_eval.errors import UsageError
    from coder_eval.experiments.flaky import Unit, task_stability
    from coder_eval.experiments.flaky_text import stability_lines
    from coder_eval.experiments.grader_defects import grader_checks
    from coder_eval.models.regrades import UnitRegrades
    from coder_eval.records.layout import replicate_dir
    from coder_eval.records.store import read_task_results

    units: list[Unit] = []
    regraded: list[tuple[Unit, UnitRegrades]] = []
    names = [d.name for d in run_dirs]
    for run_dir in run_dirs:
        if not run_dir.is_dir():
            raise UsageError(f"{run_dir} is not a run directory; give the directories of earlier runs")
        if regrade:
            outcome = regrade_units(
                run_dir,
                regrade,
                allow_recorded_commands=allow_recorded_commands,
                progress=lambda line: typer.echo(line, err=True),
            )
            for skipped in outcome.skipped:
                typer.echo(f"not re-graded: {skipped}", err=True)
        results, warnings = read_task_results(run_dir)
        for warning in warnings:
            typer.echo(f"warning: skipped unreadable record: {warning}", err=True)
        label = run_dir.name if names.count(run_dir.name) == 1 else str(run_dir)  # two runs named alike
        stored = read_regrades(run_dir).units
        for r in results:
            unit = Unit(label, r, replicate_dir(Path(), r.variant_id, r.task_id, r.replicate_index).as_posix())
            units.append(unit)
            if unit.path in stored:
                regraded.append((unit, stored[unit.path]))
    tasks = task_stability(units)
    checks = grader_checks(regraded)
    if as_json:
        typer.echo(json.dumps(_as_json(tasks, checks), indent=2, ensure_ascii=False))
        return
    for line in stability_lines(tasks, checks, show_all=show_all):
        typer.echo(line)


def _as_json(tasks: list[Any], checks: list[Any]) -> dict[str, Any]:
    from coder_eval.experiments.grader_defects import defective_configs

    defects = defective_configs(checks)
    return {
        "tasks": [
            {
                **asdict(t),
                "task_id": t.task_id,
                "variant_id": t.variant_id,
                "flaky": t.flaky,
                "stability": t.stability,
                "grader_defect": t.key in defects,
            }
            for t in tasks
        ],
        "grader_checks": [{**asdict(c), "defect": c.defect} for c in checks],
    }
