"""`coder-eval migrate`: what each rule rewrites, what it keeps (comments, order, layout) and where it writes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from coder_eval.migrate.files import plan_migration, write_migration
from coder_eval.migrate.roundtrip import load


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


LEGACY = """\
# Suite: calculators (owned by team x)
task_id: calc
description: "Add two numbers"   # shown in reports
initial_prompt: |
  Write calc.py with add(a, b).
max_iterations: 8
reference:
  code: |
    def add(a, b):
        return a + b
success_criteria:
  - type: command_not_executed   # never touch git history
    description: "no force push"
    command_pattern: 'git push --force'
    min_count: 3
  - type: reference_comparison
    description: close to the reference
    agent_file: calc.py
    similarity_threshold: 0.7
"""

MIGRATED = """\
# Suite: calculators (owned by team x)
task_id: calc
description: "Add two numbers"   # shown in reports
initial_prompt: |
  Write calc.py with add(a, b).
reference:
  directory: reference
success_criteria:
  - type: command_executed       # never touch git history
    description: "no force push"
    command_pattern: 'git push --force'
    min_count: 0
    max_count: 0
  - type: reference_comparison
    description: close to the reference
    agent_file: calc.py
    reference_file: calc.py
    similarity_threshold: 0.7
"""


def test_a_legacy_file_is_rewritten_keeping_comments_quotes_and_order(tmp_path: Path) -> None:
    path = write(tmp_path / "calc.yaml", LEGACY)
    (result,) = plan_migration([str(path)])
    assert result.after == MIGRATED
    assert result.problems == []
    assert [str(n.relative) for n in result.rewrite.new_files] == ["reference/calc.py"]
    assert path.read_text() == LEGACY  # planning writes nothing
    write_migration(result)
    assert path.read_text() == MIGRATED
    assert (tmp_path / "reference" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_the_diff_shows_the_task_and_each_new_file(tmp_path: Path) -> None:
    (result,) = plan_migration([str(write(tmp_path / "calc.yaml", LEGACY))])
    diff = result.diff()
    assert "-max_iterations: 8\n" in diff and "+  directory: reference\n" in diff
    assert f"+++ new file {tmp_path / 'reference' / 'calc.py'} (" in diff


def test_a_clean_file_is_left_byte_for_byte(tmp_path: Path) -> None:
    text = (
        "task_id: ok\ndescription: d\ninitial_prompt: p\n"
        "success_criteria:\n- {type: file_exists, path: a, description: a}\n"
    )
    (result,) = plan_migration([str(write(tmp_path / "ok.yaml", text))])
    assert not result.changed and result.after == text


@pytest.mark.parametrize(
    "text",
    [
        "a:\n  b: 1\n  c:\n    - x\n    - y\n",  # lists indented under their key
        "a:\n  b: 1\n  c:\n  - x\n  - y\n",  # lists flush with their key
        "a:\n    b: 1\n    c:\n        - x\n",  # four-space mappings
        "a: null\nb: null\nc: 1\n",  # nulls as written: null ...
        "a: ~\nb: 1\n",  # ... or ~ ...
        "a:\nb: 1\n",  # ... or nothing
    ],
)
def test_layouts_round_trip_unchanged(text: str) -> None:
    assert load(text, "x.yaml").dump() == text


def test_the_conformance_corpus_round_trips_byte_for_byte(conformance: Path) -> None:
    files = sorted(conformance.rglob("*.yaml"))
    assert len(files) >= 50
    assert [
        f for f in files if load(f.read_text(encoding="utf-8"), str(f)).dump() != f.read_text(encoding="utf-8")
    ] == []


def test_reference_file_is_copied_into_a_directory_and_the_original_kept(tmp_path: Path) -> None:
    write(tmp_path / "solutions" / "answer.py", "print(42)\n")
    path = write(
        tmp_path / "t.yaml",
        """\
        task_id: t
        description: d
        initial_prompt: p
        reference: {file: solutions/answer.py}
        success_criteria:
        - {type: reference_comparison, description: r, agent_file: answer.py}
        """,
    )
    (result,) = plan_migration([str(path)])
    write_migration(result)
    assert "reference: {directory: reference}" in path.read_text()
    assert "reference_file: answer.py" in path.read_text()
    assert (tmp_path / "reference" / "answer.py").read_text() == "print(42)\n"
    assert (tmp_path / "solutions" / "answer.py").is_file()


def test_reference_file_naming_a_directory_becomes_that_directory(tmp_path: Path) -> None:
    (tmp_path / "sol").mkdir()
    path = write(tmp_path / "t.yaml", "task_id: t\ndescription: d\ninitial_prompt: p\nreference: {file: sol}\n")
    (result,) = plan_migration([str(path)])
    assert "reference: {directory: sol}" in result.after and not result.rewrite.new_files


def test_a_missing_reference_file_is_left_for_the_author(tmp_path: Path) -> None:
    text = "task_id: t\ndescription: d\ninitial_prompt: p\nreference: {file: gone.py}\n"
    (result,) = plan_migration([str(write(tmp_path / "t.yaml", text))])
    assert not result.changed
    assert any("gone.py" in line and "does not exist" in line for line in result.rewrite.left)


def test_tasks_side_by_side_never_share_a_reference_directory(tmp_path: Path) -> None:
    body = (
        "description: d\ninitial_prompt: p\nreference:\n  code: '{code}'\n"
        "success_criteria:\n- {{type: file_exists, path: a, description: a}}\n"
    )
    write(tmp_path / "a.yaml", "task_id: a\n" + body.format(code="A = 1"))
    write(tmp_path / "b.yaml", "task_id: b\n" + body.format(code="B = 2"))
    write(tmp_path / "reference" / "unrelated.txt", "already here")  # an existing directory is never reused
    results = plan_migration([str(tmp_path)])
    for result in results:
        write_migration(result)
    assert (tmp_path / "reference-a" / "solution.py").read_text() == "A = 1"
    assert (tmp_path / "reference-b" / "solution.py").read_text() == "B = 2"
    assert sorted(p.name for p in (tmp_path / "reference").iterdir()) == ["unrelated.txt"]


def test_output_directory_mirrors_the_paths_and_leaves_the_originals(tmp_path: Path) -> None:
    source = write(tmp_path / "suite" / "area" / "calc.yaml", LEGACY)
    write(tmp_path / "suite" / "other" / "fine.yaml", "task_id: f\ndescription: d\ninitial_prompt: p\n")
    out = tmp_path / "migrated"
    results = plan_migration([str(tmp_path / "suite")], out_dir=out)
    for result in results:
        if result.changed:
            write_migration(result)
    assert source.read_text() == LEGACY
    assert (out / "area" / "calc.yaml").read_text() == MIGRATED  # paths relative to the files' common directory
    assert (out / "area" / "reference" / "calc.py").is_file()
    assert not (out / "other").exists()  # a file that needs no change is not copied


def test_a_result_that_still_does_not_load_is_reported(tmp_path: Path) -> None:
    text = "task_id: t\ndescription: d\nmax_iterations: 3\n"  # no prompt, no criteria: migrate cannot invent them
    (result,) = plan_migration([str(write(tmp_path / "t.yaml", text))])
    assert result.changed and any("success_criteria" in p for p in result.problems)


def test_unknown_keys_are_kept_and_reported(tmp_path: Path) -> None:
    text = "task_id: t\ndescription: d\ninitial_prompt: p\ntgas: [x]\nmax_iterations: 2\n"
    (result,) = plan_migration([str(write(tmp_path / "t.yaml", text))])
    assert "tgas: [x]" in result.after and "max_iterations" not in result.after
    assert any("'tgas' kept" in line and "did you mean 'tags'?" in line for line in result.rewrite.left)
