"""Dataset fan-out: one task file, one task per row, `${row.x}` substituted where the docs say."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from coder_eval.errors import TaskConfigError
from coder_eval.loading.dataset import substitute, substitute_leaves
from coder_eval.loading.loader import LoadedTask, SelectOptions, expand_dataset, load_task_file, load_tasks
from coder_eval.loading.sampling import flat_sample, stratified_sample
from coder_eval.models.criteria import (
    ClassificationMatchCriterion,
    CliCalledCriterion,
    FileContainsCriterion,
    JsonCheckCriterion,
)
from coder_eval.models.sandbox import StarterFilesSource


def base_doc(dataset: dict[str, Any], **extra: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "task_id": "suite",
        "description": "Suite for ${row.id}",
        "initial_prompt": "Classify: ${row.text}",
        "success_criteria": [
            {
                "type": "classification_match",
                "path": "result.txt",
                "expected_label": "${row.expected}",
                "allowed_labels": ["positive", "negative"],
                "description": "label for row ${row.id}",
            }
        ],
        "dataset": dataset,
    }
    doc.update(extra)
    return doc


def write_task(directory: Path, doc: dict[str, Any], name: str = "task.yaml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    out = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


def expand(path: Path, options: SelectOptions | None = None) -> list[LoadedTask]:
    task, raw = load_task_file(path)
    return expand_dataset(task, raw, path, options)


def expand_error(path: Path, options: SelectOptions | None = None) -> str:
    with pytest.raises(TaskConfigError) as info:
        expand(path, options)
    return str(info.value)


ROWS = [
    {"id": "r1", "text": "I love it", "expected": "positive"},
    {"id": "r2", "text": "I hate it", "expected": "negative"},
    {"id": "r3", "text": "meh", "expected": None},
]


# ------------------------------------------------------------------------------------- fan-out


def test_fan_out_ids_and_suite_fields(tmp_path: Path) -> None:
    tasks = expand(write_task(tmp_path, base_doc({"rows": ROWS})))
    assert [t.task_id for t in tasks] == ["suite/r1", "suite/r2", "suite/r3"]
    for t, row in zip(tasks, ROWS, strict=True):
        assert t.suite_id == "suite"
        assert t.row_id == row["id"]
        assert t.row == row
        assert t.definition.dataset is None
        assert t.definition.task_id == "suite"


def test_task_without_dataset_yields_itself(tmp_path: Path) -> None:
    doc = base_doc({"rows": ROWS})
    del doc["dataset"]
    doc["initial_prompt"] = "Classify: ${row.text}"  # no dataset: nothing substitutes, nothing fails
    path = write_task(tmp_path, doc)
    (only,) = expand(path)
    assert only.task_id == "suite" and only.suite_id is None and only.row_id is None
    assert only.definition.initial_prompt == "Classify: ${row.text}"


def test_load_tasks_fans_out(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks", base_doc({"rows": ROWS}))
    report = load_tasks([], cwd=tmp_path)
    assert report.errors == []
    assert [t.task_id for t in report.tasks] == ["suite/r1", "suite/r2", "suite/r3"]


# -------------------------------------------------------------------------------- substitution


def test_substitutes_prompt_and_every_criterion_string_leaf(tmp_path: Path) -> None:
    rows = [{"id": "a", "word": "alpha", "n": 3, "ratio": 0.5, "flag": True, "nothing": None}]
    doc = base_doc(
        {"rows": rows},
        initial_prompt="Write ${row.word} ${row.n} times (${row.word}!)",
        success_criteria=[
            {
                "type": "file_contains",
                "path": "${row.word}.txt",
                "includes": ["${row.word}", "count=${row.n}"],
                "excludes": ["none:${row.nothing}:"],
                "description": "row ${row.id} writes ${row.word}",
            },
            {
                "type": "json_check",
                "path": "out/${row.id}.json",
                "assertions": [
                    {"expression": "word", "expected": "${row.word}"},
                    {"expression": "meta.ratio", "expected": "${row.ratio}"},
                    {"expression": "ok", "expected": "${row.flag}"},
                    {"expression": "tags", "operator": "contains", "expected": ["x-${row.word}", {"k": "${row.n}"}]},
                ],
                "description": "json for ${row.id}",
            },
            {
                "type": "cli_called",
                "verb": "ixp projects get",
                "positional": ["${row.word}"],
                "flags": {"folder": {"any_of": ["${row.word}", "shared"]}},
                "description": "called for ${row.word}",
            },
            {
                "type": "classification_match",
                "path": "result.txt",
                "expected_label": "${row.nothing}",
                "allowed_labels": ["alpha"],
                "description": "negative row",
            },
        ],
    )
    (t,) = expand(write_task(tmp_path, doc))
    d = t.definition
    assert d.initial_prompt == "Write alpha 3 times (alpha!)"
    fc, jc, cli, cm = d.success_criteria
    assert isinstance(fc, FileContainsCriterion)
    assert fc.path == "alpha.txt"
    assert fc.includes == ["alpha", "count=3"]
    assert fc.excludes == ["none::"]
    assert fc.description == "row a writes alpha"
    assert isinstance(jc, JsonCheckCriterion)
    assert jc.path == "out/a.json"
    assert [a.expected for a in jc.assertions] == ["alpha", "0.5", "true", ["x-alpha", {"k": "3"}]]
    assert jc.description == "json for a"
    assert isinstance(cli, CliCalledCriterion)
    assert cli.positional == ["alpha"]
    assert cli.flags["folder"].any_of == ["alpha", "shared"]
    assert isinstance(cm, ClassificationMatchCriterion)
    assert cm.expected_label == ""


def test_not_substituted_outside_prompt_and_criteria(tmp_path: Path) -> None:
    doc = base_doc(
        {"rows": ROWS[:1]},
        description="Suite for ${row.id}",
        pre_run=[{"command": "echo ${row.text}"}],
        post_run=[{"command": "echo ${row.id}"}],
        sandbox={
            "template_sources": [{"type": "starter_files", "files": [{"path": "row.txt", "content": "${row.text}"}]}]
        },
    )
    (t,) = expand(write_task(tmp_path, doc))
    d = t.definition
    assert d.description == "Suite for ${row.id}"
    assert d.pre_run[0].command == "echo ${row.text}"
    assert d.post_run[0].command == "echo ${row.id}"
    src = d.sandbox.template_sources[0]
    assert isinstance(src, StarterFilesSource)
    assert src.files[0].content == "${row.text}"


def test_rows_do_not_leak_into_each_other(tmp_path: Path) -> None:
    tasks = expand(write_task(tmp_path, base_doc({"rows": ROWS})))
    assert [t.definition.initial_prompt for t in tasks] == [
        "Classify: I love it",
        "Classify: I hate it",
        "Classify: meh",
    ]
    assert [t.definition.success_criteria[0].expected_label for t in tasks] == ["positive", "negative", ""]
    assert [t.definition.success_criteria[0].description for t in tasks] == [
        "label for row r1",
        "label for row r2",
        "label for row r3",
    ]


@pytest.mark.parametrize(
    ("value", "rendered"),
    [(None, ""), (0, "0"), (42, "42"), (-1.25, "-1.25"), ("text", "text"), ("", ""), (True, "true"), (False, "false")],
)
def test_scalar_rendering(value: Any, rendered: str) -> None:
    assert substitute("<${row.v}>", {"v": value}) == f"<{rendered}>"


def test_substitute_leaves_keeps_non_strings_and_shape() -> None:
    value = {"a": ["${row.x}", 1, None, True, {"b": "${row.x}-${row.x}"}], "n": 2.5}
    assert substitute_leaves(value, {"x": "y"}) == {"a": ["y", 1, None, True, {"b": "y-y"}], "n": 2.5}


def test_text_without_placeholders_is_untouched() -> None:
    assert substitute("cost: $5 ${HOME} ${rows.x} $row.x", {"x": 1}) == "cost: $5 ${HOME} ${rows.x} $row.x"


def test_missing_key_names_the_available_keys(tmp_path: Path) -> None:
    doc = base_doc({"rows": ROWS[:1]}, initial_prompt="Classify ${row.txt}")
    message = expand_error(write_task(tmp_path, doc))
    assert "row 'r1'" in message
    assert "${row.txt}: key not found (available: ['expected', 'id', 'text'])" in message


def test_missing_key_in_a_criterion_leaf(tmp_path: Path) -> None:
    doc = base_doc({"rows": ROWS[:1]})
    doc["success_criteria"][0]["expected_label"] = "${row.label}"
    message = expand_error(write_task(tmp_path, doc))
    assert "${row.label}: key not found (available: " in message


def test_missing_key_raises_keyerror_from_substitute() -> None:
    with pytest.raises(KeyError, match=r"key not found \(available: \['a'\]\)"):
        substitute("${row.b}", {"a": 1})


@pytest.mark.parametrize("value", [["a", "b"], {"k": "v"}, []], ids=["list", "dict", "empty-list"])
def test_container_value_must_be_scalar(tmp_path: Path, value: Any) -> None:
    doc = base_doc({"rows": [{"id": "r1", "text": value, "expected": "positive"}]})
    message = expand_error(write_task(tmp_path, doc))
    assert "row 'r1'" in message
    assert "${row.text}: value must be a scalar" in message


def test_container_value_raises_typeerror_from_substitute() -> None:
    with pytest.raises(TypeError, match=r"\$\{row\.x\}: value must be a scalar"):
        substitute("${row.x}", {"x": [1]})


def test_substituted_value_that_breaks_a_criterion_names_the_row(tmp_path: Path) -> None:
    doc = base_doc(
        {"rows": [{"id": "ok", "pat": "a+"}, {"id": "bad", "pat": "(unclosed"}]},
        initial_prompt="go",
        success_criteria=[
            {"type": "file_matches_regex", "path": "f", "pattern": "${row.pat}", "description": "d"},
        ],
    )
    message = expand_error(write_task(tmp_path, doc))
    assert "row 'bad'" in message
    assert "not a valid regular expression" in message


# --------------------------------------------------------------------------------------- JSONL


def test_jsonl_paths_relative_to_the_task_file_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task_dir = tmp_path / "suites" / "sentiment"
    write_jsonl(task_dir / "datasets" / "a.jsonl", [ROWS[0], "", "   ", ROWS[1]])
    write_jsonl(task_dir / "datasets" / "b.jsonl", [ROWS[2]])
    path = write_task(task_dir, base_doc({"paths": ["datasets/b.jsonl", "datasets/a.jsonl"]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    tasks = expand(path)
    assert [t.row_id for t in tasks] == ["r3", "r1", "r2"]
    assert tasks[1].row == ROWS[0]


def test_jsonl_records_end_only_at_newline(tmp_path: Path) -> None:
    """U+2028 / U+0085 are legal raw inside JSON strings; they must not split a record."""
    odd = {"id": "r1", "text": "first\u2028second\u0085third", "expected": "positive"}
    body = json.dumps(odd, ensure_ascii=False) + "\r\n" + json.dumps(ROWS[1]) + "\r\n"
    (tmp_path / "rows.jsonl").write_text(body, encoding="utf-8", newline="")
    tasks = expand(write_task(tmp_path, base_doc({"paths": ["rows.jsonl"]})))
    assert [t.row_id for t in tasks] == ["r1", "r2"]
    assert tasks[0].definition.initial_prompt == "Classify: first\u2028second\u0085third"


def test_jsonl_bad_line_is_reported_with_its_line_number(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "rows.jsonl", [ROWS[0], "", '{"id": "r2", "text": oops}'])
    message = expand_error(write_task(tmp_path, base_doc({"paths": ["rows.jsonl"]})))
    assert "rows.jsonl line 3 is not valid JSON" in message
    assert "dataset.paths[0]" in message


def test_jsonl_line_must_be_an_object(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [ROWS[0]])
    write_jsonl(tmp_path / "b.jsonl", [ROWS[1], '["r9"]'])
    message = expand_error(write_task(tmp_path, base_doc({"paths": ["a.jsonl", "b.jsonl"]})))
    assert "b.jsonl line 2 must be a JSON object" in message
    assert "dataset.paths[1]" in message


def test_jsonl_missing_file(tmp_path: Path) -> None:
    message = expand_error(write_task(tmp_path, base_doc({"paths": ["missing.jsonl"]})))
    assert "cannot read dataset file missing.jsonl" in message
    assert "relative to the task YAML" in message


# ------------------------------------------------------------------------------ load-time errors


def test_empty_inline_dataset(tmp_path: Path) -> None:
    message = expand_error(write_task(tmp_path, base_doc({"rows": []})))
    assert "Dataset for task 'suite' is empty" in message


def test_jsonl_with_only_blank_lines_is_empty(tmp_path: Path) -> None:
    (tmp_path / "rows.jsonl").write_text("\n  \n\n", encoding="utf-8")
    message = expand_error(write_task(tmp_path, base_doc({"paths": ["rows.jsonl"]})))
    assert "Dataset for task 'suite' is empty" in message


def test_row_missing_id_field(tmp_path: Path) -> None:
    rows = [ROWS[0], {"text": "no id", "expected": "positive"}]
    message = expand_error(write_task(tmp_path, base_doc({"rows": rows})))
    assert "Dataset row for task 'suite' missing id_field 'id': " in message
    assert '"text": "no id"' in message


def test_row_with_null_id_counts_as_missing(tmp_path: Path) -> None:
    message = expand_error(write_task(tmp_path, base_doc({"rows": [{"id": None, "text": "x", "expected": ""}]})))
    assert "missing id_field 'id'" in message


@pytest.mark.parametrize("bad", ["a/b", ".hidden", "-dash", "has space", "semi;colon", "", "tab\t", "nl\n"])
def test_row_id_with_illegal_characters(tmp_path: Path, bad: str) -> None:
    rows = [{"id": bad, "text": "x", "expected": "positive"}]
    message = expand_error(write_task(tmp_path, base_doc({"rows": rows})))
    assert f"Dataset row id '{bad}' must match ^[A-Za-z0-9_][A-Za-z0-9_.\\-]*$" in message
    assert "(letters, digits, underscore, hyphen, dot)" in message


@pytest.mark.parametrize("good", ["r1", "_x", "v1.2", "a-b_c.d", "007"])
def test_row_id_legal_characters(tmp_path: Path, good: str) -> None:
    (t,) = expand(write_task(tmp_path, base_doc({"rows": [{"id": good, "text": "x", "expected": "positive"}]})))
    assert t.task_id == f"suite/{good}"


def test_numeric_row_id_becomes_a_string(tmp_path: Path) -> None:
    (t,) = expand(write_task(tmp_path, base_doc({"rows": [{"id": 7, "text": "x", "expected": "positive"}]})))
    assert t.row_id == "7" and t.task_id == "suite/7"


def test_duplicate_row_ids(tmp_path: Path) -> None:
    rows = [ROWS[0], ROWS[1], {**ROWS[2], "id": "r1"}]
    message = expand_error(write_task(tmp_path, base_doc({"rows": rows})))
    assert "Duplicate dataset row id for task 'suite': 'r1'" in message


def test_duplicate_row_ids_across_jsonl_files(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [ROWS[0]])
    write_jsonl(tmp_path / "b.jsonl", [ROWS[0]])
    message = expand_error(write_task(tmp_path, base_doc({"paths": ["a.jsonl", "b.jsonl"]})))
    assert "Duplicate dataset row id for task 'suite': 'r1'" in message


def test_custom_id_field(tmp_path: Path) -> None:
    rows = [{"case_id": "c-1", "id": "ignored", "text": "x", "expected": "positive"}]
    (t,) = expand(write_task(tmp_path, base_doc({"rows": rows, "id_field": "case_id"})))
    assert t.task_id == "suite/c-1" and t.row_id == "c-1"


def test_custom_id_field_missing(tmp_path: Path) -> None:
    message = expand_error(write_task(tmp_path, base_doc({"rows": ROWS, "id_field": "case_id"})))
    assert "Dataset row for task 'suite' missing id_field 'case_id'" in message


def test_dataset_errors_land_in_the_load_report(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks", base_doc({"rows": []}), name="bad.yaml")
    write_task(tmp_path / "tasks", {**base_doc({"rows": ROWS}), "task_id": "good"}, name="good.yaml")
    report = load_tasks([], cwd=tmp_path)
    assert [t.task_id for t in report.tasks] == ["good/r1", "good/r2", "good/r3"]
    (err,) = report.errors
    assert "Dataset for task 'suite' is empty" in str(err)


# ------------------------------------------------------------------------------------- sampling


def many_rows(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"id": f"r{i:03d}", "text": f"t{i}", "expected": "positive", **extra} for i in range(n)]


def row_ids(tasks: list[LoadedTask]) -> list[str]:
    return [t.row_id or "" for t in tasks]


def test_flat_sample_is_reproducible_and_keeps_order(tmp_path: Path) -> None:
    path = write_task(tmp_path, base_doc({"rows": many_rows(50)}))
    first = row_ids(expand(path, SelectOptions(sample=7)))
    second = row_ids(expand(path, SelectOptions(sample=7)))
    assert first == second
    assert len(first) == 7
    assert first == sorted(first)  # dataset order (ids are zero-padded)
    assert first != [f"r{i:03d}" for i in range(7)]  # not a head slice
    assert len(set(first)) == 7


def test_flat_sample_through_load_tasks_is_reproducible(tmp_path: Path) -> None:
    write_task(tmp_path / "tasks", base_doc({"rows": many_rows(30)}))
    a = [t.task_id for t in load_tasks([], SelectOptions(sample=5), cwd=tmp_path).tasks]
    b = [t.task_id for t in load_tasks([], SelectOptions(sample=5), cwd=tmp_path).tasks]
    assert a == b and len(a) == 5


@pytest.mark.parametrize("n", [10, 11, 1000])
def test_flat_sample_at_or_above_size_keeps_everything(tmp_path: Path, n: int) -> None:
    path = write_task(tmp_path, base_doc({"rows": many_rows(10)}))
    assert row_ids(expand(path, SelectOptions(sample=n))) == [f"r{i:03d}" for i in range(10)]


def test_flat_sample_function() -> None:
    rows = many_rows(20)
    picked = flat_sample(rows, 4)
    assert picked == flat_sample(rows, 4)
    assert [rows.index(r) for r in picked] == sorted(rows.index(r) for r in picked)
    assert flat_sample(rows, 20) == rows
    assert flat_sample(rows, 25) == rows


def skill_rows() -> list[dict[str, Any]]:
    rows = [{"id": f"a{i}", "skill": "alpha"} for i in range(6)]
    rows += [{"id": f"b{i}", "skill": "beta"} for i in range(2)]
    rows += [{"id": f"n{i}"} for i in range(5)]  # no stratify field: the "" stratum
    rows += [{"id": f"z{i}", "skill": None} for i in range(2)]  # null also lands in ""
    return rows


def stratum(rid: str) -> str:
    return {"a": "alpha", "b": "beta", "n": "", "z": ""}[rid[0]]


def counts(ids: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for rid in ids:
        out[stratum(rid)] = out.get(stratum(rid), 0) + 1
    return out


def strat_doc(**dataset: Any) -> dict[str, Any]:
    return base_doc(
        {"rows": skill_rows(), "stratify_field": "skill", **dataset},
        initial_prompt="go",
        success_criteria=[{"type": "file_exists", "path": "out-${row.id}.txt", "description": "d"}],
    )


def test_stratified_sample_caps_each_stratum(tmp_path: Path) -> None:
    path = write_task(tmp_path, strat_doc(sample_per_stratum=3, sample_seed=1))
    ids = row_ids(expand(path))
    assert counts(ids) == {"alpha": 3, "beta": 2, "": 3}
    assert [i for i in ids if i.startswith("b")] == ["b0", "b1"]  # small strata are taken whole
    original = [r["id"] for r in skill_rows()]
    assert ids == [i for i in original if i in ids]  # dataset order


def test_missing_stratify_field_falls_in_the_empty_stratum() -> None:
    rows = [{"id": "x1"}, {"id": "x2", "skill": ""}, {"id": "x3", "skill": None}, {"id": "y", "skill": "s"}]
    picked = stratified_sample(rows, 1, "skill", seed=3)
    assert len(picked) == 2
    assert sum(1 for r in picked if r["id"].startswith("x")) == 1


def test_seeded_stratified_draw_is_reproducible(tmp_path: Path) -> None:
    path = write_task(tmp_path, strat_doc(sample_per_stratum=2, sample_seed=1234))
    draws = {tuple(row_ids(expand(path))) for _ in range(5)}
    assert len(draws) == 1


def test_unseeded_stratified_draw_is_redrawn() -> None:
    rows = [{"id": f"r{i}", "expected_skill": "s"} for i in range(30)]
    draws = {tuple(r["id"] for r in stratified_sample(rows, 3, "expected_skill", None)) for _ in range(20)}
    assert len(draws) > 1


def test_cli_per_stratum_overrides_yaml(tmp_path: Path) -> None:
    path = write_task(tmp_path, strat_doc(sample_per_stratum=3, sample_seed=9))
    ids = row_ids(expand(path, SelectOptions(sample_per_stratum=1)))
    assert counts(ids) == {"alpha": 1, "beta": 1, "": 1}


def test_cli_per_stratum_without_yaml_value(tmp_path: Path) -> None:
    path = write_task(tmp_path, strat_doc(sample_seed=9))
    assert len(row_ids(expand(path))) == len(skill_rows())
    assert counts(row_ids(expand(path, SelectOptions(sample_per_stratum=2)))) == {"alpha": 2, "beta": 2, "": 2}


def test_cli_per_stratum_uses_the_yaml_seed(tmp_path: Path) -> None:
    path = write_task(tmp_path, strat_doc(sample_seed=5))
    draws = {tuple(row_ids(expand(path, SelectOptions(sample_per_stratum=2)))) for _ in range(5)}
    assert len(draws) == 1


def test_sample_wins_over_per_stratum(tmp_path: Path) -> None:
    path = write_task(tmp_path, strat_doc(sample_per_stratum=1, sample_seed=2))
    flat = row_ids(expand(path, SelectOptions(sample=8)))
    assert len(flat) == 8
    assert flat == row_ids(expand(path, SelectOptions(sample=8, sample_per_stratum=1)))
    assert flat == [r["id"] for r in flat_sample(skill_rows(), 8)]


def test_sampling_happens_after_row_validation(tmp_path: Path) -> None:
    rows = [*many_rows(10), {"id": "bad id", "text": "x", "expected": "positive"}]
    message = expand_error(write_task(tmp_path, base_doc({"rows": rows})), SelectOptions(sample=1))
    assert "Dataset row id 'bad id' must match" in message


def test_yaml_sample_per_stratum_in_a_task_file(tmp_path: Path) -> None:
    text = textwrap.dedent(
        """
        task_id: skills
        description: Skill activation
        initial_prompt: "${row.prompt}"
        success_criteria:
          - type: skill_triggered
            skill_name: alpha
            expected_skill: "${row.expected_skill}"
            description: alpha fires for ${row.id}
        dataset:
          sample_per_stratum: 1
          sample_seed: 7
          rows:
            - {id: p1, prompt: "do alpha", expected_skill: alpha}
            - {id: p2, prompt: "do alpha again", expected_skill: alpha}
            - {id: n1, prompt: "unrelated", expected_skill: ""}
        """
    )
    path = tmp_path / "skills.yaml"
    path.write_text(text, encoding="utf-8")
    tasks = expand(path)
    assert len(tasks) == 2
    assert tasks[-1].task_id == "skills/n1"
    assert tasks[-1].definition.success_criteria[0].expected_skill == ""
    assert tasks[0].definition.success_criteria[0].expected_skill == "alpha"


# ------------------------------------------------------------------------ shared row definitions


def test_rows_without_placeholders_share_one_definition(tmp_path: Path) -> None:
    doc = base_doc(
        {"rows": ROWS},
        initial_prompt="Classify the file",
        success_criteria=[{"type": "file_exists", "path": "out.txt", "description": "written"}],
    )
    tasks = expand(write_task(tmp_path, doc))
    assert len({id(t.definition) for t in tasks}) == 1
    assert tasks[0].definition.initial_prompt == "Classify the file" and tasks[0].definition.dataset is None


def test_rows_differing_only_in_prompt_get_their_own_prompt(tmp_path: Path) -> None:
    doc = base_doc(
        {"rows": ROWS}, success_criteria=[{"type": "file_exists", "path": "out.txt", "description": "written"}]
    )
    tasks = expand(write_task(tmp_path, doc))
    assert [t.definition.initial_prompt for t in tasks] == [f"Classify: {r['text']}" for r in ROWS]
    assert tasks[0].definition.success_criteria is tasks[1].definition.success_criteria


def test_a_row_whose_prompt_comes_out_blank_is_still_refused(tmp_path: Path) -> None:
    rows = [{"id": "r1", "text": "fine"}, {"id": "r2", "text": "  "}]
    doc = base_doc(
        {"rows": rows},
        initial_prompt="${row.text}",
        success_criteria=[{"type": "file_exists", "path": "out.txt", "description": "written"}],
    )
    message = expand_error(write_task(tmp_path, doc))
    assert "row 'r2'" in message and "initial_prompt is required" in message
