"""Keep a task's reference solution out of everything Coder Eval persists.

One scrubber per unit, built from the staged reference: every reference file's whole text and each
of its substantial lines become pieces that are replaced by a marker naming the file wherever they
appear (criterion details and errors, judge findings and transcripts, command output), and every
reference file's digest recognises a byte-for-byte copy (a binary file too). Text that came from a
criterion that was shown the reference is scrubbed "near": shorter lines count as well, since such
output (a failing `diff`) is made of reference lines.

Reference content the workspace already held when grading began (`forget_known`: the agent wrote it
without ever seeing the reference, or a template put it there) is not treated as secret.

What a scrubber cannot see: reference content transformed before it was written (compressed,
encoded, reformatted), lines shorter than the thresholds, and text past `MAX_TEXT` of reference.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

MIN_LINE = 24
"""Reference lines shorter than this are too generic to scrub everywhere (`return x`, blank lines)."""
MIN_LINE_NEAR = 8
"""In the output of a criterion shown the reference, lines from this length on are scrubbed too."""
MAX_TEXT = 32 * 1024 * 1024
"""Reference text kept as pieces; beyond it files are still recognised by digest (see `complete`)."""
_SKIP_DIRS = frozenset({".git", "__pycache__", ".hg", ".svn"})
_HEAVY_DIRS = frozenset({".venv", "node_modules"})
KNOWN_FILE = 1024 * 1024
KNOWN_TOTAL = 64 * 1024 * 1024
"""What `forget_known` reads of a workspace, per file and in all."""


def marker(rel: str) -> str:
    return f"[reference content from {rel} removed]"


def _known_files(root: Path) -> Iterator[bytes]:
    """The bytes of the regular files under `root` (links not followed), within KNOWN_FILE and KNOWN_TOTAL."""
    total = 0
    for current, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS and d not in _HEAVY_DIRS]
        for name in names:
            path = os.path.join(current, name)
            try:
                info = os.lstat(path)
                if not stat.S_ISREG(info.st_mode) or info.st_size > KNOWN_FILE or total + info.st_size > KNOWN_TOTAL:
                    continue
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
                with os.fdopen(fd, "rb") as handle:
                    data = handle.read(KNOWN_FILE)
            except OSError:
                continue
            total += len(data)
            yield data


def _files(reference_dir: Path) -> list[tuple[str, Path]]:
    found: list[tuple[str, Path]] = []
    for current, dirs, names in os.walk(reference_dir):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in sorted(names):
            path = Path(current, name)
            if not path.is_symlink() and path.is_file():
                found.append((path.relative_to(reference_dir).as_posix(), path))
    return found


class ReferenceScrubber:
    """Replace reference content in text; recognise copies of reference files."""

    def __init__(self, reference_dir: Path | None) -> None:
        self.digests: dict[str, str] = {}
        """sha256 of each reference file -> its path in the reference."""
        self.complete = True
        self._lines: dict[str, str] = {}
        self._near: dict[str, str] = {}
        self._wholes: dict[str, str] = {}
        wholes = self._wholes
        kept = 0
        for rel, path in _files(reference_dir) if reference_dir is not None and reference_dir.is_dir() else []:
            data = path.read_bytes()
            self.digests.setdefault(hashlib.sha256(data).hexdigest(), rel)
            if b"\0" in data or not data.strip():
                continue
            if kept + len(data) > MAX_TEXT:
                self.complete = False
                continue
            kept += len(data)
            text = data.decode("utf-8", "replace")
            wholes.setdefault(text, rel)
            for line in text.splitlines():
                piece = line.strip()
                if len(piece) >= MIN_LINE:
                    self._lines.setdefault(piece, rel)
                elif len(piece) >= MIN_LINE_NEAR:
                    self._near.setdefault(piece, rel)
        self._sort()

    def _sort(self) -> None:
        # longest first, so a whole file goes before its own lines
        self._pieces = sorted({**self._lines, **self._wholes}.items(), key=lambda p: -len(p[0]))
        self._near_pieces = sorted({**self._near, **self._lines, **self._wholes}.items(), key=lambda p: -len(p[0]))

    def forget_known(self, root: Path) -> None:
        """Drop what `root` (the workspace as the agent left it) already holds: reference content there
        before the reference was shown anywhere (the agent's own lines, the task's templates) is no
        secret, and scrubbing it would only mangle the agent's work. Reading is bounded; what is left
        unread stays secret, which errs on the side of scrubbing."""
        if not self:
            return
        for data in _known_files(root):
            self.digests.pop(hashlib.sha256(data).hexdigest(), None)
            if b"\0" in data:
                continue
            text = data.decode("utf-8", "replace")
            self._wholes.pop(text, None)
            for line in text.splitlines():
                piece = line.strip()
                self._lines.pop(piece, None)
                self._near.pop(piece, None)
        self._sort()

    def __bool__(self) -> bool:
        return bool(self.digests)

    def __call__(self, text: str, *, near: bool = False) -> str:
        """`text` with every reference piece replaced by a marker (`near`: short lines as well)."""
        if not text:
            return text
        for piece, rel in self._near_pieces if near else self._pieces:
            if piece in text:
                text = text.replace(piece, marker(rel))
        return text

    def copy_of(self, data: bytes) -> str | None:
        """The reference file `data` is a byte-for-byte copy of, if any."""
        return self.digests.get(hashlib.sha256(data).hexdigest()) if self.digests else None

    def holds(self, text: str) -> bool:
        """Whether `text` contains any reference piece (a whole file, or one of its substantial lines)."""
        if any(line.strip() in self._lines for line in text.splitlines()):
            return True
        return any(piece in text for piece, _ in self._pieces)
