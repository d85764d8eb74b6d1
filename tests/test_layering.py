"""The package structure stays as docs/ARCHITECTURE.md describes it.

The dependency direction is declared as import-linter contracts in pyproject.toml
(`[tool.importlinter]`): import-linter is the standard tool for this, follows indirect import
chains (a lower package reaching a higher one through a third), and reads lazy and
TYPE_CHECKING imports too, which a hand-written check would have to re-implement. These tests
run it on the real package, prove that it catches a planted violation, and add two rules it
does not express: a size limit per source file and no private names imported across modules.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "coder_eval"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
MAX_LINES = 400


def _lint_imports(cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", str(REPO / "pyproject.toml")],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(path: Path, root: Path = PACKAGE) -> str:
    return path.relative_to(root).as_posix()


def test_import_contracts_hold() -> None:
    result = _lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "planted", "contract"),
    [
        ("models/status.py", "import coder_eval.engine.run", "models imports nothing of ours outside models"),
        ("gateway/types.py", "from coder_eval.agents import events", "Packages depend downwards only"),
        ("common/suggest.py", "from coder_eval.errors import UsageError", "common (neutral helpers)"),
    ],
)
def test_contracts_catch_a_planted_import(tmp_path: Path, module: str, planted: str, contract: str) -> None:
    """Copy the package, add one upward import, and run the same contracts on the copy."""
    copy = tmp_path / "src" / "coder_eval"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    target = copy / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{planted}  # planted by the test\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "src")}

    result = _lint_imports(tmp_path, env)

    assert result.returncode != 0, result.stdout
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken
    planted_module = "coder_eval." + module.removesuffix(".py").replace("/", ".")
    assert planted_module in broken  # the copy was analysed, and the report names the culprit


def test_no_source_file_exceeds_the_size_limit() -> None:
    sizes = {_rel(p): len(p.read_text(encoding="utf-8").splitlines()) for p in _sources()}
    too_long = {name: n for name, n in sizes.items() if n > MAX_LINES}
    assert not too_long, f"split these files (limit {MAX_LINES} lines): {too_long}"


def _private_imports(path: Path, root: Path = PACKAGE) -> list[str]:
    """`from coder_eval.x import _y` lines in `path` (a module under `root`) that reach into another module."""
    own = "coder_eval." + _rel(path, root).removesuffix(".py").replace("/", ".")
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or node.level or not (node.module or "").startswith("coder_eval"):
            continue
        for alias in node.names:
            dunder = alias.name.startswith("__") and alias.name.endswith("__")
            if alias.name.startswith("_") and not dunder and node.module != own:
                found.append(f"{_rel(path, root)}:{node.lineno} imports {alias.name} from {node.module}")
    return found


def test_no_private_name_is_imported_across_modules() -> None:
    offenders = [line for p in _sources() for line in _private_imports(p)]
    assert not offenders, "make these names public or move them: " + "; ".join(offenders)


def test_private_import_check_sees_a_violation(tmp_path: Path) -> None:
    module = tmp_path / "engine" / "sample.py"
    module.parent.mkdir()
    module.write_text(
        "from coder_eval import __version__\n"
        "from coder_eval.engine.sample import _own_helper\n"
        "from coder_eval.engine.units import RunUnit, _hidden\n",
        encoding="utf-8",
    )
    assert _private_imports(module, tmp_path) == ["engine/sample.py:3 imports _hidden from coder_eval.engine.units"]
