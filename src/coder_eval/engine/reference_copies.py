"""Find and neutralise reference content written into a workspace while a criterion could see the reference.

A criterion shown the reference may run the agent's code (a test suite importing the agent's module),
and that code may copy reference files into the workspace (preserved as artifacts, read by later
criteria and post_run) or stash them in the unit's HOME (where TMPDIR is too). Right after such a
criterion (its processes ended, the reference withdrawn), every regular file of those trees whose
change time is not older than the moment the reference appeared is checked: a byte-for-byte copy
of a reference file, or text holding reference content. A copy is replaced by a marker line,
reference content in other text by markers (`ReferenceScrubber`), and each neutralised file is
named in the unit's records. The change time (ctime) cannot be set back by a process without the
system clock, unlike the modification time.

Bounds: files over `MAX_SCANNED` bytes are checked on their first `MAX_SCANNED` bytes and named as
such; a workspace of more than `MAX_FILES` recently changed files is checked up to that many and the
rest is reported, never silently passed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from coder_eval.common.reference_scrub import ReferenceScrubber, marker
from coder_eval.common.safe_open import open_inside, write_inside

MAX_SCANNED = 16 * 1024 * 1024
MAX_FILES = 5_000
CTIME_SLACK = 1.0
"""Seconds before the reference appeared that still count: file times come from a coarse clock."""


@dataclass
class CopyScan:
    """What one scan found and did."""

    neutralised: list[str] = field(default_factory=list)
    """'path (what it held)' per file rewritten."""
    unchecked: list[str] = field(default_factory=list)
    """Why some files could not be (fully) checked."""


def _recent_files(root: Path, since: float) -> list[tuple[str, int]]:
    """(relative path, size) of regular files under `root` changed at `since` or later; links not followed."""
    found: list[tuple[str, int]] = []
    for here, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(here, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_ctime >= since - CTIME_SLACK:
                found.append((os.path.relpath(path, root), info.st_size))
    return found


def _neutralised(data: bytes, scrubber: ReferenceScrubber) -> tuple[bytes | None, str]:
    """The replacement bytes for a file holding reference content (None: nothing to do) and what it held."""
    copied = scrubber.copy_of(data)
    if copied is not None:
        return (marker(copied) + "\n").encode(), f"a copy of reference {copied}"
    if b"\0" in data:
        return None, ""
    text = data.decode("utf-8", "surrogateescape")
    if not scrubber.holds(text):
        return None, ""
    return scrubber(text, near=True).encode("utf-8", "surrogateescape"), "reference content"


def neutralise_copies(root: Path, scrubber: ReferenceScrubber, since: float) -> CopyScan:
    """Rewrite every recently changed workspace file that holds reference content (see the module doc)."""
    scan = CopyScan()
    if not scrubber:
        return scan
    recent = _recent_files(root, since)
    if len(recent) > MAX_FILES:
        scan.unchecked.append(f"{len(recent) - MAX_FILES} of {len(recent)} changed files were not checked")
        recent = recent[:MAX_FILES]
    for rel, size in recent:
        try:
            with open_inside(root, Path(rel)) as handle:
                data = handle.read(MAX_SCANNED)
        except Exception:  # gone, or replaced by a link since the walk: nothing of ours to rewrite
            continue
        if size > MAX_SCANNED:
            scan.unchecked.append(f"{rel}: only its first {MAX_SCANNED} bytes were checked")
        replacement, what = _neutralised(data, scrubber)
        if replacement is None:
            continue
        if size > len(data):  # only its head was read: the whole file goes
            replacement = f"[a file holding reference content removed by Coder Eval ({size} bytes)]\n".encode()
        try:
            write_inside(root, rel, replacement)
        except OSError as exc:
            scan.unchecked.append(f"{rel} holds {what} and could not be rewritten ({exc.strerror or exc})")
            continue
        scan.neutralised.append(f"{rel} ({what})")
    return scan
