"""`coder-eval lint [PATHS]`: prove each task can fail and can pass, and flag tasks that give themselves away."""

from pathlib import Path
from typing import Annotated

import typer

from coder_eval.cli.guard import guarded
from coder_eval.cli.rehearse_options import Rehearse, RehearseAssume, rehearsal_sets


@guarded
def lint(
    paths: Annotated[
        list[str] | None, typer.Argument(help="Task files, globs or directories (default: tasks/).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or sarif.")] = "text",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the report here.")] = None,
    static_only: Annotated[
        bool, typer.Option("--static", help="Only the rules that read the files; run nothing.")
    ] = False,
    agent_oracle: Annotated[
        bool,
        typer.Option(
            "--agent-oracle",
            help="Oracle = the real agent playing a script derived from the reference (-b script --oracle), "
            "instead of the reference copied into the workspace.",
        ),
    ] = False,
    max_parallel: Annotated[int, typer.Option("--max-parallel", "-j", min=1, help="Lint runs at a time.")] = 4,
    tags: Annotated[str | None, typer.Option("--tags", "-t", help="Only tasks with any of these tags.")] = None,
    exclude_tags: Annotated[str | None, typer.Option("--exclude-tags", help="Skip tasks with these tags.")] = None,
    keep_runs: Annotated[
        Path | None, typer.Option("--keep-runs", help="Keep the lint runs' records in this directory.")
    ] = None,
    rehearse: Rehearse = False,
    rehearse_assume: RehearseAssume = None,
) -> None:
    """Lint task files. Exit 0 without errors, 1 with any error finding, 2 on invalid input."""
    from rich.markup import escape

    from coder_eval.cli.output import err, out, plain
    from coder_eval.errors import UsageError
    from coder_eval.lint.dynamic import DynamicOptions, dynamic_findings
    from coder_eval.lint.render import counts, render_json, render_sarif, render_text
    from coder_eval.lint.static import static_findings
    from coder_eval.loading.loader import SelectOptions, load_tasks
    from coder_eval.records.atomic import write_text_atomic

    if fmt not in ("text", "json", "sarif"):
        raise UsageError(f"--format must be text, json or sarif, not {fmt!r}")
    split = [s.strip() for s in (tags or "").split(",") if s.strip()]
    excluded = [s.strip() for s in (exclude_tags or "").split(",") if s.strip()]
    report = load_tasks(list(paths or []), SelectOptions(tags=split, exclude_tags=excluded))
    for error in report.errors:
        err().print(f"[red]invalid task file, not linted:[/] {escape(error.render())}", markup=True, highlight=False)
    findings = static_findings(report.tasks)
    if not static_only:
        options = DynamicOptions(
            max_parallel=max_parallel,
            agent_oracle=agent_oracle,
            keep_dir=keep_runs,
            sets=rehearsal_sets(rehearse, rehearse_assume),
        )
        findings += dynamic_findings(report.tasks, options)
    checked = len({(t.source_file, t.row_id) for t in report.tasks})
    if fmt == "json":
        text = render_json(findings, tasks_checked=checked)
    elif fmt == "sarif":
        text = render_sarif(findings, base=Path.cwd())
    else:
        text = render_text(findings, tasks_checked=checked)
    if output is not None:
        write_text_atomic(output, text if text.endswith("\n") else text + "\n")
        c = counts(findings)
        out().print(f"{checked} task(s) linted: {c['error']} error(s), {c['warning']} warning(s); wrote {output}")
    else:
        plain(text if text.endswith("\n") else text + "\n")
    if report.errors:
        raise typer.Exit(2)
    raise typer.Exit(1 if counts(findings)["error"] else 0)
