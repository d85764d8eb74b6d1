"""Agent text cannot drive the operator's terminal, forge a harness line, or break out of a report.

The corpus (hygiene_nasty_text.py) holds a window-title change (OSC 0), a clipboard write (OSC 52),
a screen clear (CSI 2J), a carriage return plus ANSI colours forging a green `[1/1] ✓ … SUCCESS`
line, 8-bit C1 and DCS sequences, a bidi override, zero-width characters, HTML that runs script,
a `</details>`, a code fence, table pipes and `javascript:`/image links. It goes through every
output path twice: in process through each renderer (describe, the --stream renderer on a terminal,
task.log, progress, run.md / task.md / the gate's job summary rendered by a CommonMark engine, the
HTML reports, JUnit), and end to end with the real Claude Code CLI on the scripted model, whose
shell command, output, files and final words carry the corpus, watched on a pseudo-terminal,
under bubblewrap and docker, with the harness as root and as an ordinary user.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import shlex
import subprocess
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from hygiene_kit import claude_agent, criteria, need_driver, operator_command, records, tree, write_task
from hygiene_nasty_text import ALL, CORPUS, FORGED, TERMINAL_BAD
from markdown_it import MarkdownIt
from operators import DRIVERS, OPERATORS, Operator, operator
from rich.console import Console

from coder_eval.agents.events import AgentEndEvent, AgentStartEvent, TextChunkEvent, ToolEndEvent, ToolStartEvent
from coder_eval.agents.renderers import describe
from coder_eval.ci.gate import check_floor, step_summary_text
from coder_eval.engine.task_log import TaskLog
from coder_eval.models.results import CriterionResult, EvaluationResult
from coder_eval.models.status import FinalStatus
from coder_eval.records.summary import build_run_summary
from coder_eval.reports.html import render_run_html, render_task_html
from coder_eval.reports.junit import render_junit
from coder_eval.reports.markdown import render_run_markdown, render_task_markdown

SGR = re.compile(r"\x1b\[[0-9;]*m")
STAMP = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} ")
FORGED_LINE = re.compile(r"^\[\d+/\d+\] ✓ forged")
"""A progress line starts at the left edge; the agent's text never does (it is prefixed or indented)."""


def _terminal_safe(text: str, *, allow_sgr: bool = False) -> None:
    """No escape sequence (beyond the harness's own colours), control or invisible character."""
    if allow_sgr:
        text = SGR.sub("", text)
    text = text.replace("\r\n", "\n")  # a pseudo-terminal's own line ends
    bad = sorted({repr(c) for c in TERMINAL_BAD if c in text})
    assert not bad, f"{bad} reached the output"


def _no_forged_line(text: str) -> None:
    for line in SGR.sub("", text).replace("\r\n", "\n").split("\n"):
        assert not FORGED_LINE.match(line), f"a line passes for the harness's own: {line!r}"


# --- in process: every renderer ------------------------------------------------------------


def _events() -> list[Any]:
    return [
        AgentStartEvent(agent_type="claude-code", model=f"model {CORPUS['osc-title']}"),
        ToolStartEvent(tool_use_id="t1", tool_name=f"Bash{CORPUS['csi-clear']}", parameters={"command": ALL}),
        ToolEndEvent(tool_use_id="t1", result_summary=ALL),
        TextChunkEvent(text=f"I am done.{FORGED}\n{CORPUS['newline-forge']}"),
        AgentEndEvent(status="crashed", error=ALL),
    ]


def test_event_lines_are_clean() -> None:
    for event in _events():
        line = describe(event, full=True)
        assert line is not None
        _terminal_safe(line)
        _no_forged_line(line)


def test_the_stream_renderer_keeps_agent_text_behind_the_task_prefix() -> None:
    from coder_eval.cli.stream import stream_factory

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=60, color_system="standard", soft_wrap=True)

    class Unit:
        task_id = "task-a"

    for mode in ("full", "minimal"):
        render = stream_factory(console, mode)(Unit())  # type: ignore[arg-type]
        for event in _events():
            render(event)
    out = buffer.getvalue()
    _terminal_safe(out, allow_sgr=True)
    _no_forged_line(out)
    for line in SGR.sub("", out).splitlines():
        assert line.startswith("task-a "), line  # every row, including those a long line wrapped onto
        assert len(line) <= 60


def test_task_log_lines_start_with_a_stamp_or_are_indented() -> None:
    log = TaskLog()
    for event in _events():
        line = describe(event, full=True)
        assert line is not None
        log.add(line)
    log.add(f"agent crashed: {ALL}")
    text = "\n".join(log.lines)
    _terminal_safe(text)
    _no_forged_line(text)
    assert all(STAMP.match(line) or line.startswith(" ") for line in log.lines)


def test_progress_lines_are_clean() -> None:
    from coder_eval.cli.progress import Progress

    buffer = io.StringIO()
    progress = Progress(1, Console(file=buffer, force_terminal=False), live=False)
    progress.observer().finished(None, _result(f"row{CORPUS['cr-overwrite']}"))  # type: ignore[arg-type]
    _terminal_safe(buffer.getvalue())
    head, why = buffer.getvalue().splitlines()  # the unit's line, then why it failed (one line each)
    assert head.startswith("[1/1] ") and why.startswith("    why: ")


def _result(task_id: str = "nasty", *, text: str = ALL) -> EvaluationResult:
    """A failed result whose every agent-facing field holds `text` (the corpus, or plain words)."""
    criterion = CriterionResult(
        criterion_type="run_command",
        description=f"desc {text}",
        score=0.0,
        details=text,
        error=text + text,
    )
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    return EvaluationResult(
        task_id=task_id,
        final_status=FinalStatus.FAILURE,
        started_at=now,
        completed_at=now,
        duration_seconds=1.0,
        weighted_score=0.0,
        iteration_count=1,
        model_used=text,
        error_message=text,
        error_details=text * 3,
        error_log_tail=text,
        success_criteria_results=[criterion],
    )


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.tags.append((f"/{tag}", {}))


def _elements(html: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(html)
    return parser.tags


def _markdown_is_inert(markdown: str, *, headings: int) -> None:
    """Rendered as GitHub would (HTML allowed), the agent's text adds no element of its own."""
    _terminal_safe(markdown)
    html = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough").render(markdown)
    tags = _elements(html)
    names = [t for t, _ in tags]
    assert not {"img", "script", "a", "details", "iframe", "h1"} & set(names[1:]), names  # h1: the title only
    assert sum(n in ("h1", "h2", "h3") for n in names) == headings, names
    assert not any(any(k.startswith("on") for k in attrs) for _, attrs in tags)


def test_markdown_reports_and_the_job_summary_show_agent_text_as_text(tmp_path: Path) -> None:
    result = _result()
    summary = build_run_summary("r", [result])
    run_md = render_run_markdown(summary, [result])
    # title, Tasks, Failures and errors, the task's heading
    _markdown_is_inert(run_md, headings=4)
    task_md = render_task_markdown(result)
    _markdown_is_inert(task_md, headings=3)  # title, Criteria, Error
    (tmp_path / "run.md").write_text(run_md)
    summary_text = step_summary_text(tmp_path, check_floor(summary, 0.5))
    _markdown_is_inert(summary_text, headings=4)


def _pages(result: EvaluationResult) -> list[str]:
    return [render_task_html(result), render_run_html(build_run_summary("r", [result]), [result])]


def test_html_and_junit_reports_hold_no_agent_markup() -> None:
    result = _result()
    plain = _result(text="plain words")
    for html, reference in zip(_pages(result), _pages(plain), strict=True):
        _terminal_safe(html)
        tags = _elements(html)
        assert [t for t, _ in tags] == [t for t, _ in _elements(reference)]  # the agent added no element
        assert not any(any(k.startswith("on") for k in attrs) for _, attrs in tags)
    xml = "".join(render_junit(build_run_summary("r", [result]), {0: result}))
    ET.fromstring(xml.split("\n", 1)[1])
    _terminal_safe(xml)


# --- end to end: the real Claude Code CLI on the scripted model ----------------------------


def _hostile_task(folder: Path, driver: str) -> Path:
    # Claude Code refuses a shell command holding control characters, so the shell makes them.
    files = {"nasty.txt": ALL + "\n", "score.sh": "printf '0\\n'; cat nasty.txt\n"}
    command = (
        f"python3 -c 'import sys, json; [open(k, \"w\").write(v) for k, v in json.loads(sys.argv[1]).items()]' "
        f"{shlex.quote(json.dumps(files))}; cat nasty.txt; printf '\\033]0;owned window title\\007\\033[2J'"
    )
    return write_task(
        folder,
        {
            "task_id": "inject",
            "description": "an agent whose words, output and files try to drive the terminal and the reports",
            "initial_prompt": "Write your notes.",
            "agent": claude_agent(),
            "sandbox": {"driver": driver},
            "success_criteria": [
                {"type": "run_command", "command": "sh score.sh", "score_from_stdout": True, "description": "score"},
                {"type": "run_command", "command": "cat nasty.txt; exit 3", "description": "echoes the file"},
                {"type": "file_contains", "path": "nasty.txt", "includes": ["the answer"], "description": "answer"},
            ],
        },
        {"steps": [{"run_command": {"command": command}}, {"reply": f"All done.{FORGED}\n{ALL}"}]},
    )


def _run_on_a_terminal(op: Operator, args: list[str], env: dict[str, str], timeout: float = 600) -> str:
    """The CLI as `op` with its stdout and stderr on a pseudo-terminal, as an operator watches it."""
    argv, full_env = operator_command(op, list(args), env)
    leader, follower = pty.openpty()
    os.chown(os.ttyname(follower), op.uid, -1)
    proc = subprocess.Popen(
        argv, cwd=op.work, env=full_env, stdin=subprocess.DEVNULL,
        stdout=follower, stderr=follower, start_new_session=True,
    )  # fmt: skip
    os.close(follower)
    chunks: list[bytes] = []
    end = time.monotonic() + timeout
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    data = os.read(leader, 65536)
                except OSError:  # the terminal closed: the CLI has exited
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)
    return b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.slow
@pytest.mark.parametrize("who", OPERATORS)
@pytest.mark.parametrize("driver", DRIVERS)
def test_a_hostile_agent_cannot_drive_the_terminal_or_break_the_reports(driver: str, who: str) -> None:
    need_driver(driver)
    with operator(who) as op:
        _hostile_attack_is_inert(op, driver)


def _hostile_attack_is_inert(op: Operator, driver: str) -> None:
    task = _hostile_task(op.work / "suite", driver)
    op.own(op.work / "suite")
    before = tree(op.work)
    run_dir = op.work / "run"
    env = {"TERM": "xterm-256color", "COLUMNS": "100"}
    shown = _run_on_a_terminal(op, ["run", str(task), "--run-dir", str(run_dir), "-b", "script", "-s", "full"], env)
    (record,) = records(run_dir)
    assert record["final_status"] == "FAILURE", shown  # the honest grade
    results = criteria(record)
    assert results["score"]["score"] == 0.0 and results["answer"]["score"] == 0.0
    assert "owned window title" in (Path(record["sandbox_path"]) / "nasty.txt").read_text()  # the attack ran
    assert "inject" in shown and "All done." in shown
    _terminal_safe(shown, allow_sgr=True)
    _no_forged_line(shown)

    log = next(run_dir.rglob("task.log")).read_text()
    _terminal_safe(log)
    _no_forged_line(log)
    assert all(STAMP.match(line) or line.startswith(" ") for line in log.splitlines())

    report = op.cli("report", str(run_dir), env=env)
    assert report.returncode == 0, report.stderr
    _markdown_is_inert(report.stdout, headings=4)
    summary_file = op.work / "summary.md"
    gate = op.cli("gate", str(run_dir), "--step-summary", str(summary_file), env=env)
    assert gate.returncode in (0, 1), gate.stdout + gate.stderr
    _markdown_is_inert(summary_file.read_text(), headings=4)
    _terminal_safe(gate.stdout + gate.stderr, allow_sgr=True)

    html = op.cli("report", str(run_dir), "-f", "html", env=env)
    assert html.returncode == 0, html.stderr
    for page in run_dir.rglob("*.html"):
        tags = _elements(page.read_text())
        assert not any(tag in ("img", "iframe") for tag, _ in tags), page
        assert not any(any(k.startswith("on") for k in attrs) for _, attrs in tags), page

    evaluated = op.cli("evaluate", str(run_dir), env=env)
    _terminal_safe(evaluated.stdout + evaluated.stderr, allow_sgr=True)
    _no_forged_line(evaluated.stdout)
    assert tree(op.work, skip=(run_dir,)) == before | {"summary.md"}  # nothing outside the unit
