"""Dataset fan-out: one task file, one task per row, `${row.x}` substituted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from coder_eval.errors import TaskConfigError
from coder_eval.loading.safe_read import read_input_text
from coder_eval.models.base import IDENTIFIER_RE, MAX_ID_LENGTH
from coder_eval.models.task_parts import DatasetConfig

_PLACEHOLDER = re.compile(r"\$\{row\.([^}]+)\}")


def read_rows(dataset: DatasetConfig, task_dir: Path, source: Path) -> list[dict[str, Any]]:
    """Inline rows, or JSONL files (relative to the task YAML) concatenated in order."""
    if dataset.rows is not None:
        return [dict(r) for r in dataset.rows]
    rows: list[dict[str, Any]] = []
    for i, rel in enumerate(dataset.paths or []):
        path = (task_dir / rel).resolve()
        field = f"dataset.paths[{i}]"
        text = read_input_text(path, source=source, field=field, what="dataset file")
        for n, line in enumerate(text.split("\n"), 1):  # JSONL: only \n ends a record (not U+2028 etc.)
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskConfigError.single(source, f"{rel} line {n} is not valid JSON ({exc.msg})", field) from None
            if not isinstance(row, dict):
                raise TaskConfigError.single(source, f"{rel} line {n} must be a JSON object", field)
            rows.append(row)
    return rows


def check_row_ids(task_id: str, rows: list[dict[str, Any]], id_field: str, source: Path) -> list[str]:
    """Every row needs a unique, directory-safe id."""
    if not rows:
        raise TaskConfigError.single(source, f"Dataset for task '{task_id}' is empty", "dataset")
    ids: list[str] = []
    seen: set[str] = set()
    for row in rows:
        if id_field not in row or row[id_field] is None:
            raise TaskConfigError.single(
                source,
                f"Dataset row for task '{task_id}' missing id_field '{id_field}': {json.dumps(row)[:200]}",
                "dataset.id_field",
            )
        rid = str(row[id_field])
        if not IDENTIFIER_RE.fullmatch(rid) or len(rid) > MAX_ID_LENGTH:
            raise TaskConfigError.single(
                source,
                f"Dataset row id '{rid}' must match {IDENTIFIER_RE.pattern} (letters, digits, underscore, hyphen, dot) "
                f"and be at most {MAX_ID_LENGTH} characters (it names a directory)",
                "dataset",
            )
        if rid in seen:
            raise TaskConfigError.single(source, f"Duplicate dataset row id for task '{task_id}': '{rid}'", "dataset")
        seen.add(rid)
        ids.append(rid)
    return ids


def _render_value(value: Any, name: str) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        raise TypeError(f"${{row.{name}}}: value must be a scalar")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def substitute(text: str, row: dict[str, Any]) -> str:
    """Replace `${row.name}` placeholders; unknown names raise KeyError, containers TypeError."""

    def repl(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in row:
            raise KeyError(f"${{row.{name}}}: key not found (available: {sorted(row)})")
        return _render_value(row[name], name)

    return _PLACEHOLDER.sub(repl, text)


def substitute_leaves(value: Any, row: dict[str, Any]) -> Any:
    """Substitute in every string leaf of a nested structure."""
    if isinstance(value, str):
        return substitute(value, row)
    if isinstance(value, list):
        return [substitute_leaves(v, row) for v in value]
    if isinstance(value, dict):
        return {k: substitute_leaves(v, row) for k, v in value.items()}
    return value


DOCKER_ROW_FIELDS = ("image", "dockerfile_path", "working_dir")
"""`sandbox.docker` fields (besides `build.args` values) where `${row.x}` is substituted: one image per row."""


def docker_with_row(docker: Any, row: dict[str, Any]) -> Any:
    """`sandbox.docker` with `${row.x}` substituted in its image fields and build-arg values."""
    if not isinstance(docker, dict):
        return docker
    out = dict(docker)
    for name in DOCKER_ROW_FIELDS:
        if isinstance(out.get(name), str):
            out[name] = substitute(out[name], row)
    build = out.get("build")
    if isinstance(build, dict) and isinstance(build.get("args"), dict):
        out["build"] = {**build, "args": substitute_leaves(build["args"], row)}
    return out


def docker_placeholders(docker: Any) -> list[str]:
    """Where `sandbox.docker` names `${row.x}` (for a task without a dataset, where nothing fills it)."""
    if not isinstance(docker, dict):
        return []
    found = [f"sandbox.docker.{n}" for n in DOCKER_ROW_FIELDS if _PLACEHOLDER.search(str(docker.get(n) or ""))]
    build = docker.get("build")
    args = build.get("args") if isinstance(build, dict) else None
    if isinstance(args, dict):
        found += [f"sandbox.docker.build.args.{k}" for k, v in args.items() if _PLACEHOLDER.search(str(v))]
    return found


SOURCE_ROW_FIELDS = {"repo": ("url", "commit"), "template_dir": ("path", "mount_point")}
"""Template-source fields where `${row.x}` is substituted (with starter files' paths, never their
content, which may well hold `${...}` of its own: a shell or JavaScript template)."""


def sources_with_row(sources: Any, row: dict[str, Any]) -> Any:
    """`sandbox.template_sources` with `${row.x}` substituted where one row's checkout or files differ."""
    if not isinstance(sources, list):
        return sources
    out: list[Any] = []
    for source in sources:
        if not isinstance(source, dict):
            out.append(source)
            continue
        source = dict(source)
        for name in SOURCE_ROW_FIELDS.get(str(source.get("type")), ()):
            if isinstance(source.get(name), str):
                source[name] = substitute(source[name], row)
        if source.get("type") == "starter_files" and isinstance(source.get("files"), list):
            source["files"] = [
                {**f, "path": substitute(f["path"], row)}
                if isinstance(f, dict) and isinstance(f.get("path"), str)
                else f
                for f in source["files"]
            ]
        out.append(source)
    return out


def row_document(raw: dict[str, Any], row: dict[str, Any]) -> dict[str, Any]:
    """The raw task document for one row: prompt, criteria and docker image fields substituted, dataset removed."""
    doc = {k: v for k, v in raw.items() if k != "dataset"}
    if isinstance(doc.get("initial_prompt"), str):
        doc["initial_prompt"] = substitute(doc["initial_prompt"], row)
    if "success_criteria" in doc:
        doc["success_criteria"] = substitute_leaves(doc["success_criteria"], row)
    sandbox = doc.get("sandbox")
    if isinstance(sandbox, dict) and "docker" in sandbox:
        sandbox = doc["sandbox"] = {**sandbox, "docker": docker_with_row(sandbox["docker"], row)}
    if isinstance(sandbox, dict) and "template_sources" in sandbox:
        doc["sandbox"] = {**sandbox, "template_sources": sources_with_row(sandbox["template_sources"], row)}
    return doc
