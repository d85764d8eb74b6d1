"""A path that escapes the sandbox is a task-configuration error, not an agent failure."""

from __future__ import annotations

import os

import pytest
from helpers import spec

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade, grade_one
from coder_eval.models.status import FinalStatus


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt"])
def test_existing_escaping_literal_is_a_config_error(sandbox, tmp_path, path):
    (tmp_path / "outside.txt").write_text("secret")
    root = sandbox({"a.txt": ""})
    result, config_error = grade_one(spec(type="file_contains", path=path, includes=["x"]), CheckContext(root=root))
    assert config_error is not None and "outside the sandbox" in config_error
    assert result.evaluation_status == "not_evaluated"


def test_absent_escaping_literal_is_an_ordinary_fail(sandbox):
    root = sandbox({})
    result, config_error = grade_one(spec(type="file_exists", path="/no/such/file/anywhere"), CheckContext(root=root))
    assert config_error is None and result.score == 0.0


def test_planted_symlink_out_of_the_sandbox_fails_the_criterion(sandbox, tmp_path):
    """A link the agent planted is the agent's doing: the criterion fails, the task is not misconfigured."""
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    root = sandbox({})
    os.symlink(secret, root / "link.txt")
    for kind in ({"type": "file_contains", "includes": ["x"]}, {"type": "file_exists"}):
        result, config_error = grade_one(spec(path="link.txt", **kind), CheckContext(root=root))
        assert config_error is None and result.score == 0.0 and result.evaluation_status == "evaluated"
        assert "link" in result.details


def test_link_in_a_directory_on_the_way_is_refused_too(sandbox, tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "f.txt").write_text("x")
    root = sandbox({"real/f.txt": "x"})
    os.symlink(tmp_path / "outside", root / "dir")
    result, config_error = grade_one(
        spec(type="file_contains", path="dir/f.txt", includes=["x"]), CheckContext(root=root)
    )
    assert config_error is None and result.score == 0.0


def test_links_that_stay_inside_are_followed(sandbox):
    root = sandbox({"real/f.txt": "needle"})
    os.symlink("real", root / "alias")
    os.symlink("../real/f.txt", root / "real" / "g.txt")
    for path in ("alias/f.txt", "real/g.txt"):
        result, _ = grade_one(spec(type="file_contains", path=path, includes=["needle"]), CheckContext(root=root))
        assert result.score == 1.0, (path, result.details)


def test_a_path_written_outside_by_the_author_is_still_a_config_error(sandbox, tmp_path):
    (tmp_path / "secret.txt").write_text("x")
    root = sandbox({})
    _, config_error = grade_one(
        spec(type="file_contains", path="../secret.txt", includes=["x"]), CheckContext(root=root)
    )
    assert config_error is not None


def test_glob_drops_symlinks_that_escape(sandbox, tmp_path):
    (tmp_path / "secret.txt").write_text("x")
    root = sandbox({"real.txt": "x"})
    os.symlink(tmp_path / "secret.txt", root / "zlink.txt")
    result, config_error = grade_one(spec(type="file_contains", path="*.txt", includes=["x"]), CheckContext(root=root))
    assert config_error is None and result.score == 1.0 and "resolved: real.txt" in result.details


def test_task_with_config_error_ends_as_error_not_failure(sandbox):
    root = sandbox({"a.txt": ""})
    outcome = grade(
        [spec(type="file_exists", path="a.txt"), spec(type="file_exists", path="/etc/hostname")],
        CheckContext(root=root),
    )
    assert outcome.status is FinalStatus.ERROR
    assert outcome.config_errors
