"""Grading a workspace that already exists (re-grading a run, `evaluate TASK WORKDIR`) inside a sandbox.

Criteria run the agent's code (its tests, its scripts), so grading an existing workspace is no
safer than grading a live unit: the workspace is adopted by a fresh environment of the task's own
driver (namespaces or a container over it, created for grading alone), `TASK_DIR` is the task's
read-only view, and the staged reference is shown per criterion by a `GradingGuard`, as to a live
unit (only to the criteria that see it, processes ended after each that ran commands, copies
neutralised, every result scrubbed); every process it started ends with it. Under tempdir, as for
a live unit, the commands run on the host.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.engine.grading_guard import SHARE_NAME as REFERENCE_SHARE
from coder_eval.engine.grading_guard import GradingGuard
from coder_eval.engine.reference import reference_source, staged_reference, verify_unchanged
from coder_eval.engine.task_log import TaskLog
from coder_eval.engine.task_view import task_view
from coder_eval.loading.loader import LoadedTask
from coder_eval.sandbox.sandbox import Sandbox


@dataclass
class GradingSandbox:
    """What a grade of an existing workspace works with."""

    sandbox: Sandbox
    reference: Path | None
    digest: str | None
    command_dirs: dict[str, str]
    """TASK_DIR as commands inside see it (REFERENCE_DIR comes from the guard, per criterion)."""
    guard: GradingGuard

    def check_reference(self) -> None:
        """Raise ReferenceTamperedError if grading changed the staged reference."""
        verify_unchanged(self.reference, self.digest)


@contextmanager
def grading_sandbox(
    task: LoadedTask, workspace: Path, scratch: Path, run_dir: Path, log: TaskLog
) -> Iterator[GradingSandbox]:
    """The task's driver over `workspace`; `scratch` holds the environment's private directories, and
    `run_dir` (left out of the task view when it lies in the task's directory) is where records go;
    the guard notes what it neutralised in `log`."""
    sandbox = Sandbox(
        task.definition.sandbox,
        task_dir=task.task_dir,
        task_file=task.source_file,
        artifacts_dir=workspace,
        scratch=scratch,
    )
    try:
        sandbox.adopt(workspace)
        with staged_reference(reference_source(task), task_file=task.source_file) as (reference, digest):
            view = task_view(task.task_dir, reference_source(task), run_dir)
            dirs = {"TASK_DIR": str(sandbox.live.share(view, "task"))}
            seen = any(c.sees_reference for c in task.definition.success_criteria)
            scrubber = ReferenceScrubber(reference if seen else None)
            scrubber.forget_known(workspace)
            guard = GradingGuard(sandbox, reference, scrubber, log)
            try:
                yield GradingSandbox(sandbox, reference, digest, dirs, guard)
            finally:
                sandbox.live.unshare(REFERENCE_SHARE)
                sandbox.live.unshare("task")
    finally:
        sandbox.finish()
