"""file_exists, file_contains, file_check, file_matches_regex: every field and scoring rule."""

from __future__ import annotations

import pytest
from helpers import check

APP = "import datetime\nprint('Hello, Claude!')\n# TODO later\n"


@pytest.mark.parametrize(
    ("files", "path", "score"),
    [
        ({"app.py": ""}, "app.py", 1.0),
        ({}, "app.py", 0.0),
        ({"src/a.py": "", "src/b.py": ""}, "src/*.py", 1.0),  # existence: several matches still pass
        ({"x/y/z.flow": ""}, "**/*.flow", 1.0),
        ({"a.txt": ""}, "*.py", 0.0),
    ],
)
def test_file_exists(sandbox, files, path, score):
    assert check(sandbox(files), type="file_exists", path=path).score == score


@pytest.mark.parametrize(
    ("includes", "excludes", "score"),
    [
        (["Hello, Claude!", "datetime"], [], 1.0),
        (["Hello, Claude!", "missing"], [], 0.5),
        (["nope1", "nope2"], [], 0.0),
        ([], ["TODO"], 0.0),
        ([], ["FIXME"], 1.0),
        (["datetime"], ["TODO"], 0.5),  # mean of includes 1.0 and excludes 0.0
        (["datetime", "x"], ["TODO", "FIXME"], 0.5),
    ],
)
def test_file_contains_scores_mean_of_categories(sandbox, includes, excludes, score):
    root = sandbox({"app.py": APP})
    result = check(root, type="file_contains", path="app.py", includes=includes, excludes=excludes)
    assert result.score == pytest.approx(score)


def test_file_contains_missing_file_scores_zero(sandbox):
    result = check(sandbox({}), type="file_contains", path="app.py", includes=["x"])
    assert result.score == 0.0
    assert "does not exist" in result.details


@pytest.mark.parametrize(
    ("fields", "score"),
    [
        ({}, 1.0),  # pure existence
        ({"includes": ["datetime"]}, 1.0),  # only active categories count
        ({"includes": ["datetime", "zzz"]}, 0.5),
        ({"excludes": ["TODO"]}, 0.0),
        ({"patterns": [{"pattern": r"print\(.*\)"}]}, 1.0),
        ({"patterns": [{"pattern": r"print\(.*\)", "must_match": False}]}, 0.0),
        ({"patterns": [{"pattern": "HELLO", "flags": 2}]}, 1.0),
        ({"includes": ["datetime"], "excludes": ["TODO"], "patterns": [{"pattern": "nomatch"}]}, 1 / 3),
    ],
)
def test_file_check_averages_active_subchecks(sandbox, fields, score):
    result = check(sandbox({"main.py": APP}), type="file_check", path="main.py", **fields)
    assert result.score == pytest.approx(score)


def test_file_check_missing_file_is_zero_even_without_subchecks(sandbox):
    assert check(sandbox({}), type="file_check", path="main.py").score == 0.0


@pytest.mark.parametrize(
    ("pattern", "must_match", "flags", "score"),
    [
        (r"^print", True, 0, 0.0),  # ^ anchors the whole text without MULTILINE
        (r"^print", True, 8, 1.0),
        (r"hello", True, 0, 0.0),
        (r"hello", True, 2, 1.0),
        (r"TODO", False, 0, 0.0),
        (r"FIXME", False, 0, 1.0),
        (r"datetime.*Claude", True, 0, 0.0),  # . stops at newlines
        (r"datetime.*Claude", True, 16, 1.0),
    ],
)
def test_file_matches_regex(sandbox, pattern, must_match, flags, score):
    result = check(
        sandbox({"app.py": APP}),
        type="file_matches_regex",
        path="app.py",
        pattern=pattern,
        must_match=must_match,
        flags=flags,
    )
    assert result.score == score


def test_must_not_match_on_missing_file_still_fails(sandbox):
    result = check(sandbox({}), type="file_matches_regex", path="app.py", pattern="x", must_match=False)
    assert result.score == 0.0


def test_ambiguous_glob_scores_zero_and_lists_matches(sandbox):
    files = {f"out/f{i:02d}.txt": "hit" for i in range(12)}
    result = check(sandbox(files), type="file_contains", path="out/*.txt", includes=["hit"])
    assert result.score == 0.0
    assert "ambiguous" in result.details
    assert "out/f00.txt" in result.details and "(+2 more)" in result.details


def test_glob_that_resolves_to_one_file_echoes_it(sandbox):
    result = check(
        sandbox({"wrap/app/main.flow": "core.logic.decision"}),
        type="file_contains",
        path="**/*.flow",
        includes=["core.logic.decision"],
    )
    assert result.score == 1.0
    assert "resolved: wrap/app/main.flow" in result.details


def test_literal_path_with_glob_characters_is_graded_as_itself(sandbox):
    root = sandbox({"report[2024].json": "real", "report2.json": "decoy"})
    result = check(root, type="file_contains", path="report[2024].json", includes=["real"])
    assert result.score == 1.0
    assert "resolved" not in result.details


def test_glob_skips_ignored_directories(sandbox):
    root = sandbox({".venv/lib/x.flow": "", "node_modules/p/x.flow": "", "app/x.flow": "ok"})
    result = check(root, type="file_contains", path="**/*.flow", includes=["ok"])
    assert result.score == 1.0
    assert "resolved: app/x.flow" in result.details


def test_literal_segment_opts_into_an_ignored_directory(sandbox):
    root = sandbox({"dist/js/bundle.js": "bundle"})
    assert check(root, type="file_contains", path="dist/**/*.js", includes=["bundle"]).score == 1.0
    assert check(root, type="file_exists", path="**/*.js").score == 0.0


def test_negated_ignore_pattern_lets_a_wildcard_find_the_directory(sandbox):
    root = sandbox({"dist/js/bundle.js": "bundle"})
    assert check(root, ignore=["!dist"], type="file_exists", path="**/*.js").score == 1.0


def test_extra_ignore_pattern_hides_matches(sandbox):
    root = sandbox({"a.bak": "", "b.txt": ""})
    assert check(root, ignore=["*.bak"], type="file_exists", path="*.bak").score == 0.0


def test_glob_skips_directories(sandbox):
    root = sandbox({"pkg.flow/inner.txt": "x"})
    assert check(root, type="file_exists", path="*.flow").score == 0.0


def test_matches_are_sorted(sandbox):
    root = sandbox({"b.txt": "", "a.txt": "", "c.txt": ""})
    result = check(root, type="file_contains", path="*.txt", includes=["x"])
    assert result.details.index("a.txt") < result.details.index("b.txt") < result.details.index("c.txt")
