"""The engine's hands around each criterion of a unit's grading (the criteria's `GradingControl`).

Before grading the unit's processes are all ended (the orchestrator does that), unless the task
keeps its services (`sandbox.keep_services`, isolating drivers only): then they are ended before
the first criterion that sees the reference, or after the first that runs commands. Per criterion:

- a criterion that sees the reference (`sees_reference`) gets it shared into the sandbox for its
  own run and `REFERENCE_DIR` set for its commands; no other criterion, and never post_run, does;
- after a criterion that ran commands, every process of the unit is ended again, so nothing it
  started (a daemon of the agent's code) lives on into the next criterion or post_run;
- after a criterion that saw the reference, the reference is withdrawn and reference content
  written meanwhile into the workspace or the unit's HOME is neutralised (`reference_copies`),
  noted in the criterion's details, in task.log and in the record's `reference_copies`; under
  bubblewrap and docker, whose `/tmp` is the unit's own, what changed in the unit's temp
  directories meanwhile is deleted (the harness cannot read them from outside).
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

from coder_eval.common.reference_scrub import ReferenceScrubber
from coder_eval.engine.reference_copies import CTIME_SLACK, neutralise_copies
from coder_eval.engine.task_log import TaskLog
from coder_eval.models.criteria_base import BaseCriterion
from coder_eval.sandbox.environment import Command
from coder_eval.sandbox.sandbox import Sandbox

SHARE_NAME = "reference"
PRIVATE_TMP_DRIVERS = frozenset({"bubblewrap", "docker"})
"""Drivers whose /tmp, /var/tmp and /dev/shm belong to the unit alone (under tempdir they are the host's)."""
TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm")
_CLEAR_TEMP = (
    'for d in {dirs}; do [ -d "$d" ] || continue; '
    'find "$d" -xdev -type f {kept} -newerct "@{since:.3f}" -print -delete 2>/dev/null || echo "? $d"; done'
)
"""Regular files only, on the temp directory's own file system (`-xdev`): never a directory, never
what is mounted below it (a workspace or HOME that lives under the host's /tmp), which is also
left out by name."""


class GradingGuard:
    def __init__(
        self,
        sandbox: Sandbox,
        reference: Path | None,
        scrubber: ReferenceScrubber,
        log: TaskLog,
        *,
        services_alive: bool = False,
    ) -> None:
        self.sandbox = sandbox
        self.reference = reference
        self.scrubber = scrubber
        self.log = log
        self.copies: list[str] = []
        """Every file whose reference content was neutralised, for the unit's record."""
        self._shown_at: float | None = None
        self._dirty = services_alive
        """Whether a process of the unit may be running (the agent's services, a criterion's leftovers)."""

    def before(self, spec: BaseCriterion) -> dict[str, str]:
        if self.reference is None or not spec.sees_reference:
            return {}
        self.settle()  # the agent's services, when kept for grading, never see the reference
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
        notes += self._clear_temp(since)
        for note in notes:
            self.log.add(f"grading: {spec.type} ({spec.description}): {note}")
        return notes

    def _clear_temp(self, since: float) -> list[str]:
        """Delete what changed in the unit's own temp directories while the reference was shown."""
        if self.sandbox.driver.name not in PRIVATE_TMP_DRIVERS:
            return []
        live = self.sandbox.live
        kept = " ".join(f"! -path {shlex.quote(str(p) + '/*')}" for p in (live.inner_workspace, live.home_dir))
        script = _CLEAR_TEMP.format(dirs=" ".join(TEMP_DIRS), kept=kept, since=since - CTIME_SLACK)
        out = self.sandbox.live.exec(Command.sh(script), timeout=60)
        lines = [line for line in out.stdout.splitlines() if line]
        failed = [line[2:] for line in lines if line.startswith("? ")] + ([] if out.exit_code == 0 else ["(timed out)"])
        deleted = [line for line in lines if not line.startswith("? ")]
        notes = [f"deleted from the unit's temp directories: {', '.join(deleted[:10])}"] if deleted else []
        if len(deleted) > 10:
            notes[0] += f" (+{len(deleted) - 10} more)"
        if failed:
            notes.append(f"could not clear the unit's temp directories {', '.join(failed)}")
        return notes
