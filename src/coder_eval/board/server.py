"""`coder-eval board`: an aiohttp server on loopback over the board API, the front end and run files."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import tempfile
import zipfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from coder_eval.board.api import ApiError, BoardApi
from coder_eval.board.paths import PathRefusedError, contained, is_inside
from coder_eval.board.security import FILE_CSP, HEADERS, host_allowed
from coder_eval.common.bounded_copy import CopyBudget

STATIC_DIR = Path(__file__).parent / "static"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Refuse foreign Host headers, turn errors into JSON, and put the security headers on everything."""
    if not host_allowed(request.headers.get("Host"), request.app["bound"]["port"]):
        response: web.StreamResponse = _error(421, "this board answers only to its loopback address")
    else:
        try:
            response = await handler(request)
        except ApiError as exc:
            response = _error(exc.status, exc.message)
        except PathRefusedError as exc:
            response = _error(403, str(exc))
        except web.HTTPException as exc:
            response = _error(exc.status, exc.reason)
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def _api(request: web.Request) -> BoardApi:
    api: BoardApi = request.app["api"]
    return api


async def api_handler(request: web.Request) -> web.Response:
    key = request.match_info["key"]
    payload = await asyncio.to_thread(_api(request).get, key, dict(request.query))
    body = json.dumps(payload, separators=(",", ":"), allow_nan=False, default=str)
    return web.Response(text=body, content_type="application/json", headers={"Cache-Control": "no-store"})


async def index_handler(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-store"})


async def static_handler(request: web.Request) -> web.FileResponse:
    path = contained(STATIC_DIR, request.match_info["name"])
    if not path.is_file():
        raise web.HTTPNotFound(reason="no such asset")
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


async def file_handler(request: web.Request) -> web.FileResponse:
    """One file of a run, always as a download, never rendered."""
    entry = _api(request).entry(request.match_info["run_id"])
    path = contained(entry.directory, request.match_info["rel"])
    if not path.is_file():
        raise web.HTTPNotFound(reason="no such file in this run")
    headers = {
        "Content-Type": "application/octet-stream",
        "Content-Disposition": f"attachment; filename*=UTF-8''{_quote(path.name)}",
        "Content-Security-Policy": FILE_CSP,
    }
    return web.FileResponse(path, headers=headers)


def _quote(name: str) -> str:
    from urllib.parse import quote

    return quote(name, safe="")


ZIP_FILE_CAP = 256 * 1024 * 1024
"""Largest file (by its length: zipping reads holes too) a run's zip takes."""
ZIP_TOTAL_CAP = 2 * 1024**3
"""Bytes a run's zip reads in all."""
ZIP_SKIPPED = "SKIPPED.txt"


def write_run_zip(run_dir: Path, target: Path, prefix: str) -> list[str]:
    """Zip every regular file of a run that stays inside it (links out of the run are left out).

    A zip reads every byte of a file, holes included, so files are capped by their length: one
    over `ZIP_FILE_CAP`, or past `ZIP_TOTAL_CAP` in all, is left out and named, with the reason,
    in `SKIPPED.txt` inside the zip. Returns those notes.
    """
    budget = CopyBudget(per_file=ZIP_FILE_CAP, total=ZIP_TOTAL_CAP)
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for root, dirs, files in os.walk(run_dir, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                path = Path(root) / name
                if not (path.is_file() and is_inside(run_dir, path)):
                    continue
                rel = path.relative_to(run_dir).as_posix()
                size = path.stat().st_size
                why = budget.refuse(rel, size, what="long")
                if why is not None:
                    budget.notes.append(why)
                    continue
                budget.used += size
                zf.write(path, f"{prefix}/{rel}")
        if budget.notes:
            zf.writestr(
                f"{prefix}/{ZIP_SKIPPED}", "Left out of this zip:\n" + "".join(f"- {n}\n" for n in budget.notes)
            )
    return budget.notes


async def zip_handler(request: web.Request) -> web.StreamResponse:
    entry = _api(request).entry(request.match_info["run_id"])
    fd, name = tempfile.mkstemp(suffix=".zip")
    os.close(fd)
    tmp = Path(name)
    try:
        await asyncio.to_thread(write_run_zip, entry.directory, tmp, entry.run_id)
        response = web.StreamResponse(
            headers={
                "Content-Type": "application/zip",
                "Content-Disposition": f"attachment; filename*=UTF-8''{_quote(entry.run_id)}.zip",
                "Content-Length": str(tmp.stat().st_size),
            }
        )
        for name_, value in HEADERS.items():
            response.headers[name_] = value
        await response.prepare(request)
        with tmp.open("rb") as fh:
            while chunk := fh.read(256 * 1024):
                await response.write(chunk)
        await response.write_eof()
        return response
    finally:
        tmp.unlink(missing_ok=True)


async def run_redirect(request: web.Request) -> web.Response:
    """/runs/<id> and /runs/latest (the tutorial's addresses) land on the page for that run."""
    entry = _api(request).entry(request.match_info["run_id"])
    return web.Response(status=302, headers={"Location": f"/#/runs/{_quote(entry.run_id)}"})


def make_app(api: BoardApi, port: int) -> web.Application:
    app = web.Application(middlewares=[_guard], client_max_size=64 * 1024)
    app["api"] = api
    app["bound"] = {"port": port}
    app.router.add_get("/", index_handler)
    app.router.add_get("/static/{name:.+}", static_handler)
    app.router.add_get("/api/{key:.*}", api_handler)
    app.router.add_get("/files/{run_id}/{rel:.+}", file_handler)
    app.router.add_get("/download/{run_id}.zip", zip_handler)
    app.router.add_get("/runs/{run_id}", run_redirect)
    return app


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.setblocking(False)
    return sock


async def serve(api: BoardApi, host: str, port: int, on_ready: Callable[[str], Any]) -> None:
    """Bind, report the URL, and serve until cancelled (Ctrl-C)."""
    sock = bind(host, port)
    bound = int(sock.getsockname()[1])
    runner = web.AppRunner(make_app(api, bound), access_log=None)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    shown = f"[{host}]" if ":" in host else host
    on_ready(f"http://{shown}:{bound}/")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
