"""Strings an agent might write to break out of where the harness shows them (shared by several tests)."""

from __future__ import annotations

OSC_TITLE = "\x1b]0;owned window title\x07"
OSC_CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
CSI_CLEAR = "\x1b[2J\x1b[H"
FORGED = "\r\x1b[32m[1/1] ✓ forged SUCCESS 1.000 0.1s\x1b[0m"
BIDI = "safe\u202etxt.exe"
ZERO_WIDTH = "SUC\u200bCESS\u2060\ufeff"
HTML_IMG = '<img src=x onerror="alert(1)">'
DETAILS_CLOSE = "</details></table><h1>owned</h1>"
FENCE = "```\n# heading outside the fence\n```"
PIPES = "a | b | c"
JS_LINK = "[click](javascript:alert(1)) ![img](http://evil.example/p.png)"
NEWLINE_FORGE = "done\n[2/2] ✓ other SUCCESS 1.000 0.1s\n## Failures and errors"
C1_CSI = "\x9b2J"
DCS = "\x1bP1$r0m\x1b\\"

CORPUS = {
    "osc-title": OSC_TITLE,
    "osc-clipboard": OSC_CLIPBOARD,
    "csi-clear": CSI_CLEAR,
    "cr-overwrite": FORGED,
    "bidi": BIDI,
    "zero-width": ZERO_WIDTH,
    "html-img": HTML_IMG,
    "details": DETAILS_CLOSE,
    "fence": FENCE,
    "pipes": PIPES,
    "js-link": JS_LINK,
    "newline-forge": NEWLINE_FORGE,
    "c1-csi": C1_CSI,
    "dcs": DCS,
}
ALL = " ".join(CORPUS.values())

TERMINAL_BAD = ("\x1b", "\x9b", "\x07", "\r", "\u202e", "\u200b", "\x90", "\x9d")
"""Characters that must never reach a terminal or a log."""
