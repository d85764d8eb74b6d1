"""What `run`/`execute` print at the end: the counts, every failed gate, the experiment verdict, the exit.

The last lines of a run are where a user looks, so they never contradict the exit code: a run
that exits 1 because a suite gate failed says so under a 100 % pass rate. An interrupted run
prints what finished, where the records are, and the command that resumes it.
"""

from __future__ import annotations

import shlex
import sys
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

if TYPE_CHECKING:
    from coder_eval.cli.progress import Progress
    from coder_eval.engine.run import RunOutcome


def print_summary(console: Console, outcome: RunOutcome) -> None:
    s = outcome.summary
    rate = "n/a" if s.pass_rate is None else f"{s.pass_rate:.1%}"
    cost = "" if s.total_cost_usd is None else f"; cost ${s.total_cost_usd:.4f}" + ("" if s.cost_complete else "+")
    console.print(
        f"{s.tasks_run} run: {s.tasks_succeeded} succeeded, {s.tasks_failed} failed, {s.tasks_error} errors"
        + (f", {s.tasks_not_graded} not graded" if s.tasks_not_graded else "")
        + f"; pass rate {rate}{cost}; records in {escape(str(outcome.run_dir))}",
        highlight=False,
    )
    for gate in outcome.failed_gates:
        console.print(f"[red]failed gate:[/] {escape(gate)}", highlight=False)
    for verdict in outcome.verdicts:
        console.print(f"experiment: {escape(verdict)}", highlight=False)
    if outcome.adaptive is not None:
        adaptive = outcome.adaptive
        line = f"adaptive replicates: {adaptive.spent_sentence()}"
        if adaptive.stop_reason:
            line += f"; {adaptive.stop_reason}"
        console.print(escape(line), highlight=False)
    if outcome.stopped_reason:
        console.print(f"[yellow]stopped:[/] {escape(outcome.stopped_reason)}", highlight=False)
        console.print(f"resume with: {escape(resume_command(sys.argv, outcome.run_dir))}", highlight=False)
    code = outcome.exit_code
    if code == 0:
        return
    reasons = []
    if s.tasks_failed or s.tasks_error:
        reasons.append(f"{s.tasks_failed + s.tasks_error} unit(s) did not succeed")
    if outcome.failed_gates:
        reasons.append(f"{len(outcome.failed_gates)} gate(s) failed")
    if s.tasks_not_graded and outcome.grading:
        reasons.append(f"{s.tasks_not_graded} unit(s) not graded")
    if outcome.stopped_reason:
        reasons.append("the spend limit stopped the run before every unit ran")
    console.print(f"exit {code}: " + ("; ".join(reasons) or "see above"), highlight=False)


def resume_command(argv: list[str], run_dir: object) -> str:
    """The command line that continues this run: the same arguments, --run-dir RUN and --resume."""
    args = list(argv[1:])
    cleaned: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--run-dir":
            skip = True
            continue
        if arg.startswith("--run-dir=") or arg == "--resume":
            continue
        cleaned.append(arg)
    return shlex.join(["coder-eval", *cleaned, "--run-dir", str(run_dir), "--resume"])


def print_interrupted(console: Console, progress: Progress) -> None:
    """After Ctrl-C (or SIGTERM): what finished, where the records are, how to go on."""
    c = progress.counts
    console.print(
        f"interrupted: {progress.done} of {progress.total} unit(s) finished "
        f"({c['succeeded']} succeeded, {c['failed']} failed, {c['error']} errors)",
        highlight=False,
    )
    if progress.run_dir is None:
        console.print("nothing was started; no records were written", highlight=False)
        return
    console.print(f"records in {escape(str(progress.run_dir))} (run.json marks the run interrupted)", highlight=False)
    console.print(f"resume with: {escape(resume_command(sys.argv, progress.run_dir))}", highlight=False)
