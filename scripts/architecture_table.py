#!/usr/bin/env python3
"""Derive the "imports" column of the package table in docs/ARCHITECTURE.md from the code.

    .venv/bin/python scripts/architecture_table.py            # print what each unit imports
    .venv/bin/python scripts/architecture_table.py --check    # exit 1 when the page disagrees
    .venv/bin/python scripts/architecture_table.py --write    # rewrite the column in place

A unit is a top-level package (`engine/`) or module (`errors.py`) of `coder_eval`. Its imports
are the other units any of its modules import, lazily or under TYPE_CHECKING included (the same
graph import-linter checks). Imports of the package root itself (`__version__`) are left out.
A table row may name several units; its column then lists what they import from outside the row.
The job column is prose and stays hand-written: a unit missing from the table is reported, not
invented.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = "coder_eval"
DOC = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"
NOTHING = "nothing of ours"
UNIT_RE = re.compile(r"`([a-z_]+)(/|\.py)`")
SKIPPED_UNITS = frozenset({"__main__"})


@dataclass
class Row:
    line_index: int
    units: list[str]
    cells: list[str]


def unit_of(module: str) -> str | None:
    """`coder_eval.engine.run` -> `engine`; None for the package root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def unit_imports() -> dict[str, set[str]]:
    """Unit -> the other units its modules import."""
    import grimp

    graph = grimp.build_graph(ROOT, cache_dir=None)
    out: dict[str, set[str]] = {}
    for module in graph.modules:
        source = unit_of(module)
        if source is None or source in SKIPPED_UNITS:
            continue
        targets = out.setdefault(source, set())
        for imported in graph.find_modules_directly_imported_by(module):
            target = unit_of(imported)
            if target is not None and target != source:
                targets.add(target)
    return out


def table_rows(lines: list[str]) -> list[Row]:
    """Rows of the package table: those whose first cell names units in backticks."""
    rows = []
    for i, line in enumerate(lines):
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        units = [m.group(1) for m in UNIT_RE.finditer(cells[0])]
        if units and len(cells) == 3:
            rows.append(Row(i, units, cells))
    return rows


def imports_cell(units: list[str], graph: dict[str, set[str]]) -> str:
    names = sorted(set().union(*(graph.get(u, set()) for u in units)) - set(units))
    return ", ".join(names) if names else NOTHING


def problems(text: str, graph: dict[str, set[str]]) -> list[str]:
    """Every way the page's table disagrees with the import graph."""
    rows = table_rows(text.splitlines())
    found = []
    listed = {u for row in rows for u in row.units}
    for unit in sorted(set(graph) - listed):
        found.append(f"`{unit}` is not in the package table")
    for unit in sorted(listed - set(graph)):
        found.append(f"`{unit}` is in the package table but not in the code")
    for row in rows:
        want = imports_cell(row.units, graph)
        if row.cells[2] != want:
            found.append(f"{', '.join(row.units)}: the page says {row.cells[2]!r}, the code imports {want!r}")
    return found


def rewrite(text: str, graph: dict[str, set[str]]) -> str:
    """The page with every row's imports column replaced by what the code imports."""
    lines = text.splitlines()
    for row in table_rows(lines):
        lines[row.line_index] = f"| {row.cells[0]} | {row.cells[1]} | {imports_cell(row.units, graph)} |"
    return "\n".join(lines) + ("\n" if text.endswith("\n") else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/ARCHITECTURE.md disagrees")
    mode.add_argument("--write", action="store_true", help="rewrite the imports column in place")
    args = parser.parse_args(argv)
    graph = unit_imports()
    if args.write:
        DOC.write_text(rewrite(DOC.read_text(encoding="utf-8"), graph), encoding="utf-8")
    if args.check or args.write:
        found = problems(DOC.read_text(encoding="utf-8"), graph)
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    for unit in sorted(graph):
        print(f"{unit}: {imports_cell([unit], graph)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
