"""harbor_verifier: a Harbor task's tests run in the sandbox, scored by the reward they write.

As Harbor does after the agent: the verifier's directory is copied to `tests_path` (`/tests`;
emptied first only when it was empty or filled by this criterion, never someone else's), the
reward files left in `logs_path` (`/logs/verifier`) are removed, `test.sh` runs from the workspace
with the criterion's `env` (and HARBOR_VERIFIER_LOGS naming the logs directory, which verifiers
written by `coder-eval export` read), its output going to `test-stdout.txt` there, and the reward is read
with Harbor's rules (`harbor_rewards`). One shell command does it all and prints, after marker
lines carrying a token drawn for this check, the exit code, the reward files and the end of the
log; the log comes last, so nothing the tested code printed can pass for a reward file.

The log's end, and the names of the other files the verifier left there, are kept in the result's
details (the record), whatever the verdict. No reward file,
or one that cannot be read, is no verdict: the criterion is not evaluated and the task ends ERROR
with the reason and the log.
"""

from __future__ import annotations

import re
import secrets
import shlex

from coder_eval.criteria.base import CheckContext, Criterion, join_details
from coder_eval.criteria.harbor_rewards import Reward, RewardError, read_reward
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CheckerMisuseError
from coder_eval.models.criteria_commands import HarborVerifierCriterion
from coder_eval.models.results import CriterionResult

LOG_SHOWN = 4000
"""Characters of the end of test-stdout.txt kept in the details."""
FILE_CAP = 65536
"""Bytes of each reward file read back."""
OWNED = ".coder-eval-verifier"
"""Marks a tests directory this criterion filled, so only such a directory is ever emptied."""


def verifier_script(spec: HarborVerifierCriterion, token: str) -> str:
    """The shell command that runs the verifier and reports what it left, after `@@<token>` lines."""
    exports = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in spec.env.items())
    tests = shlex.quote(spec.tests_dir.rstrip("/"))
    return f"""M='@@{token}'
T={shlex.quote(spec.tests_path)}; L={shlex.quote(spec.logs_path)}; S="${{TASK_DIR:?}}/"{tests}
if [ ! -f "$S/test.sh" ]; then echo "$M setup no test.sh in the task's {spec.tests_dir}/"; exit 0; fi
if ! mkdir -p "$T" "$L" 2>/dev/null || [ ! -w "$T" ] || [ ! -w "$L" ]; then
  echo "$M setup $T and $L must exist and be writable by the unit's user (uid $(id -u))"; exit 0
fi
if [ -n "$(ls -A "$T")" ] && [ ! -e "$T/{OWNED}" ]; then
  echo "$M setup $T already holds files this verifier did not put there; it is not overwritten"; exit 0
fi
rm -rf "$T"/* "$T"/.[!.]* 2>/dev/null; : > "$T/{OWNED}"
cp -R "$S/." "$T/" || {{ echo "$M setup cannot copy the tests to $T"; exit 0; }}
rm -f "$L/reward.txt" "$L/reward.json"
export HARBOR_VERIFIER_LOGS="$L" CODER_EVAL_WORKDIR="${{CODER_EVAL_WORKDIR:-$PWD}}"
{exports}bash "$T/test.sh" > "$L/test-stdout.txt" 2>&1 < /dev/null
echo "$M exit $?"
for f in reward.json reward.txt; do
  if [ -f "$L/$f" ]; then echo "$M file $f"; head -c {FILE_CAP} "$L/$f"; echo; fi
done
echo "$M files"; ls -A "$L" 2>/dev/null | grep -vxE 'reward[.](txt|json)|test-stdout[.]txt' | head -n 20
echo "$M log"; tail -c {LOG_SHOWN} "$L/test-stdout.txt" 2>/dev/null
"""


class Report:
    """What the verifier command printed, split at its marker lines."""

    def __init__(self, stdout: str, token: str) -> None:
        self.setup: str | None = None
        self.exit_code: str | None = None
        self.files: dict[str, str] = {}
        self.others: list[str] = []
        """Other files the verifier left in its logs directory (their names)."""
        self.log = ""
        marker = re.compile(rf"^@@{re.escape(token)} (setup|exit|file|files|log)(?: (.*))?$")
        current: str | None = None
        buffer: list[str] = []
        lines = stdout.split("\n")
        for i, line in enumerate(lines):
            match = marker.match(line)
            if match is None:
                buffer.append(line)
                continue
            self._close(current, buffer)
            kind, arg = match.group(1), match.group(2) or ""
            buffer, current = [], None
            if kind == "log":
                self.log = "\n".join(lines[i + 1 :])
                return
            if kind == "setup":
                self.setup = arg
            elif kind == "exit":
                self.exit_code = arg
            elif kind == "files":
                current = kind
            elif arg in ("reward.json", "reward.txt") and arg not in self.files:
                current = arg
        self._close(current, buffer)

    def _close(self, current: str | None, buffer: list[str]) -> None:
        if current == "files":
            self.others = [line for line in buffer if line.strip()]
        elif current is not None:
            self.files[current] = "\n".join(buffer).removesuffix("\n")


def _log_tail(log: str) -> str:
    log = log.strip()
    if not log:
        return "test-stdout.txt is empty"
    cut = log if len(log) <= LOG_SHOWN else "..." + log[-LOG_SHOWN:]
    return f"test-stdout.txt (end):\n{cut}"


@register_criterion("harbor_verifier", spec=HarborVerifierCriterion)
class HarborVerifier(Criterion[HarborVerifierCriterion]):
    """The reward the verifier wrote, clamped to [0, 1]; no readable reward is no verdict."""

    def evaluate(self, spec: HarborVerifierCriterion, ctx: CheckContext) -> CriterionResult:
        if "TASK_DIR" not in ctx.command_env():
            raise CheckerMisuseError("harbor_verifier needs the task's directory (TASK_DIR) to copy its tests from")
        token = secrets.token_hex(12)
        out = ctx.run(verifier_script(spec, token), spec.timeout)
        if out.timed_out:
            return self.result(spec, 0.0, details=f"the verifier timed out after {spec.timeout:g}s", error="timeout")
        report = Report(out.stdout, token)
        if report.setup is not None:
            raise CheckerMisuseError(f"the verifier could not start: {report.setup}")
        if report.exit_code is None:
            why = join_details(f"exit code {out.exit_code}", out.stderr.strip()[-500:])
            return self._no_verdict(spec, f"the verifier command ended early ({why})", report.log)
        try:
            reward = read_reward(report.files.get("reward.json"), report.files.get("reward.txt"))
        except RewardError as exc:
            return self._no_verdict(spec, f"{exc} (test.sh exit code {report.exit_code})", report.log)
        return self.result(spec, reward.score, details=self._details(reward, report))

    def _details(self, reward: Reward, report: Report) -> str:
        clamped = min(1.0, max(0.0, reward.score))
        head = f"reward {reward.score:g} from {reward.source}"
        if clamped != reward.score:
            head += f", clamped to {clamped:g}"
        metrics = {k: v for k, v in reward.metrics.items() if k != "reward"}
        extra = ", ".join(f"{k}={v:g}" for k, v in sorted(metrics.items()))
        ignored = f"ignored non-numeric: {', '.join(reward.ignored)}" if reward.ignored else ""
        others = f"also in the logs directory: {', '.join(report.others)}" if report.others else ""
        parts = [head, f"metrics {extra}" if extra else "", ignored, f"test.sh exit code {report.exit_code}", others]
        return join_details(*parts) + "\n" + _log_tail(report.log)

    def _no_verdict(self, spec: HarborVerifierCriterion, why: str, log: str) -> CriterionResult:
        result = self.result(spec, 0.0, details=f"{why}\n{_log_tail(log)}", error=why)
        result.evaluation_status = "not_evaluated"
        return result
