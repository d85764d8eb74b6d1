"""docs/ARCHITECTURE.md's package table matches the import graph of the code."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    if "architecture_table" in sys.modules:
        return sys.modules["architecture_table"]
    spec = importlib.util.spec_from_file_location("architecture_table", REPO / "scripts" / "architecture_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


def test_package_table_matches_the_imports() -> None:
    table = _script()
    found = table.problems(table.DOC.read_text(encoding="utf-8"), table.unit_imports())
    assert not found, "run scripts/architecture_table.py --write (and describe new packages): " + "; ".join(found)


def test_the_check_notices_a_wrong_column_and_a_missing_package() -> None:
    table = _script()
    graph = {"models": set(), "records": {"models", "errors"}, "errors": set()}
    page = "\n".join(
        [
            "| package | job | imports |",
            "| --- | --- | --- |",
            "| `records/` | Records. | models |",
            "| `models/` | Schemas. | nothing of ours |",
        ]
    )
    assert table.problems(page, graph) == [
        "`errors` is not in the package table",
        "records: the page says 'models', the code imports 'errors, models'",
    ]
    fixed = table.rewrite(page, graph)
    assert "| `records/` | Records. | errors, models |" in fixed
    assert table.problems(fixed, graph) == ["`errors` is not in the package table"]


def test_a_row_may_group_units() -> None:
    table = _script()
    graph = {"errors": set(), "pricing": {"models"}, "models": set()}
    page = "| `errors.py`, `pricing.py` | Small modules. | models |\n| `models/` | Schemas. | nothing of ours |"
    assert table.problems(page, graph) == []
