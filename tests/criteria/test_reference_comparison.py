"""reference_comparison: threshold, agent-file resolution, reference configuration errors, no leaks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import spec

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade_one
from coder_eval.criteria.registry import checker_for, registered_types
from coder_eval.errors import CheckerMisuseError
from coder_eval.models.results import CriterionResult

REFERENCE = '''
def checksum_of(records):
    """Sum every record's weight; the reference's answer."""
    secret_total = 0
    for record in records:
        if record.enabled:
            secret_total += record.weight * 7
    return secret_total
'''

RENAMED = """
def total_weight(items):
    acc = 0
    for it in items:
        if it.enabled:
            acc += it.weight * 3
    return acc
"""

UNRELATED = """
import json

class Config:
    def __init__(self, path):
        with open(path) as fh:
            self.data = json.load(fh)
"""


def write(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(exist_ok=True)
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    return root


def compare(
    tmp_path: Path,
    agent_files: dict[str, str],
    reference_files: dict[str, str] | None = None,
    **fields: object,
) -> CriterionResult:
    """Grade a reference_comparison spec; reference_files=None means the task has no reference."""
    fields = {"agent_file": "solution.py", "reference_file": "solution.py", **fields}
    reference_dir = None if reference_files is None else write(tmp_path / "reference", reference_files)
    ctx = CheckContext(root=write(tmp_path / "sandbox", agent_files), reference_dir=reference_dir)
    checker = checker_for("reference_comparison")
    assert checker is not None
    return checker.check(spec(type="reference_comparison", **fields), ctx)


def test_registered():
    assert "reference_comparison" in registered_types()


@pytest.mark.parametrize(
    ("agent", "method", "threshold", "passed"),
    [
        (REFERENCE, "ast", 1.0, True),  # identical: 1.0 passes even the strictest threshold
        (REFERENCE, "token", 1.0, True),
        (REFERENCE, "ast_shape", 1.0, True),
        (REFERENCE, "complexity", 0.5, False),  # the reference's complexity scores an identical file 7/15
        (RENAMED, "ast", 0.95, True),  # only the dropped docstring's nodes differ
        (RENAMED, "token", 0.99, False),
        (RENAMED, "ast_shape", 1.0, True),
        (UNRELATED, "ast", 0.5, False),
        (UNRELATED, "token", 0.7, False),
        (UNRELATED, "ast_shape", 0.3, False),
        (UNRELATED, "ast", 0.0, True),  # a zero threshold passes anything
    ],
)
def test_threshold_decides_pass(tmp_path, agent, method, threshold, passed):
    result = compare(
        tmp_path,
        {"solution.py": agent},
        {"solution.py": REFERENCE},
        comparison_method=method,
        similarity_threshold=threshold,
    )
    assert result.pass_threshold == threshold
    assert result.passed is passed
    assert result.error is None


def test_score_exactly_at_threshold_passes(tmp_path):
    probe = compare(tmp_path, {"solution.py": RENAMED}, {"solution.py": REFERENCE}, comparison_method="token")
    at = compare(
        tmp_path,
        {"solution.py": RENAMED},
        {"solution.py": REFERENCE},
        comparison_method="token",
        similarity_threshold=probe.score,
    )
    assert at.score == probe.score
    assert at.passed


def test_defaults_are_ast_and_point_eight(tmp_path):
    result = compare(tmp_path, {"solution.py": RENAMED}, {"solution.py": REFERENCE})
    assert result.pass_threshold == 0.8
    assert result.score == pytest.approx(0.97, abs=0.005)
    assert "ast similarity 0.970 against reference solution.py (threshold 0.8)" in result.details


@pytest.mark.parametrize(
    ("agent_files", "agent_file", "detail"),
    [
        ({}, "solution.py", "solution.py does not exist"),
        ({"other.py": REFERENCE}, "src/*.py", "no file matches src/*.py"),
        (
            {"src/a.py": REFERENCE, "src/b.py": REFERENCE},
            "src/*.py",
            "src/*.py is ambiguous: it matches 2 files",
        ),
        ({"solution.py/inner.py": REFERENCE}, "solution.py", "solution.py is a directory"),
    ],
)
def test_unusable_agent_file_scores_zero(tmp_path, agent_files, agent_file, detail):
    result = compare(tmp_path, agent_files, {"solution.py": REFERENCE}, agent_file=agent_file)
    assert result.score == 0.0
    assert not result.passed
    assert detail in result.details
    assert result.error is None


def test_glob_resolution_is_noted(tmp_path):
    result = compare(tmp_path, {"src/impl.py": REFERENCE}, {"solution.py": REFERENCE}, agent_file="src/*.py")
    assert result.score == 1.0
    assert result.details.startswith("resolved: src/impl.py; ")


def test_reference_in_subdirectory(tmp_path):
    reference = {"pkg/core.py": REFERENCE}
    result = compare(tmp_path, {"solution.py": REFERENCE}, reference, reference_file="pkg/core.py")
    assert result.score == 1.0


def test_non_python_reference_falls_back_to_tokens(tmp_path):
    js = "function add(a, b) { return a + b; }\n"
    result = compare(tmp_path, {"add.js": js}, {"add.js": js}, agent_file="add.js", reference_file="add.js")
    assert result.score == 1.0
    assert "add.js is not a Python file; compared text tokens instead" in result.details


def _symlinked_file(reference: Path) -> None:
    (reference / "real.py").write_text(REFERENCE, encoding="utf-8")
    os.symlink(reference / "real.py", reference / "solution.py")


def _symlinked_dir(reference: Path) -> None:
    (reference / "real").mkdir()
    (reference / "real" / "solution.py").write_text(REFERENCE, encoding="utf-8")
    os.symlink(reference / "real", reference / "linked")


@pytest.mark.parametrize(
    ("reference_files", "reference_file", "setup", "message"),
    [
        (None, "solution.py", None, "'solution.py' needs a reference solution, but the task has none"),
        (
            {"other.py": REFERENCE},
            "solution.py",
            None,
            "'solution.py' does not exist in the reference directory",
        ),
        ({"pkg/a.py": REFERENCE}, "pkg", None, "'pkg' is a directory in the reference directory"),
        ({}, "solution.py", _symlinked_file, "'solution.py' goes through a symlink"),
        ({}, "linked/solution.py", _symlinked_dir, "'linked/solution.py' goes through a symlink"),
    ],
)
def test_reference_misconfiguration_raises(tmp_path, reference_files, reference_file, setup, message):
    if setup is not None:
        setup(write(tmp_path / "reference", reference_files))
    with pytest.raises(CheckerMisuseError, match=message):
        compare(tmp_path, {"solution.py": REFERENCE}, reference_files, reference_file=reference_file)


def test_missing_reference_is_reported_as_configuration_error(tmp_path):
    sandbox = write(tmp_path / "sandbox", {"solution.py": REFERENCE})
    ctx = CheckContext(root=sandbox, reference_dir=tmp_path / "nope")
    criterion = spec(type="reference_comparison", agent_file="solution.py", reference_file="solution.py")
    result, config_error = grade_one(criterion, ctx)
    assert config_error is not None
    assert "task configuration error in reference_comparison" in config_error
    assert result.evaluation_status == "not_evaluated"


def test_reference_is_checked_before_the_agent_file(tmp_path):
    with pytest.raises(CheckerMisuseError):
        compare(tmp_path, {}, None)


@pytest.mark.parametrize("method", ["ast", "token", "complexity", "ast_shape"])
@pytest.mark.parametrize(
    ("agent", "reference_name"),
    [
        (RENAMED, "solution.py"),
        (UNRELATED, "solution.py"),
        ("def broken(:\n", "solution.py"),  # fallback / parse-error paths
        (RENAMED, "solution.txt"),  # non-Python fallback path
    ],
)
def test_details_never_quote_the_reference(tmp_path, method, agent, reference_name):
    result = compare(
        tmp_path,
        {"solution.py": agent},
        {reference_name: REFERENCE},
        reference_file=reference_name,
        comparison_method=method,
    )
    for word in ("checksum_of", "secret_total", "records", "weight", "enabled", "answer"):
        assert word not in result.details
    for line in REFERENCE.splitlines():
        if line.strip():
            assert line.strip() not in result.details


def test_unparseable_reference_names_only_the_line(tmp_path):
    reference = "def leaked_name(:\n    secret = 1\n"
    files = {"solution.py": reference}
    result = compare(tmp_path, {"solution.py": RENAMED}, files, comparison_method="complexity")
    assert result.score == 0.0
    assert "reference source does not parse as Python (line 1)" in result.details
    assert "leaked_name" not in result.details
