"""The CI verdict of a finished run: counts, an optional per-task score floor, GitHub outputs.

`coder-eval run` already exits non-zero when a task or a suite gate fails. The gate adds what a
CI job wants on top: the figures as step outputs, the run report in the job summary, and an
optional strict floor on every task's weighted score. It reads only `run.json` (the spine every
run writes, plain or experiment), so it also works on a run recovered with `aggregate`.

By default the gate fails on any task that failed or ended in error, so a gate step is never
greener than the run it reads. `--allow-failures` turns that off; a score floor replaces it for
failed tasks (a FAILURE that still scores at or above the floor passes), while a task with no
score (an ERROR) still fails the gate unless failures are allowed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.common.untrusted_text import markdown_inline
from coder_eval.errors import RecordError
from coder_eval.models.run import RunSummary
from coder_eval.records.layout import RUN_JSON, RUN_MD
from coder_eval.records.store import read_run_summary


@dataclass
class GateVerdict:
    """What the gate found; `passed` is the floor's verdict alone (the run's exit code is separate)."""

    summary: RunSummary
    floor: float | None
    below_floor: list[str] = field(default_factory=list)
    not_succeeded: list[str] = field(default_factory=list)
    """Rows the gate fails on because they failed or errored (empty with --allow-failures)."""

    @property
    def passed(self) -> bool:
        return not self.below_floor and not self.not_succeeded

    @property
    def floor_passed(self) -> bool:
        return not self.below_floor

    def outputs(self, run_dir: Path) -> dict[str, str]:
        s = self.summary
        rate = "" if s.pass_rate is None else f"{s.pass_rate:.4f}"
        return {
            "run-dir": str(run_dir),
            "pass-rate": rate,
            "tasks-run": str(s.tasks_run),
            "tasks-succeeded": str(s.tasks_succeeded),
            "tasks-failed": str(s.tasks_failed),
            "tasks-error": str(s.tasks_error),
            "floor-passed": "true" if self.floor_passed else "false",
            "gate-passed": "true" if self.passed else "false",
        }


def _row_name(row: dict[str, object]) -> str:
    name = f"{row.get('variant_id', 'default')}/{row.get('task_id', '?')}"
    index = row.get("replicate_index")
    return f"{name}#{index}" if index else name


def check_floor(summary: RunSummary, floor: float | None) -> GateVerdict:
    """Rows scoring under `floor`. A row with no score (an error) is left to the run's exit code;
    a score that is not a finite number fails closed."""
    verdict = GateVerdict(summary, floor)
    if floor is None:
        return verdict
    for row in summary.task_results:
        score = row.get("weighted_score")
        if score is None:
            continue
        if not isinstance(score, int | float) or not math.isfinite(score):
            verdict.below_floor.append(f"{_row_name(row)}: score {score!r} is not a number")
        elif score < floor:
            verdict.below_floor.append(f"{_row_name(row)}: score {score:.3f} < {floor:.3f}")
    return verdict


def check_outcomes(verdict: GateVerdict, *, allow_failures: bool) -> GateVerdict:
    """Add every failed or errored row (a failed one only without a floor) unless failures are allowed."""
    if allow_failures:
        return verdict
    for row in verdict.summary.task_results:
        status = str(row.get("status") or "")
        if status == "SUCCESS":
            continue
        unscored = row.get("weighted_score") is None  # an error, or never graded: no floor can vouch for it
        if unscored or verdict.floor is None:
            verdict.not_succeeded.append(f"{_row_name(row)}: {status or 'no status'}")
    return verdict


def evaluate_gate(run_dir: Path, floor: float | None, *, allow_failures: bool = False) -> GateVerdict:
    """Read run.json under `run_dir`, apply the floor and the outcome rule; RecordError when there is no run."""
    if not (run_dir / RUN_JSON).is_file():
        raise RecordError(f"{run_dir} holds no run.json: the run did not start (see the run step's error above)")
    return check_outcomes(check_floor(read_run_summary(run_dir), floor), allow_failures=allow_failures)


def append_github_outputs(path: Path, outputs: dict[str, str]) -> None:
    """`name=value` lines in the file GitHub names in $GITHUB_OUTPUT (values here are one line)."""
    with path.open("a", encoding="utf-8") as fh:
        for name, value in outputs.items():
            fh.write(f"{name}={value.replace(chr(10), ' ')}\n")


def step_summary_text(run_dir: Path, verdict: GateVerdict) -> str:
    """run.md (whose renderer shows every string it did not write as text), then the floor's verdict."""
    md = run_dir / RUN_MD
    text = md.read_text(encoding="utf-8") if md.is_file() else f"_No run.md in {run_dir}._\n"
    if verdict.not_succeeded:
        lines = "\n".join(f"- {b}" for b in verdict.not_succeeded)
        text += f"\n**Gate: {len(verdict.not_succeeded)} task(s) did not succeed.**\n\n{lines}\n"
    if verdict.floor is not None:
        if verdict.floor_passed:
            text += f"\n**Score floor {verdict.floor:.3f}: every scored task is at or above it.**\n"
        else:
            lines = "\n".join(f"- {markdown_inline(b)}" for b in verdict.below_floor)
            text += f"\n**Score floor {verdict.floor:.3f}: {len(verdict.below_floor)} below it.**\n\n{lines}\n"
    return text
