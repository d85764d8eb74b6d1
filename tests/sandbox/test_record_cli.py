"""record_cli: shims hand each call to the harness's recorder, which logs it outside the workspace, then answers."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.record_cli import COPY_PATH, UNREACHABLE_EXIT
from coder_eval.sandbox.sandbox import Sandbox

UIP = {
    "tool": "uip",
    "exit_code": 1,
    "stderr": "not connected\n",
    "responses": [{"when": {"verb": "ixp dummy1"}, "stdout": "ONE\n", "exit_code": 0}],
}


def _bwrap_usable() -> bool:
    if shutil.which("bwrap") is None:
        return False
    probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
    return subprocess.run(probe, env={}, capture_output=True, timeout=30).returncode == 0


def make(tmp_path: Path, config: dict[str, Any], *, log: bool = True) -> Sandbox:
    task_dir = tmp_path / "task"
    task_dir.mkdir(exist_ok=True)
    (tmp_path / "out").mkdir(exist_ok=True)
    return Sandbox(
        SandboxConfig.model_validate(config),
        task_dir=task_dir,
        task_file=task_dir / "task.yaml",
        artifacts_dir=tmp_path / "out" / "artifacts",
        mode=PreservationMode.MOVE_ON_WRITE,
        scratch=tmp_path / "scratch",
        cli_log=tmp_path / "out" / "cli_calls.jsonl" if log else None,
    )


def records(box: Sandbox) -> list[dict[str, Any]]:
    assert box.cli_log is not None
    view = box.cli_log.view()
    assert view.problem is None, view.problem
    return [json.loads(line) for line in view.data.splitlines()]


@pytest.fixture
def box(tmp_path: Path) -> Any:
    sandbox = make(tmp_path, {"driver": "tempdir", "record_cli": [UIP, {"tool": "curl"}]})
    sandbox.setup()
    yield sandbox
    sandbox.finish()


def test_calls_are_answered_and_recorded_by_the_harness(box: Sandbox, tmp_path: Path) -> None:
    one = box.run("uip ixp dummy1 --flag x", timeout=30)
    other = box.run("uip ixp nope", timeout=30)
    plain = box.run("curl https://example.invalid", timeout=30)
    assert (one.exit_code, one.stdout) == (0, "ONE\n")
    assert (other.exit_code, other.stderr) == (1, "not connected\n")
    assert plain.exit_code == 1  # the default makes a shadowed tool look failed
    found = records(box)
    assert [r["argv"] for r in found] == [
        ["ixp", "dummy1", "--flag", "x"],
        ["ixp", "nope"],
        ["https://example.invalid"],
    ]
    assert found[0]["rule"] == 0 and "rule" not in found[1]
    assert found[0]["cwd"] == str(box.workspace) and found[2]["tool"] == "curl"
    # appended as they come to the log beside task.json, outside the workspace
    log = tmp_path / "out" / "cli_calls.jsonl"
    assert [json.loads(line)["argv"] for line in log.read_text().splitlines()] == [r["argv"] for r in found]
    assert not log.resolve().is_relative_to(box.workspace.resolve())


def test_shims_live_outside_the_workspace_and_the_copy_starts_empty(box: Sandbox) -> None:
    assert (box.workspace / COPY_PATH).read_text() == ""  # the documented file exists, seeded empty
    assert sorted(p.name for p in (box.workspace / "cli_mocks").iterdir()) == ["calls.jsonl"]
    first = Path(box.env()["PATH"].split(os.pathsep)[0])
    assert (first / "uip").is_file() and (first / "uip.cmd").is_file()
    assert not first.resolve().is_relative_to(box.workspace.resolve())
    text = (first / "uip").read_text()
    assert text.startswith("#!") and " -I\n" in text.splitlines()[0] + "\n"  # isolated mode: no workspace import
    assert "argv_match" not in text and "calls.jsonl" not in text  # no matcher, no log: it only asks


def test_a_rewritten_workspace_copy_changes_nothing_and_is_restored(box: Sandbox) -> None:
    assert box.run("uip repo delete --yes", timeout=30).exit_code == 1
    (box.workspace / COPY_PATH).write_text('{"argv": ["repo", "list"]}\n')  # the forger's version
    assert [r["argv"] for r in records(box)] == [["repo", "delete", "--yes"]]
    box.sync_cli_copy()
    assert json.loads((box.workspace / COPY_PATH).read_text())["argv"] == ["repo", "delete", "--yes"]
    assert any("differed from the harness's record" in note for note in box.notes)


def test_a_link_planted_as_the_copy_is_replaced_not_followed(box: Sandbox, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    copy = box.workspace / COPY_PATH
    copy.unlink()
    copy.symlink_to(victim)
    box.run("uip x", timeout=30)
    box.sync_cli_copy()
    assert victim.read_text() == "keep me"
    assert not copy.is_symlink() and json.loads(copy.read_text())["argv"] == ["x"]


def test_the_shim_never_reads_stdin(box: Sandbox) -> None:
    shim = Path(box.env()["PATH"].split(os.pathsep)[0]) / "uip"
    proc = subprocess.run([str(shim), "ixp", "dummy1"], stdin=subprocess.PIPE, timeout=20, env=box.env())
    assert proc.returncode == 0


def test_an_unreachable_recorder_fails_the_call_loudly(tmp_path: Path) -> None:
    sandbox = make(tmp_path, {"driver": "tempdir", "record_cli": [UIP]})
    sandbox.setup()
    try:
        assert sandbox.cli_log is not None
        sandbox.cli_log.socket_path.unlink()  # what a tempdir unit could do
        out = sandbox.run("uip ixp dummy1", timeout=30)
        assert out.exit_code == UNREACHABLE_EXIT
        assert "not run" in out.stderr and "unreachable" in out.stderr
        assert out.stdout == ""  # never the configured answer
        view = sandbox.cli_log.view()
        assert view.data == b"" and view.problem is not None and "removed or replaced" in view.problem
    finally:
        sandbox.finish()


def _ask(path: Path, payload: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(10)
        conn.connect(str(path))
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        data = b"".join(iter(lambda: conn.recv(65536), b""))
    answer: dict[str, Any] = json.loads(data)
    return answer


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        pytest.param(b"not json", "JSON", id="garbage"),
        pytest.param(b'{"tool": "gh", "argv": []}', "no record_cli tool 'gh'", id="unknown-tool"),
        pytest.param(b'{"tool": "uip", "argv": "repo delete"}', "argv must be a list", id="argv-not-a-list"),
    ],
)
def test_what_the_recorder_refuses_gets_no_answer_and_is_counted(box: Sandbox, payload: bytes, why: str) -> None:
    assert box.cli_log is not None
    answer = _ask(box.cli_log.socket_path, payload)
    assert "stdout" not in answer and why.lower() in answer["refused"].lower()
    view = box.cli_log.view()
    assert view.data == b"" and view.notes and "refused" in view.notes[0]


def test_the_log_file_is_final_when_the_unit_finishes(tmp_path: Path) -> None:
    sandbox = make(tmp_path, {"driver": "tempdir", "record_cli": [UIP]})
    sandbox.setup()
    sandbox.run("uip a", timeout=30)
    log = tmp_path / "out" / "cli_calls.jsonl"
    log.write_text("")  # whoever truncates the file meanwhile: the record is rewritten from memory
    kept = sandbox.finish()
    assert [json.loads(line)["argv"] for line in log.read_text().splitlines()] == [["a"]]
    assert kept is not None and json.loads((kept / COPY_PATH).read_text())["argv"] == ["a"]
    assert sandbox.cli_log is not None and not sandbox.cli_log.socket_path.exists()


def test_a_regrade_gets_a_recorder_of_its_own(tmp_path: Path) -> None:
    sandbox = make(tmp_path, {"driver": "tempdir", "record_cli": [UIP]}, log=False)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    sandbox.adopt(workspace)
    try:
        assert sandbox.run("uip ixp dummy1", timeout=30).stdout == "ONE\n"
    finally:
        sandbox.finish()
    assert not (workspace / "cli_mocks").exists()  # the graded tree is left as it was


@pytest.mark.skipif(not _bwrap_usable(), reason="bubblewrap is not usable here (scripts/sandbox-deps.sh)")
def test_under_bubblewrap_shims_and_socket_are_out_of_the_units_reach(tmp_path: Path) -> None:
    sandbox = make(tmp_path, {"driver": "bubblewrap", "record_cli": [UIP]})
    sandbox.setup()
    try:
        shims = sandbox.env()["PATH"].split(os.pathsep)[0]
        attack = (
            f"echo forged > {shims}/uip; rm -f {shims}/uip; rm -f /coder-eval/sockets/record_cli.sock; "
            "ls -ld /coder-eval/sockets; uip ixp dummy1"
        )
        out = sandbox.run(attack, timeout=30)
        assert out.stdout.endswith("ONE\n"), out.stdout + out.stderr
        assert out.stderr.count("Read-only file system") >= 2, out.stderr
        assert [r["argv"] for r in records(sandbox)] == [["ixp", "dummy1"]]
    finally:
        sandbox.finish()
