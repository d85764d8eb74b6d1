"""The board's text nodes and attributes get the same cleaning as the terminal (core.js `Board.clean`)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from coder_eval.board.server import STATIC_DIR
from coder_eval.common.untrusted_text import clean_text

SAMPLES = [
    "\x1b]0;owned\x07title",
    "\x1b[2J\x1b[H\x1b[32m[1/1] ✓ forged SUCCESS\x1b[0m",
    "over\rwrite",
    "bidi\u202etxt.exe",
    "zero\u200bwidth\ufeff\u2066",
    "tag\U000e0041s",
    "\x9b2J\x1bP1$r0m\x1b\\dcs",
    "plain ✓ 日本 <b>not markup either</b>",
]

RUNNER = """
global.document = {}; global.location = {hash: ""};
const fs = require("fs");
eval(fs.readFileSync(process.argv[1], "utf8") + "; global.Board = Board;");
const samples = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(samples.map(Board.clean)));
"""


def test_board_clean_matches_the_python_sanitiser() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs node to run the board's script outside a browser")
    core = Path(STATIC_DIR) / "js" / "core.js"
    done = subprocess.run(
        [node, "-e", RUNNER, str(core)], input=json.dumps(SAMPLES), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [clean_text(s) for s in SAMPLES]
