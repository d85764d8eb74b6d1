"""The one sanitiser for agent text: terminal and log forms, and Markdown that shows it as text."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from coder_eval.common.untrusted_text import (
    clean_line,
    clean_text,
    markdown_block,
    markdown_code_span,
    markdown_inline,
    prefixed_lines,
)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b]0;title\x07hello", "hello"),  # OSC, BEL-terminated
        ("\x1b]52;c;ZXZpbA==\x1b\\hello", "hello"),  # OSC 52 clipboard, ST-terminated
        ("\x1b[2J\x1b[Hscreen", "screen"),  # CSI clear and home
        ("\x1b[38;2;0;255;0mgreen\x1b[0m", "green"),  # truecolour SGR
        ("\x9b2Jc1", "c1"),  # 8-bit CSI
        ("\x1bP1$r0m\x1b\\dcs", "dcs"),  # DCS
        ("\x1b_apc\x1b\\x", "x"),  # APC
        ("\x1b(Bcharset", "charset"),  # nF escape
        ("\x1b7saved\x1b8", "saved"),  # two-byte escapes
        ("lone\x1b", "lone"),
        ("a\rb", "a\nb"),
        ("a\r\nb", "a\nb"),
        ("a\u2028b\u2029c\x85d", "a\nb\nc\nd"),
        ("bell\x07back\x08del\x7f", "bellbackdel"),
        ("tab\tkept\nnewline kept", "tab\tkept\nnewline kept"),
        ("bidi\u202eevil", "bidi<U+202E>evil"),
        ("isolate\u2066x\u2069", "isolate<U+2066>x<U+2069>"),
        ("zero\u200bwidth\ufeff", "zero<U+200B>width<U+FEFF>"),
        ("tag\U000e0041s", "tag<U+E0041>s"),
        ("lone \ud800 surrogate", "lone \ufffd surrogate"),
        ("plain ünïcode ✓ 日本", "plain ünïcode ✓ 日本"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean
    assert clean_text(clean) == clean  # idempotent: cleaning twice changes nothing


def test_unterminated_osc_stops_at_the_line_end() -> None:
    assert clean_text("\x1b]0;no terminator\nnext line") == "\nnext line"


def test_clean_text_returns_clean_input_unchanged() -> None:
    text = "an ordinary line " * 100
    assert clean_text(text) is text


def test_clean_line_shows_breaks_and_tabs() -> None:
    assert clean_line("one\ntwo\r\x1b[32m[1/1] SUCCESS\tx") == "one␊two␊[1/1] SUCCESS→x"


def test_prefixed_lines_put_every_line_behind_the_prefix() -> None:
    lines = list(prefixed_lines("first\r[1/1] ✓ forged\nthird", "  ┆ "))
    assert lines == ["  ┆ first", "  ┆ [1/1] ✓ forged", "  ┆ third"]


def _html(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").enable("strikethrough").render(markdown)


@pytest.mark.parametrize(
    "raw",
    [
        '<img src=x onerror="alert(1)">',
        "</details></table><script>alert(1)</script>",
        "[click](javascript:alert(1))",
        "![pixel](http://evil.example/p.png)",
        "<http://evil.example/autolink>",
        "&lt;img src=x&gt; &#60;b&#62;",
        "**bold** _em_ `code` ~~gone~~",
        "# heading",
        "> quote",
        "- item",
        "1. item",
        "[ref]: http://evil.example/",
        "a | b | c",
        "x\\",
    ],
)
def test_markdown_inline_renders_as_the_same_text(raw: str) -> None:
    html = _html(f"| head |\n| --- |\n| {markdown_inline(raw)} |\n")
    assert html.count("<td>") == 1  # still one cell: no `|` broke out
    cell = re.search(r"<td>(.*)</td>", html, re.S)
    assert cell is not None
    shown = cell.group(1)
    for tag in ("<img", "<a ", "<script", "<strong>", "<em>", "<code>", "<del>", "<h1", "<blockquote", "<li"):
        assert tag not in shown, (raw, shown)
    unescaped = shown.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&")
    assert unescaped == raw  # the reader sees exactly what the agent wrote


def test_markdown_inline_at_the_start_of_a_line_opens_no_block() -> None:
    for raw in ("# heading", "> quote", "- item", "+ item", "1. item", "---", "=", "[ref]: http://x/"):
        html = _html(markdown_inline(raw) + "\n")
        assert html.startswith("<p>"), (raw, html)


def test_a_code_block_cannot_be_closed_from_inside() -> None:
    body = "before\n```\n# escaped heading\n````\n<img src=x>\nafter"
    html = _html("\n".join(markdown_block(body)) + "\n\n# real heading\n")
    assert html.count("<pre>") == 1 and "<h1>real heading</h1>" in html and "<h1>escaped" not in html
    assert "&lt;img src=x&gt;" in html


def test_a_code_span_cannot_be_closed_from_inside() -> None:
    for raw in ("a`b", "``x``", "`lead", "trail`", "pipe|inside"):
        html = _html(f"| h |\n| --- |\n| {markdown_code_span(raw)} |\n")
        assert html.count("<code>") == 1 and html.count("<td>") == 1, (raw, html)
