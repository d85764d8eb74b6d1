"""The harness's half of `record_cli`: a per-unit recorder that logs each call, then answers it.

A shim inside the unit (see `record_cli.py`) sends `{tool, argv, cwd}` over a Unix socket the
environment exposes (`service_socket`). The recorder, a thread of the harness, keeps the record
(in memory, and appended to a log file outside the workspace, beside the unit's task.json) and
only then sends the configured answer back, chosen by the response rules (matched here with
`common/argv_match`). So every call that got an answer has a record, and nothing the unit runs can
take one back: the log is the harness's, not a file in the workspace.

What the recorder refuses (a request that is too large or malformed, an unknown tool, calls past
the log's cap) gets no answer: the shim then fails loudly and nothing ran. Refusals are counted and
reported with the log.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from coder_eval.common.argv_match import ArgvPattern, mismatches
from coder_eval.common.secrets import Redactor
from coder_eval.models.sandbox import RecordCliSpec

MAX_REQUEST = 4 * 1024 * 1024
"""Bytes of one call (argv included); Linux allows 2 MiB of arguments."""
MAX_LOG_BYTES = 64 * 1024 * 1024
"""The log's cap: calls past it are refused (and counted), never silently dropped."""
MAX_HANDLERS = 32
"""Calls served at once; more wait to be accepted."""
READ_TIMEOUT = 10.0
HARNESS_SOURCE = "the harness's record of this unit's record_cli calls"


@dataclass(frozen=True)
class CliLogView:
    """A log of recorded calls as `cli_called` reads it: JSON Lines, where it came from, what is off."""

    data: bytes
    source: str
    problem: str | None = None
    """Why the log cannot be trusted (the criterion then errors instead of counting)."""
    notes: tuple[str, ...] = ()


class CliLog(Protocol):
    """Where `cli_called` finds the harness-owned log of a unit's record_cli calls."""

    def view(self) -> CliLogView: ...


def _answer(spec: RecordCliSpec, argv: list[str]) -> tuple[dict[str, Any], int | None]:
    """The configured reply to `argv` and the index of the response rule that chose it (None: the default)."""
    for index, rule in enumerate(spec.responses):
        if not mismatches(ArgvPattern(verbs=(tuple(rule.when.verb.split()),)), argv):
            reply = {
                "stdout": rule.stdout if rule.stdout is not None else spec.stdout,
                "stderr": rule.stderr if rule.stderr is not None else spec.stderr,
                "exit_code": rule.exit_code if rule.exit_code is not None else spec.exit_code,
            }
            return reply, index
    return {"stdout": spec.stdout, "stderr": spec.stderr, "exit_code": spec.exit_code}, None


def _request(data: bytes, tools: dict[str, RecordCliSpec]) -> tuple[RecordCliSpec, list[str], str | None]:
    """The spec, argv and cwd of one call; ValueError says why it is refused."""
    try:
        request = json.loads(data.decode("utf-8"))
    except ValueError as exc:
        raise ValueError(f"the request is not JSON ({exc})") from None
    if not isinstance(request, dict):
        raise ValueError("the request is not a JSON object")
    tool, argv, cwd = request.get("tool"), request.get("argv"), request.get("cwd")
    if not isinstance(tool, str) or tool not in tools:
        raise ValueError(f"no record_cli tool {str(tool)[:80]!r} in this unit")
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a list of strings")
    return tools[tool], argv, cwd if isinstance(cwd, str) else None


def _read_request(conn: socket.socket) -> bytes:
    chunks, size = [], 0
    while chunk := conn.recv(65536):
        size += len(chunk)
        if size > MAX_REQUEST:
            raise ValueError(f"the call is over {MAX_REQUEST // 2**20} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


class CliRecorder:
    """One unit's recorder: a Unix socket served by a daemon thread until `close`."""

    def __init__(self, specs: list[RecordCliSpec], socket_path: Path, log_path: Path | None) -> None:
        self.tools = {spec.tool: spec for spec in specs}
        self.socket_path = socket_path
        self.log_path = log_path
        self._lines: list[bytes] = []
        self._size = 0
        self.refused: list[str] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_HANDLERS)
        self._redact = Redactor()
        self.file_problem: str | None = None
        """Why the log file beside task.json may be incomplete (the log in memory is whole)."""
        self._closed = False
        socket_path.unlink(missing_ok=True)
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self._server.bind(str(socket_path))
            socket_path.chmod(0o666)  # the unit's user may be another uid than the harness's
            self._inode = socket_path.stat().st_ino
            self._server.listen(64)
        except OSError:
            self._server.close()
            raise
        self._log_fd: int | None = None
        if log_path is not None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
            self._log_fd = os.open(log_path, flags, 0o644)
        self._thread = threading.Thread(target=self._accept, name=f"record_cli {socket_path.name}", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._closed:
            self._slots.acquire()
            try:
                conn, _ = self._server.accept()
            except OSError:
                self._slots.release()
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(READ_TIMEOUT)
                try:
                    spec, argv, cwd = _request(_read_request(conn), self.tools)
                except (OSError, ValueError) as exc:
                    self._refuse(conn, str(exc) or exc.__class__.__name__)
                    return
                reply, rule = _answer(spec, argv)
                record: dict[str, Any] = {"ts": round(time.time(), 3), "tool": spec.tool, "argv": argv}
                record["exit"] = reply["exit_code"]
                if rule is not None:
                    record["rule"] = rule
                record["cwd"] = cwd
                if not self._keep(record):
                    self._refuse(conn, "the unit's call log is full")
                    return
                with contextlib.suppress(OSError):  # recorded: a shim that died meanwhile changes nothing
                    conn.sendall(json.dumps(reply).encode("utf-8"))
        finally:
            self._slots.release()

    def _keep(self, record: dict[str, Any]) -> bool:
        """Record the call (memory first, then the file); False when the log is full."""
        line = (json.dumps(record) + "\n").encode()
        with self._lock:
            if self._closed or self._size + len(line) > MAX_LOG_BYTES:
                return False
            self._lines.append(line)
            self._size += len(line)
            if self._log_fd is not None:
                self._write(self._log_fd, self._redact(line.decode()).encode())
        return True

    def _write(self, fd: int, raw: bytes) -> None:
        data = memoryview(raw)
        try:
            while data:
                data = data[os.write(fd, data) :]
        except OSError as exc:  # the file lags; memory holds the call, and `close` writes the file again
            self.file_problem = f"could not write {self.log_path}: {exc.strerror or exc}"

    def _refuse(self, conn: socket.socket, why: str) -> None:
        with self._lock:
            if len(self.refused) < 1000:
                self.refused.append(why[:200])
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps({"refused": why}).encode("utf-8"))

    def socket_intact(self) -> bool:
        """Whether the socket the shims reach is still the recorder's (a tempdir unit could replace it)."""
        try:
            return self.socket_path.stat().st_ino == self._inode
        except OSError:
            return False

    def records(self) -> Iterator[bytes]:
        with self._lock:
            lines = list(self._lines)
        yield from lines

    def persisted(self) -> bytes:
        """The log as files keep it (the file beside task.json, the workspace copy): credentials redacted."""
        return self._redact(b"".join(self.records()).decode()).encode()

    def view(self) -> CliLogView:
        data = b"".join(self.records())
        notes: tuple[str, ...] = ()
        if self.refused:
            kinds = sorted(set(self.refused))
            notes = (f"{len(self.refused)} call(s) refused, unanswered and unrecorded ({'; '.join(kinds[:3])})",)
        problem = None
        if not self._closed and not self.socket_intact():
            problem = (
                f"the recorder's socket {self.socket_path} was removed or replaced while the unit ran, so calls "
                "may have been answered by something else; the log cannot vouch for them"
            )
        return CliLogView(data, HARNESS_SOURCE, problem, notes)

    def close(self) -> str | None:
        """Stop serving; the log file is written once more from memory (what was graded is what is kept).

        Returns why the file may still be incomplete, if it may."""
        if self._closed:
            return self.file_problem
        intact = self.socket_intact()
        with self._lock:
            self._closed = True
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._server.close()
        if intact:
            self.socket_path.unlink(missing_ok=True)
        if self._log_fd is not None:
            fd, self._log_fd = self._log_fd, None
            self.file_problem = None
            try:
                os.ftruncate(fd, 0)
                self._write(fd, self.persisted())
            except OSError as exc:
                self.file_problem = f"could not write {self.log_path}: {exc.strerror or exc}"
            finally:
                os.close(fd)
        return self.file_problem


class RecordedCliLog:
    """The log a finished unit left beside its task.json (`evaluate RUN_DIR` grades from it)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def view(self) -> CliLogView:
        source = f"the harness's record {self.path.name} beside task.json"
        try:
            with open(self.path, "rb", opener=_no_follow) as fh:
                data = fh.read(MAX_LOG_BYTES + 1)
        except OSError as exc:
            return CliLogView(b"", source, f"cannot read {self.path}: {exc.strerror or exc}")
        if len(data) > MAX_LOG_BYTES:
            too_big = f"{self.path} is over {MAX_LOG_BYTES // 2**20} MiB, more than a recorder writes"
            return CliLogView(b"", source, too_big)
        return CliLogView(data, source)


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW)
