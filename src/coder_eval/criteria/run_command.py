"""run_command: a shell command's exit code, optionally its stdout, or a score it prints."""

from __future__ import annotations

import math

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion, join_details
from coder_eval.criteria.registry import register_criterion
from coder_eval.models.criteria_commands import RunCommandCriterion
from coder_eval.models.results import CriterionResult

_SHOWN = 300


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _SHOWN else "..." + text[-_SHOWN:]


def stdout_matches(stdout: str, expected: str, mode: str) -> bool:
    if mode == "exact":
        return stdout.strip() == expected.strip()
    if mode == "contains":
        return expected.strip() in stdout  # surrounding whitespace is ignored, as for exact
    return bounded.search(expected, stdout)


@register_criterion("run_command", spec=RunCommandCriterion)
class RunCommand(Criterion[RunCommandCriterion]):
    """Binary: the command exits with the expected code (and prints the expected stdout).

    With score_from_stdout the first stdout line is the score, clamped to [0, 1] (the detail keeps
    the number printed), and the rest becomes details; an exit code other than
    `expected_exit_code` (default 0) or an unparseable line scores 0.
    """

    def evaluate(self, spec: RunCommandCriterion, ctx: CheckContext) -> CriterionResult:
        out = ctx.run(spec.command, spec.timeout)
        if out.timed_out:
            return self.result(spec, 0.0, details=f"timed out after {spec.timeout:g}s", error="timeout")
        if spec.score_from_stdout:
            return self._scored(spec, out.exit_code, out.stdout, out.stderr)
        notes = [f"exit code {out.exit_code} (expected {spec.expected_exit_code})"]
        ok = out.exit_code == spec.expected_exit_code
        if ok and spec.expected_stdout is not None:
            ok = stdout_matches(out.stdout, spec.expected_stdout, spec.stdout_match)
            notes.append(f"stdout {'matches' if ok else 'does not match'} ({spec.stdout_match})")
        if not ok:
            notes.append(f"stdout: {_tail(out.stdout)!r}" if out.stdout.strip() else "")
            notes.append(f"stderr: {_tail(out.stderr)!r}" if out.stderr.strip() else "")
        return self.result(spec, 1.0 if ok else 0.0, details=join_details(*notes))

    def _scored(self, spec: RunCommandCriterion, code: int | None, stdout: str, stderr: str) -> CriterionResult:
        lines = stdout.splitlines()
        rest = "\n".join(lines[1:]).strip()
        if code != spec.expected_exit_code:
            expected = f"exit code {code} (expected {spec.expected_exit_code})"
            return self.result(spec, 0.0, details=join_details(expected, _tail(stderr)))
        try:
            score = float(lines[0].strip()) if lines else math.nan
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            first = lines[0][:100] if lines else "(no output)"
            return self.result(
                spec, 0.0, details=f"first stdout line is not a number: {first!r}", error="unparseable score"
            )
        clamped = min(1.0, max(0.0, score))
        note = f"printed {score:g}, clamped to {clamped:g}" if clamped != score else ""
        return self.result(spec, clamped, details=join_details(note, _tail(rest)))
