"""JavaScript patterns of plugin eval graders read the same way by Python, or refused."""

from __future__ import annotations

import re

import pytest

from coder_eval.suite_import.js_regex import UnsupportedRegexError, to_python


@pytest.mark.parametrize(
    ("pattern", "flags", "text", "hit"),
    [
        (r"(?<y>\d{4})-\k<y>", "", "2024-2024", True),
        (r"(?<y>\d{4})-\k<y>", "", "2024-2025", False),
        ("done$", "", "done\n", False),  # JavaScript's `$` without m is the very end
        ("done$", "m", "done\nmore", True),
        (r"^\d+$", "", "١٢٣", False),  # \d is ASCII in JavaScript
        (r"[\w.]+@x", "i", "A.B@X", True),
        ("a[^]b", "", "a\nb", True),
        ("a[]b", "", "ab", False),
        (r"\u{1F600}", "u", "😀", True),
        ("hello", "gi", "HELLO", True),
        ("a.b", "s", "a\nb", True),
        (r"a\/b", "", "a/b", True),
    ],
)
def test_same_meaning(pattern: str, flags: str, text: str, hit: bool) -> None:
    translated, bits = to_python(pattern, flags)
    assert bool(re.search(translated, text, bits)) is hit


@pytest.mark.parametrize(("pattern", "flags"), [("a", "y"), ("a", "v"), ("(?<=a+)b", ""), (r"\cJ", "")])
def test_refused(pattern: str, flags: str) -> None:
    with pytest.raises(UnsupportedRegexError):
        to_python(pattern, flags)
