"""The engine's hands around each criterion of a unit's grading (the criteria's `GradingControl`).

Before grading the unit's processes are all ended (the orchestrator does that). Then, per criterion:

- a criterion that sees the reference (`sees_reference`) gets it shared into the sandbox for its
  own run and `REFERENCE_DIR` set for its commands; no other criterion, and never post_run, does;
- after a criterion that ran commands, every process of the unit is ended again, so nothing it
  started (a daemon of the agent's code) lives on into the next criterion or post_run;
- after a criterion that saw the reference, the reference is withdrawn and reference content
  written meanwhile into the workspace or the unit's HOME is neutralised (`reference_copies`),
  noted in the criterion's details, in task.log and in the record's `reference_copies`.
"""

from __future__ import annotations

import time
from pathlib import Path

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.engine.reference_copies import neutralise_copies
from coder_eval.engine.task_log import TaskLog
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.sandbox.sandbox import Sandbox

SHARE_NAME = "reference"


class GradingGuard:
    def __init__(self, sandbox: Sandbox, reference: Path | None, scrubber: ReferenceScrubber, log: TaskLog) -> None:
        self.sandbox = sandbox
        self.reference = reference
        self.scrubber = scrubber
        self.log = log
        self.copies: list[str] = []
        """Every file whose reference content was neutralised, for the unit's record."""
        self._shown_at: float | None = None
        self._dirty = False

    def before(self, spec: BaseCriterion) -> dict[str, str]:
        if self.reference is None or not spec.sees_reference:
            return {}
        self._shown_at = time.time()
        inner = self.sandbox.live.share(self.reference, SHARE_NAME)
        return {"REFERENCE_DIR": str(inner)}

    def after(self, spec: BaseCriterion, ran_commands: bool) -> list[str]:
        self._dirty = self._dirty or ran_commands
        shown, self._shown_at = self._shown_at, None
        if shown is None:
            if ran_commands:
                self.settle()
            return []
        self.settle()  # nothing that saw the reference outlives it
        self.sandbox.live.unshare(SHARE_NAME)
        return self._neutralise(spec, shown)

    def settle(self) -> None:
        """End every process of the unit if anything may have started one since the last time."""
        if self._dirty:
            self.sandbox.kill_processes()
            self._dirty = False

    def _neutralise(self, spec: BaseCriterion, since: float) -> list[str]:
        notes: list[str] = []
        live = self.sandbox.live
        for label, root in (("workspace", live.workspace), ("HOME", live.home_dir)):
            scan = neutralise_copies(root, self.scrubber, since)
            for item in scan.neutralised:
                entry = f"{label} {item}"
                self.copies.append(f"{entry}, written while {spec.type} ({spec.description}) saw the reference")
                notes.append(f"reference content removed afterwards from {entry}")
            notes += [f"not checked for reference copies: {label} {item}" for item in scan.unchecked]
        for note in notes:
            self.log.add(f"grading: {spec.type} ({spec.description}): {note}")
        return notes
