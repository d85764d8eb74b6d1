"""The one reference scrubber: whole files, substantial lines, short lines near the reference, byte copies."""

from __future__ import annotations

from pathlib import Path

from coder_eval.common.reference_scrub import MIN_LINE, ReferenceScrubber, marker

LONG = "def solve(board): return min(board.moves, key=score)"
SHORT = "x = 41 + 1"


def _scrubber(tmp_path: Path) -> ReferenceScrubber:
    ref = tmp_path / "ref"
    (ref / "pkg").mkdir(parents=True)
    (ref / "pkg" / "solution.py").write_text(f"{LONG}\n{SHORT}\n}}\n")
    (ref / "data.bin").write_bytes(b"\0\xff\x00binary")
    (ref / ".git").mkdir()
    (ref / ".git" / "config").write_text("[core] a line long enough to be a piece of the reference\n")
    return ReferenceScrubber(ref)


def test_whole_files_and_long_lines_are_replaced_everywhere(tmp_path: Path) -> None:
    scrub = _scrubber(tmp_path)
    whole = (tmp_path / "ref" / "pkg" / "solution.py").read_text()
    assert scrub(f"before {whole} after") == f"before {marker('pkg/solution.py')} after"
    assert scrub(f"- {LONG}") == f"- {marker('pkg/solution.py')}"
    assert scrub(f"< {SHORT}") == f"< {SHORT}"  # too short to tell from ordinary text


def test_near_the_reference_short_lines_go_too_but_not_trivial_ones(tmp_path: Path) -> None:
    scrub = _scrubber(tmp_path)
    assert scrub(f"< {SHORT}\n> y = 2", near=True) == f"< {marker('pkg/solution.py')}\n> y = 2"
    assert scrub("}", near=True) == "}"  # under MIN_LINE_NEAR: never a piece
    assert len(SHORT) < MIN_LINE


def test_copies_are_recognised_by_digest_binary_ones_too(tmp_path: Path) -> None:
    scrub = _scrubber(tmp_path)
    assert scrub.copy_of(b"\0\xff\x00binary") == "data.bin"
    assert scrub.copy_of((tmp_path / "ref" / "pkg" / "solution.py").read_bytes()) == "pkg/solution.py"
    assert scrub.copy_of(b"something else") is None
    assert scrub.holds(f"header\n   {LONG}  \nfooter") and not scrub.holds("nothing of it")


def test_version_control_directories_are_not_reference_content(tmp_path: Path) -> None:
    scrub = _scrubber(tmp_path)
    assert not scrub.holds("[core] a line long enough to be a piece of the reference")


def test_no_reference_scrubs_nothing(tmp_path: Path) -> None:
    scrub = ReferenceScrubber(None)
    assert not scrub and scrub(LONG, near=True) == LONG and scrub.copy_of(b"") is None
    assert not ReferenceScrubber(tmp_path / "missing")


def test_what_the_workspace_already_held_is_no_secret(tmp_path: Path) -> None:
    scrub = _scrubber(tmp_path)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "mine.py").write_text(f"# the agent wrote this without the reference\n{LONG}\n")
    (ws / "data.bin").write_bytes(b"\0\xff\x00binary")
    (ws / "link.py").symlink_to(tmp_path / "ref" / "pkg" / "solution.py")  # a link is not the agent's text
    scrub.forget_known(ws)
    assert scrub(f"- {LONG}") == f"- {LONG}"
    assert scrub.copy_of(b"\0\xff\x00binary") is None
    assert scrub(f"< {SHORT}", near=True) == f"< {marker('pkg/solution.py')}"  # still secret
