"""record_cli shims: tiny executables that hand each call to the harness's recorder and print its answer.

A shim holds no configuration and writes no file. It runs on the environment's Python in isolated
mode (`-I`: no site directory, no `PYTHON*` variables, not even its own directory on the import
path, so nothing of the workspace is imported), sends `{tool, argv, cwd}` to the recorder's socket
(see `cli_recorder.py`) and prints the answer it gets back. A shim that cannot reach the recorder,
or is refused, says so on stderr and exits 125: the call did not run, and no answer means no gap
in the log.

The shims live in a directory of the harness shared read-only into the unit (`share`), so under
bubblewrap and docker the unit can neither rewrite them nor the socket they talk to. The workspace
keeps `cli_mocks/calls.jsonl` only as a copy of the harness's record (see `write_copy`).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path, PurePosixPath

from coder_eval.common.safe_open import read_inside, write_inside
from coder_eval.models.sandbox import RecordCliSpec
from coder_eval.sandbox.cli_recorder import CliRecorder
from coder_eval.sandbox.environment import SandboxEnvironment

MOCKS_DIR = "cli_mocks"
CALLS_LOG = "calls.jsonl"
COPY_PATH = f"{MOCKS_DIR}/{CALLS_LOG}"
"""The workspace copy of the harness's record: agent-writable, rewritten when grading starts and at the end."""
SHARE_NAME = "record_cli"
UNREACHABLE_EXIT = 125
SHIM_TIMEOUT = 60

_SHIM = """#!{python} -I
# record_cli shim for {tool}, written by Coder Eval: the harness records the call, then answers it.
import json, os, socket, sys
try:
    cwd = os.getcwd()
except OSError:
    cwd = None
ask = json.dumps({{"tool": {tool!r}, "argv": sys.argv[1:], "cwd": cwd}}).encode()
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout({timeout})
        conn.connect({socket!r})
        conn.sendall(ask)
        conn.shutdown(socket.SHUT_WR)
        reply = json.loads(b"".join(iter(lambda: conn.recv(65536), b"")))
    out, err, code = reply["stdout"], reply["stderr"], reply["exit_code"]
except Exception as exc:
    why = reply.get("refused") if isinstance(locals().get("reply"), dict) else None
    sys.stderr.write("{tool}: not run: Coder Eval's call recorder %s\\n" % (
        "refused it (%s)" % why if why else "is unreachable (%s)" % exc))
    sys.exit({unreachable})
sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape"))
sys.stderr.buffer.write(err.encode("utf-8", "surrogateescape"))
sys.exit(code)
"""


def shim_source(spec: RecordCliSpec, python: str, socket_inner: PurePosixPath) -> str:
    return _SHIM.format(
        python=python,
        tool=spec.tool,
        socket=str(socket_inner),
        timeout=SHIM_TIMEOUT,
        unreachable=UNREACHABLE_EXIT,
    )


class Recording:
    """A unit's record_cli: the recorder and the shims that reach it (written to a private directory
    of the harness, then shared into the unit)."""

    def __init__(self, specs: list[RecordCliSpec], env: SandboxEnvironment, log_path: Path | None) -> None:
        self.host = Path(tempfile.mkdtemp(prefix="ce-cli-"))
        self.host.chmod(0o755)
        socket_host, socket_inner = env.service_socket(SHARE_NAME)
        self.recorder = CliRecorder(specs, socket_host, log_path)
        try:
            for spec in specs:
                shim = self.host / spec.tool
                shim.write_text(shim_source(spec, env.python, socket_inner), encoding="utf-8")
                shim.chmod(0o555)
                twin = self.host / f"{spec.tool}.cmd"  # Windows PATHEXT lookup of a bare name
                twin.write_bytes(f'@"{env.python}" -I "%~dp0{spec.tool}" %*\r\n'.encode())
                twin.chmod(0o444)
            self.shims = env.share(self.host, SHARE_NAME)
        except BaseException:
            self.close()
            raise

    def close(self) -> str | None:
        """Stop the recorder (its log file is final from then on) and remove the shims' directory;
        why the log file may be incomplete, if it may."""
        problem = self.recorder.close()
        shutil.rmtree(self.host, ignore_errors=True)
        return problem


def seed_copy(workspace: Path) -> None:
    """An empty `cli_mocks/calls.jsonl`, so the documented file exists before the first call."""
    write_inside(workspace, COPY_PATH, b"")


def write_copy(workspace: Path, records: bytes) -> str | None:
    """Make the workspace copy equal the harness's record; what was off about it before, if anything.

    Only called while no process of the unit runs (before grading, after the unit ended).
    """
    try:
        before: bytes | None = read_inside(workspace, Path(COPY_PATH), limit=len(records) + 1)
    except Exception:  # missing, a link, a directory: it is replaced all the same
        before = None
    try:
        write_inside(workspace, COPY_PATH, records)
    except OSError as exc:
        why = exc.strerror or exc
        return f"record_cli: could not write the workspace copy {COPY_PATH} ({why}); the record beside task.json stands"
    if before == records:
        return None
    state = "was missing or not a plain file" if before is None else "differed from the harness's record"
    return f"record_cli: the workspace copy {COPY_PATH} {state} (the unit changed it); it now holds the record"
