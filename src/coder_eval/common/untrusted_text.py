"""Text the agent controls, made safe for where the harness shows it: a terminal, a log, Markdown.

An agent's words, tool arguments, command output and file contents reach the operator's terminal
(`--stream`, progress lines, `report`), `task.log` and the Markdown a CI job summary shows. Raw,
they could retitle the window (OSC), clear the screen (CSI), reorder what is shown (bidi
overrides), hide text (zero-width characters) or print a line that passes for the harness's own
(a carriage return and ANSI colours forging a green `SUCCESS`). Every such string goes through one
of the functions here before it is shown:

- `clean_text`: several lines. Every escape sequence (CSI, OSC, DCS, SOS, PM, APC, the two-byte
  ones, their 8-bit C1 forms) and every other control character goes; newline and tab stay; a
  carriage return, NEL and the Unicode line and paragraph separators become newlines (so nothing
  overwrites a line already shown); invisible and direction-changing characters are shown as
  `<U+202E>`; lone surrogates become U+FFFD.
- `clean_line`: one line. As `clean_text`, then newlines and tabs are shown as `␊` and `→`.
- `prefixed_lines`: the lines of `clean_text`, each behind a prefix the harness chose, so no line
  the agent writes can start where a harness line starts.
- `markdown_inline`, `markdown_code_span`, `markdown_block`: the same text for Markdown that a
  renderer (GitHub's job summary included) shows as text: HTML escaped, Markdown syntax
  neutralised, a code fence the content cannot close.

Harness text needs none of this; applying it to text that is already clean changes nothing, so
callers may apply it to any string they did not write themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_ESCAPE_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"  # CSI: parameters, intermediates, final byte
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"  # OSC/DCS/SOS/PM/APC strings
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"  # the rest: nF sequences, two-byte escapes, a lone ESC
)
_LINE_BREAK = re.compile("\r\n|[\r\x85\u2028\u2029]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufeff"
    "\uffa0\ufff9-\ufffb\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""Characters that show nothing or change the direction of what follows (bidi overrides, zero widths, tags)."""
_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
"""Any character one of the passes below would change: text without one is returned as it is."""

NEWLINE_MARK = "␊"
TAB_MARK = "→"


def _visible(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group(0)):04X}>"


def clean_text(text: str) -> str:
    """`text` with escape sequences and control characters removed; newlines and tabs kept."""
    if not _UNSAFE.search(text):  # the common case: one scan, no copy
        return text
    text = _ESCAPE_SEQUENCE.sub("", text)
    text = _LINE_BREAK.sub("\n", text)
    text = _CONTROL.sub("", text)
    text = _INVISIBLE.sub(_visible, text)
    return _SURROGATE.sub("\ufffd", text)


def clean_line(text: str) -> str:
    """`text` as one line: cleaned, with every line break shown as `␊` and every tab as `→`."""
    text = clean_text(text)
    if "\n" in text or "\t" in text:
        text = text.replace("\n", NEWLINE_MARK).replace("\t", TAB_MARK)
    return text


def prefixed_lines(text: str, first: str, rest: str | None = None) -> Iterator[str]:
    """The lines of the cleaned `text`, the first behind `first`, the others behind `rest` (default: `first`)."""
    follow = first if rest is None else rest
    for i, line in enumerate(clean_text(text).split("\n")):
        yield (first if i == 0 else follow) + line


# --- Markdown ---------------------------------------------------------------------------------

_MARKDOWN_PUNCTUATION = re.compile(
    r"[\\`*|~]"  # escapes, code, emphasis, table cells, strikethrough
    r"|\](?=[(\[])"  # the middle of a link or image, `[text](url)` or `[text][ref]`
    r"|<(?=[A-Za-z/!?])"  # the start of an HTML tag, comment or declaration (`a < b` is left alone)
    r"|&(?=[#A-Za-z])"  # the start of an entity
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # emphasis (a `_` inside a word is not)
)
_LINE_START = re.compile(r"^(?:[>\[]|(?:#{1,6}|[+=-]+|\d{1,9}(?=[.)]))(?=[.)]?(?:\s|$)))")
"""What would open a block at the start of a line: a quote, a link definition, a heading, a list item,
a rule or a setext underline (`+0.5` or `1.5` opens nothing and is left alone)."""
_BACKTICKS = re.compile(r"`+")


def _guard_line_start(match: re.Match[str]) -> str:
    """A leading `#`, `>`, `+`, `=`, `-` or `[` (a link definition) is escaped, `1.` becomes `1\\.`."""
    lead = match.group(0)
    return lead + "\\" if lead[0].isdigit() else "\\" + lead


def markdown_inline(text: str) -> str:
    """One line of Markdown that shows `text` literally: no HTML, link, image, emphasis, code or
    table cell boundary can come from it, and it cannot start a heading, quote or list."""
    flat = " ".join(clean_text(text).split())
    # A backslash before any ASCII punctuation shows it literally (CommonMark): `\\<img>` is text,
    # not a tag, `\\&lt;` is not an entity, `[x\\](y)` is not a link.
    escaped = _MARKDOWN_PUNCTUATION.sub(lambda m: "\\" + m.group(0), flat)
    return _LINE_START.sub(_guard_line_start, escaped, count=1)


def markdown_code_span(text: str) -> str:
    """`text` as inline code: delimited by more backticks than any run inside, one line, with `|`
    escaped so that a table cell holding it does not split (GitHub reads `\\|` there as `|`)."""
    flat = " ".join(clean_text(text).split())
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat else ""
    return f"{fence}{pad}{flat.replace('|', chr(92) + '|')}{pad}{fence}"


def markdown_block(text: str, *, info: str = "text") -> list[str]:
    """A fenced code block holding the cleaned `text`: its fence is longer than any backtick run
    inside, so nothing in it can close the block (a block shows HTML and Markdown as text)."""
    body = clean_text(text)
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, body, fence]
