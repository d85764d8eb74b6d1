"""`coder-eval run` and `coder-eval execute`: one option set, one body; they differ in grading.

The options are declared once, as the fields of `RunFlags` (each with its Typer annotation).
`_command` builds both commands from that one list: Typer reads the signature it assembles,
and the command receives a typed `RunFlags`. `execute` leaves out `--junit-xml`, since it
grades nothing.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_type_hints

import typer

from coder_eval.cli.executor_options import (
    Executor,
    RayAddress,
    RayCpus,
    RayMemory,
    RayResource,
    RaySharedDir,
    executor_settings,
)
from coder_eval.cli.guard import guarded
from coder_eval.cli.rehearse_options import Rehearse, RehearseAssume, rehearsal_sets

if TYPE_CHECKING:
    from coder_eval.engine.run import RunOutcome
    from coder_eval.sandbox.drivers import PreservationMode

Paths = Annotated[list[str] | None, typer.Argument(help="Task files, globs or directories (default: tasks/).")]
Parallel = Annotated[int, typer.Option("--max-parallel", "-j", min=1, help="Tasks run at the same time.")]
Tags = Annotated[str | None, typer.Option("--tags", "-t", help="Only tasks with any of these tags (comma list).")]
Exclude = Annotated[str | None, typer.Option("--exclude-tags", help="Skip tasks with any of these tags.")]
Skipped = Annotated[bool, typer.Option("--include-skipped", help="Also run tasks marked skip: true.")]
AgentType = Annotated[str | None, typer.Option("--type", "-T", help="Run every task with this agent type.")]
Repeats = Annotated[
    str | None,
    typer.Option(
        "--repeats",
        help="Run each task N times (overrides the experiment's repeats), or `auto`: for two arms, add replicates "
        "in rounds only while they can still change the paired verdict, up to --max-repeats (docs/experiments.md).",
    ),
]
MaxRepeats = Annotated[
    int | None,
    typer.Option("--max-repeats", min=2, max=1000, help="--repeats auto: most replicates per task and arm (10)."),
]
Confidence = Annotated[
    float | None,
    typer.Option(
        "--confidence", min=0.5, max=0.999, help="--repeats auto: confidence of the verdict and sequential test (0.95)."
    ),
]
EffectSize = Annotated[
    float | None,
    typer.Option(
        "--effect-size",
        min=0.01,
        max=0.99,
        help="--repeats auto: smallest difference in mean score worth detecting (0.2).",
    ),
]
RunDir = Annotated[Path | None, typer.Option("--run-dir", help="Run directory (default: runs/<timestamp>).")]
Preserve = Annotated[
    str | None, typer.Option("--preservation-mode", help="NONE, MOVE_ON_WRITE (the default) or DIRECT_WRITE.")
]
Resume = Annotated[bool, typer.Option("--resume", help="Continue the run in --run-dir; finished rows are kept.")]
AllowChanged = Annotated[
    bool,
    typer.Option("--allow-changed", help="With --resume: rerun finished units whose task configuration changed."),
]
Sample = Annotated[int | None, typer.Option("--sample", min=1, help="Dataset tasks: a fixed-seed sample of N rows.")]
PerStratum = Annotated[
    int | None, typer.Option("--sample-per-stratum", min=1, help="Dataset tasks: N rows per stratum.")
]
Junit = Annotated[Path | None, typer.Option("--junit-xml", help="Also write a JUnit XML report here.")]
Backend = Annotated[
    str | None,
    typer.Option(
        "--backend",
        "-b",
        envvar="API_BACKEND",
        help="Model route: direct (the provider), script (scripted model), record, replay, bedrock.",
    ),
]
Stream = Annotated[str | None, typer.Option("--stream", "-s", help="Print agent events live: full or minimal.")]
Oracle = Annotated[bool, typer.Option("--oracle", help="Script mode: derive each script from the task's reference.")]
Experiment = Annotated[
    str | None,
    typer.Option("--experiment", "-e", help="Experiment YAML (or a bare name: experiments/<name>.yaml)."),
]
Sets = Annotated[
    list[str] | None,
    typer.Option("--set", "-D", help="Override a resolved field: -D agent.model=X -D run_limits.max_turns=30."),
]
Model = Annotated[str | None, typer.Option("--model", "-m", help="Same as -D agent.model=...")]
Driver = Annotated[
    str | None, typer.Option("--driver", help="Same as -D sandbox.driver=... (auto, bubblewrap, docker or tempdir).")
]
Cassettes = Annotated[Path | None, typer.Option("--cassettes", help="record: where to save; replay: where to read.")]
MaxCost = Annotated[
    float | None,
    typer.Option(
        "--max-cost-usd",
        min=0.0,
        help="Stop launching units once the run's priced spend reaches this many dollars (running units "
        "finish; the run is marked interrupted and --resume continues it).",
    ),
]
Verbose = Annotated[bool, typer.Option("--verbose", "-v", help="DEBUG logging.")]
LogFile = Annotated[Path | None, typer.Option("--log-file", help="Also write the log to this file.")]


@dataclass(frozen=True)
class RunFlags:
    """Every option of `run` and `execute`, in `--help` order."""

    paths: Paths = None
    max_parallel: Parallel = 1
    tags: Tags = None
    exclude_tags: Exclude = None
    include_skipped: Skipped = False
    agent_type: AgentType = None
    repeats: Repeats = None
    max_repeats: MaxRepeats = None
    confidence: Confidence = None
    effect_size: EffectSize = None
    run_dir: RunDir = None
    preservation_mode: Preserve = None
    resume: Resume = False
    allow_changed: AllowChanged = False
    sample: Sample = None
    sample_per_stratum: PerStratum = None
    junit_xml: Junit = None
    backend: Backend = None
    stream: Stream = None
    oracle: Oracle = False
    cassettes: Cassettes = None
    experiment: Experiment = None
    sets: Sets = None
    model: Model = None
    driver: Driver = None
    executor: Executor = "local"
    ray_address: RayAddress = None
    ray_cpus: RayCpus = 1.0
    ray_memory: RayMemory = None
    ray_resource: RayResource = None
    ray_shared_run_dir: RaySharedDir = False
    max_cost_usd: MaxCost = None
    rehearse: Rehearse = False
    rehearse_assume: RehearseAssume = None
    verbose: Verbose = False
    log_file: LogFile = None


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def parse_repeats(value: str | None) -> int | Literal["auto"] | None:
    """`--repeats`: a whole number of at least 1, or `auto`."""
    from coder_eval.errors import UsageError

    if value is None:
        return None
    text = value.strip().lower()
    if text == "auto":
        return "auto"
    if text.isdigit() and int(text) >= 1:
        return int(text)
    raise UsageError(f"--repeats takes a whole number of at least 1 or `auto`, not {value!r}")


def _check_choices(flags: RunFlags) -> PreservationMode | None:
    from coder_eval.errors import UsageError
    from coder_eval.models.agent import agent_config_class
    from coder_eval.sandbox.drivers import PreservationMode

    mode = None
    if flags.preservation_mode is not None:
        try:
            mode = PreservationMode(flags.preservation_mode.upper())
        except ValueError:
            raise UsageError("--preservation-mode must be NONE, MOVE_ON_WRITE or DIRECT_WRITE") from None
    if flags.agent_type is not None:
        try:
            agent_config_class(flags.agent_type)
        except ValueError as exc:
            raise UsageError(f"--type: {exc}") from None
    if flags.stream not in (None, "full", "minimal"):
        raise UsageError("--stream must be full or minimal")
    return mode


def _pipeline(flags: RunFlags, *, grade: bool) -> None:
    from rich.markup import escape

    from coder_eval.cli.output import err, out
    from coder_eval.cli.progress import Progress
    from coder_eval.engine.run import RunRequest, run_pipeline
    from coder_eval.loading.loader import SelectOptions

    if flags.verbose or flags.log_file:
        from coder_eval.cli.logging_setup import configure_logging

        configure_logging(verbose=flags.verbose, log_file=flags.log_file)
    mode = _check_choices(flags)
    stream_factory = None
    if flags.stream:
        from coder_eval.cli.stream import stream_factory as make_stream

        stream_factory = make_stream(out(), flags.stream)
    paths, experiment, run_dir = _plugin_suite(flags)
    request = RunRequest(
        paths=paths,
        max_parallel=flags.max_parallel,
        repeats=parse_repeats(flags.repeats),
        max_repeats=flags.max_repeats,
        confidence=flags.confidence,
        effect_size=flags.effect_size,
        type_override=flags.agent_type,
        run_dir=run_dir,
        preservation=mode,
        grade=grade,
        resume=flags.resume,
        allow_changed=flags.allow_changed,
        junit_xml=flags.junit_xml,
        backend=flags.backend,
        oracle=flags.oracle,
        cassettes=flags.cassettes,
        experiment=experiment,
        sets=(*(flags.sets or ()), *rehearsal_sets(flags.rehearse, flags.rehearse_assume)),
        model=flags.model,
        driver=flags.driver,
        stream_factory=stream_factory,
        executor=flags.executor,
        max_cost_usd=flags.max_cost_usd,
        executor_settings=executor_settings(
            flags.executor,
            flags.ray_address,
            flags.ray_cpus,
            flags.ray_memory,
            flags.ray_resource,
            flags.ray_shared_run_dir,
        ),
        select=SelectOptions(
            sample=flags.sample,
            sample_per_stratum=flags.sample_per_stratum,
            tags=_split(flags.tags),
            exclude_tags=_split(flags.exclude_tags),
            include_skipped=flags.include_skipped,
        ),
    )
    from coder_eval.cli.run_summary import print_interrupted, print_summary
    from coder_eval.common.interrupts import run_lifetime

    progress = Progress(total=0, console=out(), live=False if stream_factory else None)
    try:
        with run_lifetime(), progress:
            outcome = run_pipeline(request, observer=progress.observer(), on_plan=progress.set_total)
    except KeyboardInterrupt:
        print_interrupted(err(), progress)
        raise
    for error in outcome.load_errors:
        err().print(f"[red]invalid task file, not run:[/] {escape(error.render())}", markup=True, highlight=False)
    print_summary(out(), outcome)
    _log_rows(outcome)
    raise typer.Exit(outcome.exit_code)


def _plugin_suite(flags: RunFlags) -> tuple[list[str], str | None, Path | None]:
    """The paths, experiment and run directory, with a plugin directory's eval suite imported into
    `<run dir>/suite` (a run directory is chosen here when none was given)."""
    from coder_eval.suite_import.direct import SUITE_DIR, expand_plugin_suite, plugin_suites

    paths = list(flags.paths or [])
    if not plugin_suites(paths, Path.cwd()):
        return paths, flags.experiment, flags.run_dir
    from coder_eval.cli.suite_import_cmd import print_report
    from coder_eval.records.layout import DEFAULT_RUNS_DIR, default_run_dir, new_run_id

    run_dir = flags.run_dir or default_run_dir(Path(DEFAULT_RUNS_DIR), new_run_id())
    expanded = expand_plugin_suite(paths, flags.experiment, run_dir / SUITE_DIR, Path.cwd())
    if expanded.report is not None:
        print_report(expanded.report)
    return expanded.paths, expanded.experiment, run_dir


def _log_rows(outcome: RunOutcome) -> None:
    """Each row at DEBUG; a row over its expected_turns (a soft target) as a warning, never a failure.

    The rows are read back from the run's held records only when DEBUG is on; otherwise only the
    rows over their target (gathered while run.json was written) are looked at."""
    import logging

    from coder_eval.models.turns import over_expected_turns

    log = logging.getLogger("coder_eval.run")
    rows = outcome.rows() if log.isEnabledFor(logging.DEBUG) else iter(outcome.over_expected)
    for row in rows:
        log.debug(
            "%s/%s #%s: %s score %s, %s turns",
            row.get("variant_id"),
            row.get("task_id"),
            row.get("replicate_index"),
            row.get("status"),
            row.get("weighted_score"),
            row.get("total_turns"),
        )
        if over_expected_turns(row):
            log.warning(
                "%s used %s agent turns, over its expected_turns of %s",
                row.get("task_id"),
                row.get("total_turns"),
                row.get("expected_turns"),
            )


@cache
def _flag_hints() -> dict[str, Any]:
    """The evaluated annotations of `RunFlags` (both commands use them; evaluating them is not free)."""
    return get_type_hints(RunFlags, include_extras=True)


def _command(name: str, doc: str, *, grade: bool, omit: frozenset[str] = frozenset()) -> Callable[..., None]:
    """A Typer command whose parameters are the `RunFlags` fields (less `omit`)."""
    hints = _flag_hints()
    params = [
        inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=hints[f.name])
        for f in fields(RunFlags)
        if f.name not in omit
    ]

    def command(**values: Any) -> None:
        _pipeline(RunFlags(**values), grade=grade)

    command.__name__ = command.__qualname__ = name
    command.__doc__ = doc
    command.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    setattr(command, "__signature__", inspect.Signature(params, return_annotation=None))  # noqa: B010
    return guarded(command)


run = _command(
    "run", "Run tasks with their agents and grade them. Exit 0 all succeeded, 1 any failure, 2 bad input.", grade=True
)
execute = _command(
    "execute",
    "Run tasks without grading (rows end NOT_GRADED); grade later with `evaluate RUN_DIR` or `run --resume`.",
    grade=False,
    omit=frozenset({"junit_xml"}),
)
