"""run_command: a shell command's exit code, optionally its stdout, or a score it prints."""

from __future__ import annotations

import math
import re

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
        return expected in stdout
    return re.search(expected, stdout) is not None


@register_criterion("run_command", spec=RunCommandCriterion)
class RunCommand(Criterion[RunCommandCriterion]):
    """Binary: the command exits with the expected code (and prints the expected stdout).

    With score_from_stdout the first stdout line is the score (0.0-1.0) and the rest
    becomes details; a non-zero exit or an unparseable line scores 0.
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
        if code != 0:
            return self.result(spec, 0.0, details=join_details(f"exit code {code}", _tail(stderr)))
        try:
            score = float(lines[0].strip()) if lines else math.nan
        except ValueError:
            score = math.nan
        if not math.isfinite(score) or not 0.0 <= score <= 1.0:
            first = lines[0][:100] if lines else "(no output)"
            return self.result(
                spec, 0.0, details=f"first stdout line is not a score in [0, 1]: {first!r}", error="unparseable score"
            )
        return self.result(spec, score, details=_tail(rest))
