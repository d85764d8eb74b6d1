"""The static lint rules, table-driven over task definitions built in memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from coder_eval.lint.static import static_findings
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.task import TaskDefinition


def loaded(tmp_path: Path, name: str, criteria: list[dict[str, Any]], **extra: Any) -> LoadedTask:
    doc = {
        "task_id": name,
        "description": name,
        "initial_prompt": extra.pop("prompt", "Write out.txt with the answer to the riddle."),
        "success_criteria": criteria,
        **extra,
    }
    return LoadedTask(TaskDefinition.model_validate(doc), tmp_path / f"{name}.yaml")


RUNS = {"type": "run_command", "command": "python check.py", "description": "runs"}


@pytest.mark.parametrize(
    ("criteria", "extra", "expected"),
    [
        ([{**RUNS, "weight": 0}], {}, {"CE102"}),
        ([{"type": "file_exists", "path": "out.txt", "description": "x"}], {}, {"CE103"}),
        (
            [{"type": "file_contains", "path": "out.txt", "includes": ["answer"], "description": "x"}],
            {},
            {"CE104"},
        ),
        (
            [{"type": "run_command", "command": "cat out.txt", "expected_stdout": "42", "description": "x"}],
            {},
            {"CE104"},
        ),
        (
            [{"type": "file_contains", "path": "out.txt", "includes": ["the secret phrase"], "description": "x"}, RUNS],
            {"prompt": "Write 'the secret phrase' to out.txt."},
            {"CE101"},
        ),
        ([RUNS], {"pre_run": [{"command": "python -m http.server 8000 &"}]}, {"CE106"}),
        (
            [RUNS],
            {"pre_run": [{"command": "python -m http.server 8000 &"}], "post_run": [{"command": "pkill -f x"}]},
            set(),
        ),
        ([RUNS, {"type": "file_exists", "path": "out.txt", "description": "x"}], {}, set()),
        ([{"type": "run_command", "command": "printf x > a && python a.py", "description": "x"}], {}, set()),
    ],
)
def test_rule_table(tmp_path: Path, criteria: list[dict[str, Any]], extra: dict[str, Any], expected: set[str]) -> None:
    found = static_findings([loaded(tmp_path, "t", criteria, **extra)])
    assert {f.rule_id for f in found} == expected, [f.message for f in found]


def test_near_duplicate_prompts_are_flagged_once(tmp_path: Path) -> None:
    prompt = "Create fizzbuzz.py that prints the numbers 1 to 15 with Fizz and Buzz, then run it."
    tasks = [
        loaded(tmp_path, "a", [RUNS], prompt=prompt),
        loaded(tmp_path, "b", [RUNS], prompt=prompt.replace("15", "20")),
        loaded(tmp_path, "c", [RUNS], prompt="Something else entirely: parse a CSV and sum a column."),
    ]
    found = [f for f in static_findings(tasks) if f.rule_id == "CE105"]
    assert [(f.task_id, "a" in f.message) for f in found] == [("b", True)]


def _pairwise_ce105(tasks: list[LoadedTask]) -> list[tuple[str | None, str]]:
    """The rule as first written: every earlier task of the same criterion kinds, difflib on each pair."""
    from collections import Counter
    from difflib import SequenceMatcher

    from coder_eval.lint.static import DUPLICATE_RATIO

    out = []
    for j, later in enumerate(tasks):
        kinds = Counter(c.type for c in later.definition.success_criteria)
        for earlier in tasks[:j]:
            if earlier.source_file == later.source_file or kinds != Counter(
                c.type for c in earlier.definition.success_criteria
            ):
                continue
            a, b = earlier.definition.initial_prompt or "", later.definition.initial_prompt or ""
            ratio = SequenceMatcher(None, a, b, autojunk=False).ratio()
            if ratio >= DUPLICATE_RATIO:
                out.append((later.task_id, f"prompt is {ratio:.0%} the same as {earlier.task_id}"))
                break
    return out


def test_near_duplicates_are_the_pairwise_scans_findings(tmp_path: Path) -> None:
    """The LCS prefilter only skips pairs difflib would not flag: same findings, same order, same figures."""
    import random

    rng = random.Random(105)
    words = ["write", "read", "parse", "the", "a", "of", "file", "test", "csv", "json", "sum", "column",
             "print", "numbers", "list", "sort"]  # fmt: skip
    bases = [" ".join(rng.choices(words, k=rng.randint(8, 40))) for _ in range(12)]
    tasks = []
    for n in range(120):
        text = list(rng.choice(bases))
        for _ in range(rng.randint(0, 6)):  # a few edits: some stay above the threshold, some fall below
            text[rng.randrange(len(text))] = rng.choice("abcdefgh ")
        criteria = [RUNS] if n % 3 else [RUNS, {"type": "file_exists", "path": "out.txt", "description": "x"}]
        tasks.append(loaded(tmp_path, f"t{n}", criteria, prompt="".join(text)))
    expected = _pairwise_ce105(tasks)
    found = [(f.task_id, f.message.split(" (")[0]) for f in static_findings(tasks) if f.rule_id == "CE105"]
    assert len(expected) > 10 and found == expected


REF = {"reference": {"directory": "reference"}}


@pytest.mark.parametrize(
    ("command", "flagged"),
    [
        pytest.param('python "$REFERENCE_DIR/check.py"', True, id="interpreter"),
        pytest.param('cp "$REFERENCE_DIR/tests.py" . && pytest tests.py', True, id="copies-then-runs"),
        pytest.param('REFERENCE_DIR="$REFERENCE_DIR" ./run_tests.sh', True, id="agent-script"),
        pytest.param('diff "$REFERENCE_DIR/out.txt" out.txt', False, id="diff"),
        pytest.param('cmp -s "$REFERENCE_DIR/a" a && grep -q ok <(cat "$REFERENCE_DIR/b")', False, id="read-only"),
        pytest.param("python check.py", False, id="no-reference"),
    ],
)
def test_ce108_agent_code_while_the_reference_is_visible(tmp_path: Path, command: str, flagged: bool) -> None:
    criteria = [{"type": "run_command", "command": command, "description": "x"}, RUNS]
    found = [f for f in static_findings([loaded(tmp_path, "t", criteria, **REF)]) if f.rule_id == "CE109"]
    assert bool(found) is flagged, found
    if flagged:
        assert "success_criteria[0]" in found[0].message and found[0].severity == "warning"


def test_ce108_agent_judge_with_the_reference(tmp_path: Path) -> None:
    judge = {"type": "agent_judge", "prompt": "run the tests", "description": "j"}
    found = {f.rule_id for f in static_findings([loaded(tmp_path, "t", [judge, RUNS], **REF)])}
    assert "CE109" in found
    judge["include_reference"] = False
    assert "CE109" not in {f.rule_id for f in static_findings([loaded(tmp_path, "t", [judge, RUNS], **REF)])}
