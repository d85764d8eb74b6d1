"""`coder-eval plan`: every check `run` applies, for the same inputs and flags, without running anything."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from coder_eval.cli.guard import guarded
from coder_eval.cli.rehearse_options import Rehearse, RehearseAssume, rehearsal_sets
from coder_eval.records.layout import DEFAULT_RUNS_DIR

if TYPE_CHECKING:
    from coder_eval.engine.forecast import PerTurn
    from coder_eval.engine.validation import FilePlan, PlanReport


@guarded
def plan(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Task files, globs or directories (default: tasks/).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print problems.")] = False,
    experiment: Annotated[
        str | None, typer.Option("--experiment", "-e", help="Resolve every task under this experiment, as run does.")
    ] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", "-D", help="Overrides, as for run.")] = None,
    agent_type: Annotated[str | None, typer.Option("--type", "-T", help="As for run.")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="As for run.")] = None,
    driver: Annotated[str | None, typer.Option("--driver", help="As for run.")] = None,
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            "-b",
            envvar="API_BACKEND",
            help="The backend run would use (default direct): each unit's model route is resolved for it, and a "
            "unit whose provider has no usable credential is refused.",
        ),
    ] = None,
    oracle: Annotated[bool, typer.Option("--oracle", help="As for run: check the oracle scripts.")] = False,
    cassettes: Annotated[Path | None, typer.Option("--cassettes", help="As for run (-b replay).")] = None,
    executor: Annotated[
        str, typer.Option("--executor", help="Also check that this executor (local or ray) can run here.")
    ] = "local",
    repeats: Annotated[
        str | None, typer.Option("--repeats", help="As for run (N or auto: the plan then shows the fixed design).")
    ] = None,
    max_repeats: Annotated[int | None, typer.Option("--max-repeats", min=2, max=1000, help="As for run.")] = None,
    confidence: Annotated[float | None, typer.Option("--confidence", min=0.5, max=0.999, help="As for run.")] = None,
    effect_size: Annotated[float | None, typer.Option("--effect-size", min=0.01, max=0.99, help="As for run.")] = None,
    estimate: Annotated[
        bool,
        typer.Option("--estimate", help="Also forecast the run's cost per arm from earlier runs or --per-turn-tokens."),
    ] = False,
    runs_dir: Annotated[
        Path, typer.Option("--runs-dir", help="With --estimate: where earlier runs are (their task.json records).")
    ] = Path(DEFAULT_RUNS_DIR),
    per_turn_tokens: Annotated[
        str | None,
        typer.Option(
            "--per-turn-tokens",
            help="With --estimate: assumed IN:OUT tokens per agent turn for units no earlier run covers.",
        ),
    ] = None,
    rehearse: Rehearse = False,
    rehearse_assume: RehearseAssume = None,
) -> None:
    """Validate task files and what a run of them needs: exit 0 when `run` would start, 1 when it would refuse.

    Every check `run` applies before it starts runs here for the same flags: the schema, paths and
    datasets; each task resolved under the experiment, -D, -T and --driver; variants' plugin paths and
    template sources; the scripted-model files under -b script; each unit's model route (provider,
    endpoint, model as sent, where its key comes from) for the backend; agent binaries and sandbox
    drivers. Each task's network policy is printed; with -e (or -D) the resolved agent, limits, driver
    and route of every unit too.
    """
    # Plain click styling, not Rich: plan is run often and start-up time matters here.
    from coder_eval.common.collector import collector_paused
    from coder_eval.engine.experiment_plan import PlanInputs
    from coder_eval.engine.gateway_spec import resolve_backend
    from coder_eval.engine.unit_checks import RunChoices, check_backend_flags

    chosen = resolve_backend(backend)
    check_backend_flags(chosen, cassettes)
    per_turn = _per_turn(per_turn_tokens, estimate)
    from coder_eval.cli.run_cmd import parse_repeats

    sets = [*(sets or ()), *rehearsal_sets(rehearse, rehearse_assume)]
    with _plugin_suite(list(paths or []), experiment) as (task_paths, experiment):
        inputs = PlanInputs(
            experiment,
            tuple(sets),
            model,
            driver,
            agent_type,
            parse_repeats(repeats),
            max_repeats,
            confidence,
            effect_size,
        )
        with collector_paused():  # bounded work: a dataset's rows are many long-lived objects (common/collector.py)
            from coder_eval.engine.validation import plan as run_plan

            report = run_plan(task_paths, inputs=inputs, choices=RunChoices(chosen, oracle))
    for f in report.files:
        _show_file(f, quiet=quiet)
    executor_problems = _executor_problems(executor)
    for warning in report.environment:
        typer.echo(typer.style("warning: ", fg="yellow") + warning, err=True)
    for problem in [*executor_problems, *(e.render() for e in report.other_errors)]:
        typer.echo(typer.style("✗ ", fg="red") + problem)
    if experiment is not None or sets:
        _show_resolution(report)
    if estimate:
        _show_estimate(report, runs_dir, per_turn)
    bad = sum(not f.ok for f in report.files)
    typer.echo(f"{len(report.files) - bad} of {len(report.files)} task files valid")
    raise typer.Exit(0 if report.ok and not executor_problems else 1)


@contextmanager
def _plugin_suite(paths: list[str], experiment: str | None) -> Iterator[tuple[list[str], str | None]]:
    """The paths and experiment, with a plugin directory's eval suite imported into a temporary directory."""
    from coder_eval.suite_import.direct import plugin_suites

    if not plugin_suites(paths, Path.cwd()):
        yield paths, experiment
        return
    import tempfile

    from coder_eval.cli.suite_import_cmd import print_report
    from coder_eval.suite_import.direct import expand_plugin_suite

    with tempfile.TemporaryDirectory(prefix="coder-eval-suite-") as tmp:
        expanded = expand_plugin_suite(paths, experiment, Path(tmp) / "suite", Path.cwd())
        if expanded.report is not None:
            print_report(expanded.report)
        yield expanded.paths, expanded.experiment


def _show_file(f: FilePlan, *, quiet: bool) -> None:
    if f.error is not None:
        typer.echo(typer.style("✗ ", fg="red") + str(f.path))
        for problem in f.error.problems:
            typer.echo(typer.style("    - ", fg="red") + problem.render())
        return
    task = f.tasks[0]
    rows = f" ({len(f.tasks)} rows)" if task.row_id is not None else ""
    kind = task.definition.agent_type or "claude-code"
    count = len(task.definition.success_criteria)
    summary = f"{f.path}: {task.definition.task_id}{rows}, {count} criteria, agent {kind}"
    if f.problems:
        typer.echo(typer.style("✗ ", fg="red") + summary + " — run would refuse it:")
        for problem in f.problems:
            typer.echo(typer.style("    - ", fg="red") + problem.render())
    elif not quiet or f.warnings:
        typer.echo(typer.style("✓ ", fg="green") + summary)
    for warning in f.warnings:
        typer.echo(typer.style("    ! ", fg="yellow") + warning)
    if not quiet:
        for note in f.notes:
            typer.echo("    · " + note)


def _show_resolution(report: PlanReport) -> None:
    plan = report.units
    if plan is None:
        return
    typer.echo(f"experiment {plan.experiment.experiment_id}: {len(plan.experiment.variants)} variant(s)")
    quarantine = plan.experiment.quarantine
    if quarantine is not None:
        how = "left out of" if quarantine.mode == "exclude" else f"counted at weight {quarantine.weight:g} in"
        typer.echo(f"  quarantine: {', '.join(quarantine.tasks)} ({how} the statistics and the verdict)")
    if plan.adaptive is not None:
        a = plan.adaptive
        typer.echo(
            f"  adaptive replicates: a first round of {a.min_repeats} per task and arm, then one more at a time "
            f"while they can change the verdict, up to {a.max_repeats} (confidence {a.confidence:g}, effect size "
            f"{a.effect_size:g}); at most {len(plan.units)} units, the fixed design"
        )
    shown: set[tuple[str, object]] = set()
    for unit in plan.units:
        key = (unit.variant_id, unit.task.source_file)
        if unit.replicate_index or key in shown:
            continue  # one line per (variant, task file): a dataset's rows resolve alike
        shown.add(key)
        agent, limits = unit.agent, unit.task.definition.run_limits
        typer.echo(
            f"  {unit.variant_id} / {unit.task_id}: agent {agent.type}"
            + (f" model {agent.model}" if agent.model else "")
            + f", permission {agent.permission_mode}, max_turns {limits.max_turns}, "
            f"task_timeout {limits.task_timeout}, driver {unit.task.definition.sandbox.driver}"
        )
        if report.routes is not None:
            for line in report.routes.check(agent.type, agent.model)[0]:
                typer.echo(f"    {line}")


def _per_turn(text: str | None, estimate: bool) -> PerTurn | None:
    if text is None:
        return None
    from coder_eval.engine.forecast import PerTurn
    from coder_eval.errors import UsageError

    if not estimate:
        raise UsageError("--per-turn-tokens only applies with --estimate")
    return PerTurn.parse(text)


def _show_estimate(report: PlanReport, runs_dir: Path, per_turn: PerTurn | None) -> None:
    from coder_eval.engine.forecast import forecast_arms, forecast_lines, read_history

    plan = report.units
    if plan is None:
        typer.echo("cost forecast: no task loaded, nothing to price")
        return
    history, unreadable = read_history(runs_dir)
    arms = forecast_arms(plan.units, history, per_turn)
    for line in forecast_lines(arms, len(history), runs_dir, unreadable):
        typer.echo(line)
    if plan.adaptive is not None:
        typer.echo("  (--repeats auto: this prices the fixed design, the most the adaptive rounds can spend)")


def _executor_problems(name: str) -> list[str]:
    from coder_eval.engine.executors import EXECUTORS

    if name not in EXECUTORS.names():
        return [f"unknown executor {name!r}; choose one of {', '.join(sorted(EXECUTORS.names()))}"]
    if name == "ray":
        from coder_eval.cluster.settings import ray_missing

        missing = ray_missing()
        return [missing] if missing else []
    return []
