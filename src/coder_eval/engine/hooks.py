"""pre_run and post_run: shell commands in the sandbox before the agent and after grading."""

from __future__ import annotations

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.engine.task_log import TaskLog
from coder_eval.models.results import CommandResult
from coder_eval.models.task_parts import PostRunCommand, PreRunCommand
from coder_eval.sandbox.sandbox import Sandbox


def run_one(
    sandbox: Sandbox, command: str, timeout: int, log: TaskLog, phase: str, env: dict[str, str]
) -> CommandResult:
    log.add(f"{phase}: {command}")
    try:
        out = sandbox.run(command, timeout=timeout, kill_leftovers=False, extra_env=env)
    except OSError as exc:
        log.add(f"{phase}: could not start: {exc}")
        return CommandResult(command=command, error=f"could not start: {exc}")
    error = f"timed out after {timeout}s" if out.timed_out else None
    if error is None and out.exit_code != 0:
        error = f"exit code {out.exit_code}"
    log.add(f"{phase}: {'ok' if error is None else error} in {out.duration_seconds:.2f}s")
    return CommandResult(
        command=command,
        exit_code=out.exit_code,
        stdout=out.stdout,
        stderr=out.stderr,
        duration_seconds=out.duration_seconds,
        error=error,
    )


def run_pre(
    sandbox: Sandbox, commands: list[PreRunCommand], log: TaskLog, env: dict[str, str]
) -> tuple[list[CommandResult], str | None]:
    """Run in order; a failing fail_on_error command stops the rest and returns why."""
    results = []
    for cmd in commands:
        result = run_one(sandbox, cmd.command, cmd.timeout, log, "pre_run", env)
        results.append(result)
        if result.error is not None and cmd.fail_on_error:
            return results, f"pre_run command failed ({result.error}): {cmd.command}"
    return results, None


def run_post(
    sandbox: Sandbox, commands: list[PostRunCommand], log: TaskLog, env: dict[str, str]
) -> list[CommandResult]:
    """Informational only: every command runs whatever the others did."""
    if commands:
        sandbox.network_phase("post_run")
    return [run_one(sandbox, cmd.command, cmd.timeout, log, "post_run", env) for cmd in commands]


def scrub_command(result: CommandResult, scrub: ReferenceScrubber) -> CommandResult:
    """A command's result with reference content removed from its output (post_run never sees the
    reference, but what a criterion's code copied somewhere may still reach its output)."""
    if not scrub:
        return result
    update = {"stdout": scrub(result.stdout), "stderr": scrub(result.stderr)}
    if result.error:
        update["error"] = scrub(result.error)
    return result.model_copy(update=update)
