"""Keep the reference solution out of persisted judge output.

A judge sees the reference; what it writes back (rationale, findings, transcripts) may echo it.
Before anything is persisted, every reference file's whole text and each of its substantial
lines are replaced by a marker naming the file.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.judges.prompt import reference_texts

MIN_LINE = 24
"""Reference lines shorter than this are too generic to scrub (`return x`, blank lines)."""


class ReferenceScrubber:
    def __init__(self, reference_dir: Path | None) -> None:
        pieces: list[tuple[str, str]] = []
        for rel, text in reference_texts(reference_dir, per_file=10_000_000):
            if text.strip():
                pieces.append((text, rel))
            for line in text.splitlines():
                if len(line.strip()) >= MIN_LINE:
                    pieces.append((line.strip(), rel))
        # Longest first, so a whole file goes before its own lines.
        self.pieces = sorted(set(pieces), key=lambda p: -len(p[0]))

    def __call__(self, text: str) -> str:
        for piece, rel in self.pieces:
            if piece in text:
                text = text.replace(piece, f"[reference content from {rel} removed]")
        return text
