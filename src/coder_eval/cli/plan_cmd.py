"""`coder-eval plan`: validate tasks and the environment without running anything."""

from typing import Annotated

import typer

from coder_eval.cli.guard import guarded


@guarded
def plan(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Task files, globs or directories (default: tasks/).")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print problems.")] = False,
    experiment: Annotated[
        str | None, typer.Option("--experiment", "-e", help="Also resolve every task under this experiment.")
    ] = None,
    sets: Annotated[list[str] | None, typer.Option("--set", "-D", help="Overrides, as for run.")] = None,
    executor: Annotated[
        str, typer.Option("--executor", help="Also check that this executor (local or ray) can run here.")
    ] = "local",
    backend: Annotated[
        str | None,
        typer.Option(
            "--backend",
            "-b",
            help="The backend the run will use (default: $API_BACKEND, else direct): each task's model route is "
            "resolved for it, and a task whose agent has no usable credential is refused (without -b or "
            "API_BACKEND, the default direct backend is checked and only warned about).",
        ),
    ] = None,
) -> None:
    """Validate task files: schema, paths, datasets; each task's network policy and model route.

    Under a backend named with -b (or API_BACKEND) that reaches a provider (direct, record, bedrock,
    litellm), a task whose agent has no usable credential is refused; with none named, the default
    (direct) is checked and only warned about. With -e (or -D), also resolve each task under each variant
    and print the resolved agent, limits, sandbox driver and route, so a typo in an experiment
    shows up before any run.
    """
    # Plain click styling, not Rich: plan is run often and start-up time matters here.
    from coder_eval.common.collector import collector_paused

    with collector_paused():  # bounded work: a dataset's rows are many long-lived objects (common/collector.py)
        from coder_eval.engine.validation import plan as run_plan

        report = run_plan(list(paths or []), backend=backend)
    for f in report.files:
        if f.error is not None:
            typer.echo(typer.style("✗ ", fg="red") + str(f.path))
            for problem in f.error.problems:
                typer.echo(typer.style("    - ", fg="red") + problem.render())
            continue
        if not quiet or f.warnings:
            task = f.tasks[0]
            rows = f" ({len(f.tasks)} rows)" if task.row_id is not None else ""
            kind = task.definition.agent_type or "claude-code"
            typer.echo(
                typer.style("✓ ", fg="green") + f"{f.path}: {task.definition.task_id}{rows}, "
                f"{len(task.definition.success_criteria)} criteria, agent {kind}"
            )
        for warning in f.warnings:
            typer.echo(typer.style("    ! ", fg="yellow") + warning)
        if not quiet:
            for note in f.notes:
                typer.echo("    · " + note)
    for warning in [*report.environment, *_executor_warnings(executor)]:
        typer.echo(typer.style("warning: ", fg="yellow") + warning, err=True)
    if experiment is not None or sets:
        resolution_ok = _show_resolution(report, experiment, tuple(sets or ()), backend)
        report_ok = report.ok and resolution_ok
    else:
        report_ok = report.ok
    bad = sum(not f.ok for f in report.files)
    typer.echo(f"{len(report.files) - bad} of {len(report.files)} task files valid")
    raise typer.Exit(0 if report_ok else 1)


def _show_resolution(report: object, experiment: str | None, sets: tuple[str, ...], backend: str | None) -> bool:
    import os

    from coder_eval.engine.experiment_plan import PlanInputs, plan_units
    from coder_eval.engine.gateway_spec import resolve_backend
    from coder_eval.engine.provider_config import provider_environment, run_providers
    from coder_eval.engine.route_check import route_lines
    from coder_eval.engine.validation import PlanReport

    assert isinstance(report, PlanReport)
    tasks = [t for f in report.files for t in f.tasks[:1]]  # one row per dataset is enough to show
    plan = plan_units(tasks, PlanInputs(experiment=experiment, sets=sets))
    chosen = resolve_backend(backend)
    providers = run_providers(chosen, plan.experiment)
    env = provider_environment(providers)
    refused = False
    typer.echo(f"experiment {plan.experiment.experiment_id}: {len(plan.experiment.variants)} variant(s)")
    for unit in plan.units:
        if unit.replicate_index:
            continue
        agent, limits = unit.agent, unit.task.definition.run_limits
        typer.echo(
            f"  {unit.variant_id} / {unit.task_id}: agent {agent.type}"
            + (f" model {agent.model}" if agent.model else "")
            + f", permission {agent.permission_mode}, max_turns {limits.max_turns}, "
            f"task_timeout {limits.task_timeout}, driver {unit.task.definition.sandbox.driver}"
        )
        lines, problems = route_lines(
            unit.task.definition, chosen, providers, env, model=agent.model, agent_type=agent.type
        )
        for line in lines:
            typer.echo(f"    {line}")
        for problem in problems:
            refused = refused or backend is not None or bool(os.environ.get("API_BACKEND"))
            typer.echo(typer.style("    ✗ ", fg="red") + problem.render())
    for error in plan.errors:
        typer.echo(typer.style("✗ ", fg="red") + error.render())
    return not plan.errors and not refused


def _executor_warnings(name: str) -> list[str]:
    from coder_eval.engine.executors import EXECUTORS

    if name not in EXECUTORS.names():
        return [f"unknown executor {name!r}; choose one of {', '.join(sorted(EXECUTORS.names()))}"]
    if name == "ray":
        from coder_eval.cluster.settings import ray_missing

        missing = ray_missing()
        return [missing] if missing else []
    return []
