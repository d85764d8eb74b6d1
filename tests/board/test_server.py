"""The served board: security headers everywhere, traversal and symlink escapes refused, loopback only."""

from __future__ import annotations

import http.client
import io
import json
import zipfile

import pytest
from boardkit import SECRET, Runs, Server, coder_eval

from coder_eval.board.security import CSP

pytestmark = pytest.mark.slow


def fetch(server: Server, path: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """A raw GET: the path goes out exactly as written (no client-side normalising of `..`)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host or f"127.0.0.1:{server.port}")
        conn.endheaders()
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/", "/api/runs", "/static/js/core.js", "/api/nope", "/files/01-base/../x"])
def test_every_response_carries_the_strict_policy(board: Server, path: str) -> None:
    _, headers, _ = fetch(board, path)
    assert headers["content-security-policy"] == CSP
    assert "'unsafe-inline'" not in CSP and "'unsafe-eval'" not in CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    "path",
    [
        "/files/01-base/../02-head/run.json",
        "/files/01-base/..%2f02-head%2frun.json",
        "/files/01-base/%2e%2e/%2e%2e/secret.txt",
        "/files/01-base/default/greet/00/artifacts/leak.txt",
        "/files/01-base//etc/passwd",
        "/api/runs/01-base/preview/../../secret.txt",
        "/api/runs/01-base/preview/%2e%2e/%2e%2e/secret.txt",
        "/api/runs/01-base/preview/default/greet/00/artifacts/leak.txt",
        "/api/runs/..%2f..%2fetc/task/x",
        "/static/../../../../etc/passwd",
        "/static/%2e%2e/api.py",
        "/download/..%2f01-base.zip",
    ],
)
def test_requests_outside_a_run_are_refused(board: Server, path: str) -> None:
    status, _, body = fetch(board, path)
    assert status in (400, 403, 404), (status, body[:200])
    assert SECRET.encode() not in body and b"root:" not in body


def test_files_download_as_attachments_and_never_render(board: Server) -> None:
    status, headers, body = fetch(board, "/files/01-base/default/greet/00/artifacts/hello.txt")
    assert status == 200 and body == b"hello"
    assert headers["content-type"] == "application/octet-stream"
    assert headers["content-disposition"].startswith("attachment;")
    assert "sandbox" in headers["content-security-policy"]


def test_a_file_named_like_markup_downloads_with_an_encoded_name(board: Server) -> None:
    name = "%3Cimg%20src%3Dx%20onerror%3Dwindow.__xss%3D1%3E.txt"
    status, headers, body = fetch(board, f"/files/01-base/default/xss-probe/00/artifacts/{name}")
    assert status == 200 and body.startswith(b"<script>")
    assert "<" not in headers["content-disposition"]


def test_foreign_host_headers_are_refused(board: Server) -> None:
    status, _, body = fetch(board, "/api/runs", host="evil.example:80")
    assert status == 421 and b"run_id" not in body


def test_the_run_zip_holds_the_run_but_not_what_links_point_at(board: Server) -> None:
    status, headers, body = fetch(board, "/download/01-base.zip")
    assert status == 200 and headers["content-type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(body)).namelist()
    assert "01-base/run.json" in names and "01-base/default/greet/00/task.json" in names
    assert not any(n.endswith("leak.txt") for n in names)
    assert SECRET.encode() not in body


def test_tutorial_addresses_redirect_to_the_run_page(board: Server) -> None:
    status, headers, _ = fetch(board, "/runs/latest")
    assert status == 302 and headers["location"] == "/#/runs/02-head"


def test_api_errors_are_json_with_a_reason(board: Server) -> None:
    status, _, body = fetch(board, "/api/runs/no-such-run")
    assert status == 404 and "no-such-run" in json.loads(body)["error"]


def test_non_loopback_bind_is_refused(runs: Runs) -> None:
    proc = coder_eval("board", runs.root, "--host", "0.0.0.0", cwd=runs.root, timeout=60)
    assert proc.returncode == 2
    assert "loopback" in proc.stdout + proc.stderr and "Traceback" not in proc.stderr


def test_a_missing_runs_directory_is_a_usage_error(runs: Runs) -> None:
    proc = coder_eval("board", runs.root / "nope", cwd=runs.root, timeout=60)
    assert proc.returncode == 2 and "no such directory" in proc.stdout + proc.stderr
