"""`coder-eval board --export DIR RUNS…`: the board as a folder of static files that works from file://.

Browsers do not let a page on file:// fetch other files, but they do run <script src> from the
same folder. So every API payload the pages can ask for is written as a small script,
`data/<key hash>.js`, that hands the payload to the page; the page loads it by adding a script
tag. Run files are copied under `files/` for the download links, with one zip per run.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from coder_eval.board.api import DIFF_SEPARATOR, ApiError, BoardApi
from coder_eval.board.runs import RunView
from coder_eval.board.security import STATIC_CSP
from coder_eval.board.server import STATIC_DIR, write_run_zip
from coder_eval.board.task_page import PREVIEW_BYTES
from coder_eval.common.bounded_copy import CopyBudget, copy_file
from coder_eval.errors import UsageError

MARKER = ".coder-eval-board"
SKIPPED = "SKIPPED.txt"
MAX_PAIRWISE_RUNS = 20
"""Up to this many runs every pair gets a compare page; beyond it, each run against the one before."""
DIFF_INDEX = "diff-index"
"""The data file listing the diffs an export holds."""
MAX_EXPORTED_DIFFS = 3000
"""Trajectory diffs an export writes at most; the live board compares any two units."""
_FNV_PRIME = 0x01000193
_SEEDS = (0x811C9DC5, 0x5BD1E995)


def key_hash(key: str) -> str:
    """Two 32-bit FNV-1a hashes of the key's UTF-8 bytes; the front end computes the same."""
    out = []
    for seed in _SEEDS:
        h = seed
        for byte in key.encode("utf-8"):
            h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
        out.append(f"{h:08x}")
    return "".join(out)


def script_for(key: str, payload: Any) -> str:
    """`Board.put(key, payload);` with <, >, & and line separators escaped, so no text ends the script."""

    def dump(value: Any) -> str:
        text = json.dumps(value, separators=(",", ":"), allow_nan=False, default=str)
        for raw, escaped in (
            ("<", "\\u003c"),
            (">", "\\u003e"),
            ("&", "\\u0026"),
            ("\u2028", "\\u2028"),
            ("\u2029", "\\u2029"),
        ):
            text = text.replace(raw, escaped)
        return text

    return f"Board.put({dump(key)},{dump(payload)});\n"


def prepare_target(target: Path) -> None:
    if target.exists():
        if not target.is_dir():
            raise UsageError(f"--export {target}: exists and is not a directory; name a new or empty directory")
        if any(target.iterdir()) and not (target / MARKER).is_file():
            raise UsageError(
                f"--export {target}: the directory is not empty and holds no earlier board export; "
                "name a new or empty directory so nothing of yours is overwritten"
            )
        for name in ("data", "files", "static", "index.html"):
            path = target / name
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink(missing_ok=True)
    target.mkdir(parents=True, exist_ok=True)
    (target / MARKER).write_text("written by coder-eval board --export\n", encoding="utf-8")


def export_site(api: BoardApi, target: Path) -> dict[str, int]:
    """Write the site; returns counts of runs, data files and copied files."""
    views = api.views()
    if not views:
        raise UsageError("nothing to export: no run directory (with run.json or task records) was found in RUNS")
    prepare_target(target)
    shutil.copytree(STATIC_DIR, target / "static")
    index = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    meta = f'<meta http-equiv="Content-Security-Policy" content="{STATIC_CSP}">'
    index = index.replace("<!--csp-->", meta).replace('data-mode="server"', 'data-mode="static"')
    (target / "index.html").write_text(index, encoding="utf-8")
    data = target / "data"
    data.mkdir()
    written = 0
    for key, payload in _payloads(api, views):
        (data / f"{key_hash(key)}.js").write_text(script_for(key, payload), encoding="utf-8")
        written += 1
    files = 0
    budget = CopyBudget()
    for view in views:
        files += _copy_run(view, target / "files", budget)
    if budget.notes:
        note = "Left out of this export (the run directories still hold them):\n"
        (target / "files" / SKIPPED).write_text(note + "".join(f"- {n}\n" for n in budget.notes), encoding="utf-8")
    return {"runs": len(views), "data": written, "files": files, "skipped": len(budget.notes)}


def _payloads(api: BoardApi, views: list[RunView]) -> Iterator[tuple[str, Any]]:
    yield "runs", api.get("runs")
    yield "trends", api.get("trends")
    flaky = api.get("flaky")
    yield "flaky", flaky
    for view in views:
        yield from _run_payloads(api, view)
    yield "runs/latest", api.get(f"runs/{views[0].run_id}")
    for older, newer in _pairs(views):
        yield f"compare/{older}/{newer}", api.get(f"compare/{older}/{newer}")
    exported = []
    for left, right in itertools.islice(dict.fromkeys(_diff_pairs(views, flaky)), MAX_EXPORTED_DIFFS):
        key = f"diff/{left[0]}/{left[1]}/{DIFF_SEPARATOR}/{right[0]}/{right[1]}"
        try:
            yield key, api.get(key)
        except ApiError:
            continue  # a unit without its task.json: the page says the pair is not in the export
        exported.append(key)
    yield DIFF_INDEX, exported  # the page looks a pair up here rather than asking for a file that is not there


Unit = tuple[str, str]


def _diff_pairs(views: list[RunView], flaky: dict[str, Any]) -> Iterator[tuple[Unit, Unit]]:
    """The trajectory diffs the pages link to, one orientation each (the page tries the other too): in a run,
    every replicate against replicate 0 and every arm against the first; a unit against the same unit in the
    run before; a flaky task's first passing unit against its first failing one."""
    for view in views:
        first: dict[tuple[str, str], str] = {}
        arm: dict[str, str] = {}
        for row in sorted(view.rows, key=lambda r: (r["task_id"], r["variant_id"], r["replicate_index"])):
            group = (row["task_id"], row["variant_id"])
            if group in first:
                yield (view.run_id, first[group]), (view.run_id, row["path"])
                continue
            first[group] = row["path"]
            if row["task_id"] in arm:
                yield (view.run_id, arm[row["task_id"]]), (view.run_id, row["path"])
            else:
                arm[row["task_id"]] = row["path"]
    ordered = list(reversed(views))  # oldest first
    for older, newer in itertools.pairwise(ordered):
        paths = {row["path"] for row in older.rows}
        for row in newer.rows:
            if row["path"] in paths:
                yield (older.run_id, row["path"]), (newer.run_id, row["path"])
    for task in flaky["tasks"]:
        units = task["units"]
        passing = next((u for u in units if u["status"] == "SUCCESS"), None)
        failing = next((u for u in units if u["status"] != "SUCCESS"), None)
        if passing and failing:
            yield (passing["run"], passing["path"]), (failing["run"], failing["path"])


def _pairs(views: list[RunView]) -> Iterator[tuple[str, str]]:
    ids = [v.run_id for v in reversed(views)]  # oldest first
    if len(ids) <= MAX_PAIRWISE_RUNS:
        for i, older in enumerate(ids):
            for newer in ids[i + 1 :]:
                yield older, newer
    else:
        yield from itertools.pairwise(ids)


def _run_payloads(api: BoardApi, view: RunView) -> Iterator[tuple[str, Any]]:
    base = f"runs/{view.run_id}"
    run = api.get(base)
    yield base, run
    yield f"{base}/rows", api.get(f"{base}/rows")
    if run["has_experiment"]:
        yield f"{base}/experiment", api.get(f"{base}/experiment")
    for suite in run["suites"]:
        yield f"{base}/suite/{suite['path']}", api.get(f"{base}/suite/{suite['path']}")
    for path in sorted({row["path"] for row in view.rows}):
        try:
            task = api.get(f"{base}/task/{path}")
        except ApiError:
            continue  # a row without its task.json (hand-edited run): its link shows "not found"
        yield f"{base}/task/{path}", task
        for item in task["artifacts"] + task["files"]:
            if item["size"] <= PREVIEW_BYTES:
                yield f"{base}/preview/{item['path']}", api.get(f"{base}/preview/{item['path']}")


def _copy_run(view: RunView, files_root: Path, budget: CopyBudget) -> int:
    """Copy the run's files (those inside it; links out are skipped) and zip them for download.

    Copies keep sparse files sparse and stay within `budget` (common/bounded_copy.py); what is left
    out, of the copies or of the zip, is noted in `budget`."""
    from coder_eval.board.task_page import list_files

    directory = view.entry.directory
    out = files_root / view.run_id
    count = 0
    for item in list_files(directory, directory, limit=None):
        dest = out / item["path"]
        dest.parent.mkdir(parents=True, exist_ok=True)
        if copy_file(directory / item["path"], dest, budget, f"{view.run_id}/{item['path']}"):
            count += 1
    skipped = write_run_zip(directory, files_root / f"{view.run_id}.zip", view.run_id)
    budget.notes.extend(f"{view.run_id}.zip: {note}" for note in skipped)
    return count
