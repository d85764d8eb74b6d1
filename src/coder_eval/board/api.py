"""The board's read-only JSON API: one dispatcher used by the server and by the static export.

Keys are paths such as `runs`, `runs/<id>`, `runs/<id>/task/<replicate dir>`; the server maps
`/api/<key>` onto `BoardApi.get`, and the exporter writes the same payloads to files.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from coder_eval.board.cache import FileCache
from coder_eval.board.catalog import RunCatalog, RunEntry, RunNotFoundError
from coder_eval.board.compare import compare_payload
from coder_eval.board.experiment_page import EXPERIMENT_JSON, SUITE_JSON, experiment_payload, find_suites, suite_payload
from coder_eval.board.flaky_page import flaky_payload
from coder_eval.board.paths import PathRefusedError, contained
from coder_eval.board.run_pages import digest, rows_page, run_payload
from coder_eval.board.runs import RunReader, RunView
from coder_eval.board.task_page import preview_payload, task_payload
from coder_eval.board.trajectory import diff_payload
from coder_eval.board.trends import DEFAULT_TREND_RUNS, trends_payload
from coder_eval.errors import RecordError
from coder_eval.models.experiment_results import ExperimentResult
from coder_eval.models.regrades import RunRegrades
from coder_eval.models.results import EvaluationResult
from coder_eval.models.suite import SuiteRollup
from coder_eval.records.layout import REGRADES_JSON, RUN_JSON, TASK_JSON

DIFF_SEPARATOR = "~"
"""Between the two units of a `diff/` key: no variant, task or row id can be `~` (models/base.py)."""

M = TypeVar("M", bound=BaseModel)


class ApiError(Exception):
    """A request the board answers with an HTTP error: `status` and a one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _int(query: Mapping[str, str], name: str, default: int | None) -> int | None:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ApiError(400, f"{name} must be a whole number, not {raw!r}") from None


class BoardApi:
    def __init__(self, catalog: RunCatalog, reader: RunReader | None = None) -> None:
        self.catalog = catalog
        self.reader = reader or RunReader(FileCache())

    # -- lookups -----------------------------------------------------------------------------

    def entry(self, run_id: str) -> RunEntry:
        try:
            return self.catalog.find(run_id)
        except RunNotFoundError:
            raise ApiError(404, f"no run {run_id!r} under the board's runs directory") from None

    def view(self, entry: RunEntry) -> RunView:
        try:
            return self.reader.view(entry)
        except RecordError as exc:
            raise ApiError(500, str(exc)) from None

    def views(self) -> list[RunView]:
        """Every readable run, newest first; an unreadable run.json is left out, not fatal."""
        out = []
        for entry in self.catalog.runs():
            try:
                out.append(self.reader.view(entry))
            except RecordError:
                continue
        out.sort(key=lambda v: (v.summary.start_time, v.run_id), reverse=True)
        return out

    # -- dispatch ----------------------------------------------------------------------------

    def get(self, key: str, query: Mapping[str, str] | None = None) -> Any:
        """The payload for `key`; ApiError for unknown keys, missing runs and refused paths."""
        query = query or {}
        parts = key.strip("/").split("/")
        head = parts[0]
        if key.strip("/") == "runs":
            return [self.digest(v) for v in self.views()]
        if head == "trends" and len(parts) == 1:
            limit = _int(query, "limit", DEFAULT_TREND_RUNS) or DEFAULT_TREND_RUNS
            return trends_payload(list(reversed(self.views()[:limit])))
        if head == "compare" and len(parts) == 3:
            return compare_payload(self.view(self.entry(parts[1])), self.view(self.entry(parts[2])))
        if head == "runs" and len(parts) >= 2:
            return self._run_key(parts[1], parts[2:], query)
        if head == "flaky" and len(parts) == 1:
            limit = _int(query, "limit", DEFAULT_TREND_RUNS) or DEFAULT_TREND_RUNS
            return self.flaky(limit)
        if head == "diff" and DIFF_SEPARATOR in parts[2:]:
            cut = parts.index(DIFF_SEPARATOR, 2)
            left, right = parts[1:cut], parts[cut + 1 :]
            if len(left) < 2 or len(right) < 2:
                raise ApiError(404, f"a diff names two units: diff/<run>/<unit>/{DIFF_SEPARATOR}/<run>/<unit>")
            return self.diff((left[0], "/".join(left[1:])), (right[0], "/".join(right[1:])))
        raise ApiError(404, f"unknown API path {key!r}")

    def _run_key(self, run_id: str, rest: list[str], query: Mapping[str, str]) -> Any:
        entry = self.entry(run_id)
        if not rest:
            return self.run(entry)
        what, rel = rest[0], "/".join(rest[1:])
        try:
            if what == "rows" and not rel:
                return rows_page(self.view(entry), _int(query, "offset", 0) or 0, _int(query, "limit", None))
            if what == "task" and rel:
                return self.task(entry, rel)
            if what == "preview" and rel:
                return preview_payload(entry.directory, rel)
            if what == "experiment" and not rel:
                return self.experiment(entry)
            if what == "suite" and rel:
                return self.suite(entry, rel)
        except PathRefusedError as exc:
            raise ApiError(403, str(exc)) from None
        except (FileNotFoundError, IsADirectoryError):
            raise ApiError(404, f"{rel!r} is not a file of run {entry.run_id!r}") from None
        raise ApiError(404, f"unknown API path under run {entry.run_id!r}: {'/'.join(rest)!r}")

    # -- payloads ----------------------------------------------------------------------------

    def run(self, entry: RunEntry) -> dict[str, Any]:
        view = self.view(entry)
        older = [v for v in self.views() if v.summary.start_time < view.summary.start_time]
        if view.state == "finished":  # the row-derived part is worked out once per run.json version
            payload: dict[str, Any] = self.reader.cache.get(
                "run-page", entry.directory / RUN_JSON, lambda _: run_payload(view)
            )
        else:
            payload = run_payload(view)
        return {
            **payload,
            "previous": older[0].run_id if older else None,
            "suites": find_suites(entry.directory),
            "has_experiment": (entry.directory / EXPERIMENT_JSON).is_file() and payload["has_arms"],
        }

    def digest(self, view: RunView) -> dict[str, Any]:
        if view.state != "finished":
            return digest(view)
        cached: dict[str, Any] = self.reader.cache.get(
            "digest", view.entry.directory / RUN_JSON, lambda _: digest(view)
        )
        return cached

    def task(self, entry: RunEntry, rel: str) -> dict[str, Any]:
        result = self.record(entry, rel)
        payload = task_payload(entry.run_id, entry.directory, rel, result)
        return {**payload, "compare_with": self.units_like(entry, rel, result)}

    def units_like(self, entry: RunEntry, rel: str, result: EvaluationResult) -> list[dict[str, Any]]:
        """Units a trajectory diff of this one makes sense with: the same task in this run (other replicates
        and arms), then the same replicate in the other recent runs, newest first."""
        here = [
            {
                "run_id": entry.run_id,
                "path": row["path"],
                "variant_id": row["variant_id"],
                "replicate_index": row["replicate_index"],
                "status": row["status"],
            }
            for row in self.view(entry).rows
            if row["task_id"] == result.task_id and row["path"] != rel
        ]
        elsewhere = [
            {
                "run_id": view.run_id,
                "path": row["path"],
                "variant_id": row["variant_id"],
                "replicate_index": row["replicate_index"],
                "status": row["status"],
            }
            for view in self.views()[:DEFAULT_TREND_RUNS]
            if view.run_id != entry.run_id
            for row in view.rows
            if row["path"] == rel and row["task_id"] == result.task_id
        ]
        return here + elsewhere

    def record(self, entry: RunEntry, rel: str) -> EvaluationResult:
        """A unit's task.json (read once per version); `rel` stays inside the run."""
        path = contained(entry.directory, rel) / TASK_JSON
        if not path.is_file():
            raise FileNotFoundError(rel)
        try:
            return self.reader.task(path)
        except RecordError as exc:
            raise ApiError(500, str(exc)) from None

    def diff(self, left: tuple[str, str], right: tuple[str, str]) -> dict[str, Any]:
        """Two units side by side: `diff/<run>/<unit path>/~/<run>/<unit path>`."""
        sides = []
        for run_id, rel in (left, right):
            entry = self.entry(run_id)
            try:
                sides.append((entry.run_id, rel, self.record(entry, rel)))
            except PathRefusedError as exc:
                raise ApiError(403, str(exc)) from None
            except (FileNotFoundError, IsADirectoryError):
                raise ApiError(404, f"{rel!r} is not a unit of run {entry.run_id!r}") from None
        return diff_payload(sides[0], sides[1])

    def flaky(self, limit: int) -> dict[str, Any]:
        """Unstable tasks over the most recent runs, with their evidence and any grader defects."""
        views = list(reversed(self.views()[:limit]))
        return flaky_payload(views, self.record_of, self.regrades_of)

    def record_of(self, view: RunView, rel: str) -> EvaluationResult | None:
        try:
            return self.record(view.entry, rel)
        except (ApiError, PathRefusedError, FileNotFoundError, IsADirectoryError):
            return None

    def regrades_of(self, view: RunView) -> RunRegrades | None:
        path = view.entry.directory / REGRADES_JSON
        if not path.is_file():
            return None
        try:
            return self._load(path, RunRegrades)
        except ApiError:
            return None

    def experiment(self, entry: RunEntry) -> dict[str, Any]:
        path = entry.directory / EXPERIMENT_JSON
        result = self._load(path, ExperimentResult)
        payload: dict[str, Any] = self.reader.cache.get(
            "experiment-page", path, lambda _: experiment_payload(entry.run_id, result)
        )
        return payload

    def suite(self, entry: RunEntry, rel: str) -> dict[str, Any]:
        path = contained(entry.directory, rel) / SUITE_JSON
        return suite_payload(entry.run_id, rel, self._load(path, SuiteRollup))

    def _load(self, path: Path, model: type[M]) -> M:
        def parse(p: Path) -> M:
            try:
                return model.model_validate_json(p.read_bytes())
            except ValidationError as exc:
                problem = exc.errors(include_url=False)[0]["msg"]
                raise ApiError(500, f"{p} is not a valid {p.name}: {problem}") from None

        if not path.is_file():
            raise FileNotFoundError(path.name)
        loaded: M = self.reader.cache.get(model.__name__, path, parse)
        return loaded
