"""Grading a workspace that already exists (re-grading a run, `evaluate TASK WORKDIR`) inside a sandbox.

Criteria run the agent's code (its tests, its scripts), so grading an existing workspace is no
safer than grading a live unit: the workspace is adopted by a fresh environment of the task's own
driver (namespaces or a container over it, created for grading alone), `TASK_DIR` is the task's
read-only view and `REFERENCE_DIR` the staged reference, both shown through the environment as a
live unit sees them, and every process it started ends with it. Under tempdir, as for a live
unit, the commands run on the host.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from coder_eval.engine.reference import reference_source, staged_reference, verify_unchanged
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
    """TASK_DIR and REFERENCE_DIR as commands inside see them."""

    def check_reference(self) -> None:
        """Raise ReferenceTamperedError if grading changed the staged reference."""
        verify_unchanged(self.reference, self.digest)


@contextmanager
def grading_sandbox(task: LoadedTask, workspace: Path, scratch: Path, run_dir: Path) -> Iterator[GradingSandbox]:
    """The task's driver over `workspace`; `scratch` holds the environment's private directories, and
    `run_dir` (left out of the task view when it lies in the task's directory) is where records go."""
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
            if reference is not None:
                dirs["REFERENCE_DIR"] = str(sandbox.live.share(reference, "reference"))
            try:
                yield GradingSandbox(sandbox, reference, digest, dirs)
            finally:
                sandbox.live.unshare("reference")
                sandbox.live.unshare("task")
    finally:
        sandbox.finish()
