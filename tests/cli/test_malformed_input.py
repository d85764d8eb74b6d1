"""Property-based robustness: no malformed task file may crash `plan` or `evaluate`.

Two families of inputs are generated:

* YAML-ish text and raw bytes (broken indentation, tabs, unclosed quotes and
  brackets, odd tags, huge numbers, non-mapping documents, binary noise);
* mutations of valid baseline tasks (deleted / misspelt / unknown keys, values of
  the wrong type, bad criterion types, `${row.x}` placeholders, invalid regexes and
  JMESPath, escaping paths, extreme numbers, rich console markup in user text).

Whatever comes in, the CLI must answer with exit 0, 1 or 2 and a readable message:
exit 3, "Internal error" or a "Traceback" in the output is a bug. The CLI runs
in-process through Typer's CliRunner so hundreds of examples fit in a few seconds.
Set CODER_EVAL_FUZZ_SCALE (e.g. 20) to multiply the number of examples for a long hunt.
"""

from __future__ import annotations

import copy
import json
import math
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from coder_eval.cli.app import app
from coder_eval.cli.guard import guarded

ALLOWED_EXIT_CODES = {0, 1, 2}
SCALE = float(os.environ.get("CODER_EVAL_FUZZ_SCALE", "1"))
PY = shlex.quote(sys.executable)
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def examples(n: int) -> int:
    return max(1, round(n * SCALE))


# ---------------------------------------------------------------------------
# Running the CLI
# ---------------------------------------------------------------------------

_runner = CliRunner()


def invoke(args: list[str]) -> Result:
    """Run the CLI in-process; CODER_EVAL_DEBUG makes a crash print its traceback (and fail)."""
    return _runner.invoke(app, args, catch_exceptions=False, env={"CODER_EVAL_DEBUG": "1", "NO_COLOR": "1"})


def assert_handled(result: Result, task_file: Path, *, config_exit: int) -> None:
    """Exit 0/1/2 and no crash; a configuration failure names the offending file."""
    output = result.output
    assert result.exit_code in ALLOWED_EXIT_CODES, f"exit {result.exit_code}:\n{output}"
    assert "Traceback" not in output, output
    assert "Internal error" not in output, output
    if result.exit_code == config_exit:
        assert task_file.name in output, f"the error does not name {task_file.name}:\n{output}"


@dataclass
class Workspace:
    """A throwaway task directory: the task file, its helper dirs, a workdir and a run dir."""

    root: Path

    @property
    def task_file(self) -> Path:
        return self.root / "task.yaml"

    @property
    def workdir(self) -> Path:
        return self.root / "work"

    @property
    def run_dir(self) -> Path:
        return self.root / "runs" / "r"


@contextmanager
def workspace(*, populated: bool = False) -> Iterator[Workspace]:
    """A temp tree with tpl/ and reference/ (so baselines are valid) and an optional solution."""
    with tempfile.TemporaryDirectory(prefix="ce-fuzz-") as tmp:
        ws = Workspace(Path(tmp))
        (ws.root / "tpl").mkdir()
        (ws.root / "tpl" / "seed.txt").write_text("seed\n")
        (ws.root / "reference").mkdir()
        (ws.root / "reference" / "solution.py").write_text("def add(a, b):\n    return a + b\n")
        ws.workdir.mkdir()
        if populated:
            write_solution(ws.workdir)
        yield ws


def write_solution(workdir: Path) -> None:
    """Files that make the baselines' criteria actually read content, schemas and logs."""
    source = "import datetime\nprint('Hello, Claude!')\ndef add(a, b):\n    return a + b\n"
    (workdir / "app.py").write_text(source)
    (workdir / "out.json").write_text(json.dumps({"name": "demo", "items": [1, 2, 3], "ok": True}))
    (workdir / "schema.json").write_text(
        json.dumps(
            {
                "type": "object",
                "required": ["name"],
                "properties": {"name": {"type": "string"}},
            }
        )
    )
    (workdir / "label.txt").write_text("positive\n")
    (workdir / "out.txt").write_text("alpha\n")
    (workdir / "cli_mocks").mkdir()
    (workdir / "cli_mocks" / "calls.jsonl").write_text(
        json.dumps({"argv": ["pr", "create", "--title", "x"], "tool": "gh", "exit": 0}) + "\n"
    )


def write_task(ws: Workspace, content: str | bytes) -> None:
    if isinstance(content, bytes):
        ws.task_file.write_bytes(content)
    else:
        ws.task_file.write_text(content, encoding="utf-8", errors="surrogatepass")


def run_plan(ws: Workspace) -> Result:
    """`plan` under the default backend (direct), with a placeholder key: plan refuses a missing one."""
    keys = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY")
    env = {"CODER_EVAL_DEBUG": "1", "NO_COLOR": "1", **dict.fromkeys(keys, "placeholder-never-sent")}
    result = _runner.invoke(app, ["plan", str(ws.task_file)], catch_exceptions=False, env=env)
    assert_handled(result, ws.task_file, config_exit=1)
    return result


def run_evaluate(ws: Workspace, *extra: str) -> Result:
    result = invoke(["evaluate", str(ws.task_file), str(ws.workdir), "--run-dir", str(ws.run_dir), *extra])
    assert_handled(result, ws.task_file, config_exit=2)
    return result


# ---------------------------------------------------------------------------
# Valid baselines
# ---------------------------------------------------------------------------

FILES_TASK: dict[str, Any] = {
    "task_id": "fuzz-files",
    "description": "File criteria, a starter-file template, pre_run and run limits.",
    "initial_prompt": "Write app.py and out.json.",
    "tags": ["fuzz", "kind:files"],
    "agent": {"type": "claude-code", "permission_mode": "acceptEdits", "allowed_tools": ["Read", "Write"]},
    "sandbox": {
        "driver": "tempdir",
        "python": {"env_packages": []},
        "template_sources": [
            {
                "type": "starter_files",
                "files": [
                    {"path": "README.md", "content": "# Demo\n"},
                    {"path": "src/pkg/__init__.py", "content": ""},
                ],
            },
        ],
        "ignore_patterns": ["*.log", "!node_modules"],
        "limits": {"timeout": 60},
    },
    "pre_run": [{"command": "echo ready > ready.txt", "timeout": 10, "fail_on_error": True}],
    "post_run": [{"command": "ls", "timeout": 5}],
    "run_limits": {
        "max_turns": 10,
        "expected_turns": 4,
        "task_timeout": 300,
        "max_usd": 1.5,
        "max_total_tokens": 100000,
        "stop_early_gate_threshold": 0.8,
    },
    "success_criteria": [
        {"type": "file_exists", "description": "app.py exists", "path": "app.py"},
        {
            "type": "file_contains",
            "description": "greets",
            "path": "app.py",
            "includes": ["Hello, Claude!"],
            "excludes": ["TODO"],
            "weight": 2,
        },
        {
            "type": "file_check",
            "description": "imports datetime",
            "path": "*.py",
            "includes": ["datetime"],
            "patterns": [{"pattern": r"^import \w+", "flags": 8}, {"pattern": "eval\\(", "must_match": False}],
        },
        {
            "type": "file_matches_regex",
            "description": "defines add",
            "path": "app.py",
            "pattern": r"def add\(a, b\)",
            "pass_threshold": 1.0,
        },
        {
            "type": "json_check",
            "description": "out.json is right",
            "path": "out.json",
            "json_schema": "schema.json",
            "assertions": [
                {"expression": "name", "operator": "equals", "expected": "demo"},
                {"expression": "length(items)", "operator": "gte", "expected": 3},
                {"expression": "items[0]", "operator": "type", "expected": "integer"},
                {"expression": "name", "operator": "regex", "expected": "^de"},
                {"expression": "ok", "operator": "exists"},
            ],
        },
    ],
}

DATASET_TASK: dict[str, Any] = {
    "task_id": "fuzz-dataset",
    "description": "Dataset fan-out with inline rows.",
    "initial_prompt": "Classify '${row.text}' into label.txt; write '${row.expected}' to out.txt.",
    "tags": ["dataset"],
    "agent": {"type": "none"},
    "dataset": {
        "rows": [
            {"id": "alpha", "text": "great", "expected": "alpha", "expected_skill": "s1", "label": "positive"},
            {"id": "beta", "text": "awful", "expected": "beta", "expected_skill": "s2", "label": "negative"},
        ],
        "id_field": "id",
        "stratify_field": "expected_skill",
        "sample_per_stratum": 1,
        "sample_seed": 7,
    },
    "success_criteria": [
        {
            "type": "classification_match",
            "description": "label for ${row.id}",
            "path": "label.txt",
            "expected_label": "${row.label}",
            "allowed_labels": ["positive", "negative", "neutral"],
        },
        {
            "type": "file_check",
            "description": "out.txt has ${row.expected}",
            "path": "out.txt",
            "includes": ["${row.expected}"],
        },
        {"type": "file_exists", "description": "informational", "path": "notes.md", "weight": 0},
    ],
}

COMMANDS_TASK: dict[str, Any] = {
    "task_id": "fuzz-commands",
    "description": "Shell criteria and a template directory.",
    "initial_prompt": "Make the commands pass.",
    "agent": {"type": "codex", "model": "gpt-5"},
    "sandbox": {
        "template_sources": [{"type": "template_dir", "path": "tpl", "mount_point": "."}],
        "mock_path_dirs": ["bin"],
        "record_cli": [
            {
                "tool": "gh",
                "exit_code": 0,
                "stdout": "ok",
                "responses": [{"when": {"verb": "pr create"}, "stdout": "created", "exit_code": 0}],
            }
        ],
    },
    "run_limits": {"max_turns": 3, "turn_timeout": 30, "stop_early": False},
    "success_criteria": [
        {
            "type": "run_command",
            "description": "python runs",
            "command": f"{PY} -c 'print(42)'",
            "timeout": 20,
            "expected_stdout": "42",
        },
        {
            "type": "run_command",
            "description": "regex stdout",
            "command": "echo hello world",
            "expected_stdout": "hel+o",
            "stdout_match": "regex",
        },
        {"type": "run_command", "description": "scored", "command": "echo 0.5", "score_from_stdout": True},
        {"type": "run_command", "description": "fails as expected", "command": "exit 3", "expected_exit_code": 3},
        {
            "type": "cli_called",
            "description": "gh pr create",
            "tool": "gh",
            "verb": "pr create",
            "flags": {"--title": {"present": True}},
            "min_count": 1,
            "max_count": 2,
        },
    ],
}

JUDGED_TASK: dict[str, Any] = {
    "task_id": "fuzz-judged",
    "description": "Judges, a reference solution and agent-trajectory criteria.",
    "initial_prompt": "Implement add() in app.py.",
    "agent": {"type": "claude-code", "setting_sources": [], "system_prompt": "Be terse."},
    "reference": {"directory": "reference"},
    "checker_context": {"api_route": {"route": "direct", "model": "claude-x"}},
    # A dialog cannot stop early: the block stays for the mutations, disarmed (run refuses it armed).
    "run_limits": {"stop_early": False},
    "simulation": {
        "enabled": True,
        "persona": "a user",
        "goal": "get add()",
        "max_turns": 3,
        "check_criteria": "every_turn",
        "stop_on_criteria_pass": True,
    },
    "success_criteria": [
        {
            "type": "reference_comparison",
            "description": "close to the reference",
            "agent_file": "app.py",
            "reference_file": "solution.py",
            "comparison_method": "token",
            "similarity_threshold": 0.3,
        },
        {
            "type": "llm_judge",
            "description": "readable",
            "prompt": "Is the code readable?",
            "files": ["app.py", "$REFERENCE_DIR/solution.py"],
            "temperature": 0.2,
        },
        {
            "type": "system_one_judge",
            "description": "rubric",
            "prompt": "Grade it.",
            "questions": {
                "works": {"type": "noul", "instructions": "Does add work?"},
                "style": {
                    "type": "choice",
                    "instructions": "Style?",
                    "criteria": ["bad", "ok", "good"],
                    "values": {"ok": 0.5, "good": 1.0},
                },
                "scale": {"type": "score", "instructions": "Overall?", "criteria": ["low", "mid", "high"]},
            },
        },
        {
            "type": "command_executed",
            "description": "ran tests",
            "tool_name": "Bash",
            "command_pattern": "pytest",
            "min_count": 1,
            "stop_early": {"on_pass": "stop", "decide_within": 5},
        },
        {"type": "commands_efficiency", "description": "efficient", "expected_commands": 5, "weight": 0},
        {"type": "skill_triggered", "description": "skill", "skill_name": "adder", "expected_skill": "adder"},
        {"type": "file_exists", "description": "app.py", "path": "app.py", "suite_thresholds": {"accuracy": 0.9}},
    ],
}

BASELINES: dict[str, dict[str, Any]] = {t["task_id"]: t for t in (FILES_TASK, DATASET_TASK, COMMANDS_TASK, JUDGED_TASK)}

# ---------------------------------------------------------------------------
# Strategies: values, mutations, YAML-ish text
# ---------------------------------------------------------------------------

BAD_STRINGS = [
    "",
    " ",
    "\t",
    "x",
    "é\u202e\u200b",
    "🙂" * 3,
    "a" * 2000,
    "null",
    "~",
    "yes",
    "0x1F",
    "1e400",
    "${row.missing}",
    "${row.}",
    "${row.id}",
    "${row.nested}",
    "${row.text} ${row.nope}",
    "$TASK_DIR/../..",
    "/etc/passwd",
    "../../outside",
    "/",
    "C:\\Windows\\x",
    "~/.ssh/id_rsa",
    "a/../../b",
    "./.",
    "..",
    "(unclosed",
    "[a-",
    "*",
    "**/*",
    "?",
    "(?P<x>",
    "\\",
    "a{1,0}",
    "foo[",
    "!!",
    "a..b",
    "`",
    "[?x==`1`",
    "line\nbreak",
    "nul\x00byte",
    "[/]",
    "[bold]x[/bold",
    "%s %d",
    "{0}",
]
TYPOS_OF_TYPES = [
    "file_exist",
    "File_Exists",
    "FILE_EXISTS",
    "filecheck",
    "json-check",
    "run_cmd",
    "llm_judge",
    "agent_judge",
    "json_check",
    "run_command",
    "file_contains",
    "classification_match",
    "reference_comparison",
    "uipath_eval",
    "cli_called",
    "command_executed",
    "system_one_judge",
    "skill_triggered",
    "commands_efficiency",
    "",
    "none",
    "__class__",
    "type",
]
PATH_KEYS = {
    "path",
    "json_schema",
    "mount_point",
    "directory",
    "agent_file",
    "reference_file",
    "log",
    "system_prompt_file",
    "dockerfile_path",
}
REGEX_KEYS = {"pattern", "command_pattern", "exclude_pattern", "matches_regex"}
NUMBER_VALUES: list[Any] = [
    -1,
    0,
    1,
    -(10**20),
    10**20,
    10**400,
    -(10**400),
    2**63,
    -0.0,
    1e308,
    -1e308,
    5e-324,
    math.inf,
    -math.inf,
    math.nan,
    0.5,
    1.0000001,
    256,
    301,
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from(NUMBER_VALUES),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(BAD_STRINGS),
    st.text(max_size=30),
    st.binary(max_size=6),  # dumped as !!binary
    st.dates(),
    st.datetimes(),
)
any_value: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.sets(st.integers(-3, 3), max_size=3),  # dumped as !!set
        st.dictionaries(st.one_of(st.text(max_size=12), st.sampled_from(["type", "path", "id"])), inner, max_size=4),
    ),
    max_leaves=8,
)
key_names = st.one_of(
    st.sampled_from(
        [
            "typ",
            "descripton",
            "succes_criteria",
            "extra",
            "paths",
            "rows",
            "weight",
            "flags",
            "stop_early",
            "reference",
            "dataset",
            "agent",
            "code",
            "file",
            "__proto__",
            "<<",
        ]
    ),
    st.text(min_size=1, max_size=15),
    st.sampled_from([0, 1, -1, None, True, False, 1.5, math.nan]),  # keys YAML allows and JSON does not
)
MARKUP = ["[/]", "[bold]", "[red]x[/]", "[/bold]", "[link=x]y", "\\[", "[@click]", "[#ff0000]"]

Node = dict[Any, Any] | list[Any]
Slot = tuple[Node, Any]  # a container and one of its keys/indices


def slots(node: Any) -> list[Slot]:
    """Every (container, key) pair in a document, at any depth, parents first."""
    found: list[Slot] = []
    if isinstance(node, dict):
        for key, value in node.items():
            found.append((node, key))
            found.extend(slots(value))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.append((node, i))
            found.extend(slots(value))
    return found


def containers(node: Any) -> list[Node]:
    found: list[Node] = []
    if isinstance(node, dict | list):
        found.append(node)
        for value in node.values() if isinstance(node, dict) else node:
            found.extend(containers(value))
    return found


def typo(word: str, draw: st.DrawFn) -> str:
    """A near miss: one character dropped, doubled, swapped or changed case."""
    if not word:
        return "x"
    i = draw(st.integers(0, len(word) - 1))
    kind = draw(st.sampled_from(["drop", "double", "swap", "upper", "dash"]))
    if kind == "drop":
        return word[:i] + word[i + 1 :] or "x"
    if kind == "double":
        return word[:i] + word[i] + word[i:]
    if kind == "swap" and i + 1 < len(word):
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind == "dash":
        return word.replace("_", "-") if "_" in word else word + "-"
    return word.upper()


def _mutate_once(doc: dict[str, Any], draw: st.DrawFn) -> str:
    """Apply one random mutation in place; returns its name (for the failure report)."""
    op: str = draw(
        st.sampled_from(
            [
                "delete",
                "rename",
                "retype",
                "insert",
                "duplicate",
                "criterion_type",
                "placeholder",
                "number",
                "regex",
                "jmespath",
                "path",
                "markup",
            ]
        )
    )
    every = slots(doc)
    if op in ("delete", "rename", "retype") and every:
        parent, key = draw(st.sampled_from(every))
        if op == "delete":
            del parent[key]
        elif op == "rename" and isinstance(parent, dict) and isinstance(key, str):
            parent[typo(key, draw)] = parent.pop(key)
        else:
            parent[key] = draw(any_value)
    elif op == "insert":
        dicts = [c for c in containers(doc) if isinstance(c, dict)]
        draw(st.sampled_from(dicts))[draw(key_names)] = draw(any_value)
    elif op == "duplicate":
        lists = [c for c in containers(doc) if isinstance(c, list) and c]
        if lists:
            target = draw(st.sampled_from(lists))
            target.append(copy.deepcopy(draw(st.sampled_from(target))))
    elif op == "criterion_type":
        crits = [c for c in _criteria(doc)]
        if crits:
            draw(st.sampled_from(crits))["type"] = draw(
                st.one_of(st.sampled_from(TYPOS_OF_TYPES), st.text(max_size=20), scalars)
            )
    elif op == "placeholder":
        strings = [(p, k) for p, k in slots(doc.get("success_criteria")) if isinstance(p[k], str)]
        if strings:
            parent, key = draw(st.sampled_from(strings))
            ref = draw(
                st.sampled_from(
                    [
                        "${row.missing}",
                        "${row.id}",
                        "${row.}",
                        "${row.a.b}",
                        "${row.text}",
                        "${row.rows}",
                        "${row.expected}${row.label}",
                        "${ row.id }",
                    ]
                )
            )
            parent[key] = parent[key] + ref
    elif op == "markup":  # rich console markup in user text must be printed, never interpreted
        strings = [(p, k) for p, k in every if isinstance(p[k], str)]
        if strings:
            parent, key = draw(st.sampled_from(strings))
            parent[key] = parent[key] + draw(st.sampled_from(MARKUP))
    elif op == "number":
        numbers = [(p, k) for p, k in every if isinstance(p[k], int | float)]
        if numbers:
            parent, key = draw(st.sampled_from(numbers))
            parent[key] = draw(st.sampled_from(NUMBER_VALUES))
    else:
        keys = {"regex": REGEX_KEYS, "jmespath": {"expression"}, "path": PATH_KEYS}[op]
        targets = [(p, k) for p, k in every if isinstance(p, dict) and k in keys]
        bad = {
            "regex": ["(unclosed", "[a-", "*", "(?P<x>", "\\", "a{2,1}", "(?<=a+)b", "x**"],
            "jmespath": ["foo[", "!!", "a..b", "`", "[?x==`1`", "length(", "''", "a.[", "@@"],
            "path": [
                "/etc/passwd",
                "../../outside",
                "/",
                "..",
                "../..",
                "/tmp",
                "~/.ssh",
                "$TASK_DIR/../../x",
                "$REFERENCE_DIR/../x",
                "a/../../b",
                "C:\\x",
                "\\\\server\\share",
                "**/*",
                "nul\x00byte",
            ],
        }[op]
        if targets:
            parent, key = draw(st.sampled_from(targets))
            parent[key] = draw(st.sampled_from(bad))
    return op


def _criteria(doc: dict[str, Any]) -> list[dict[str, Any]]:
    crits = doc.get("success_criteria")
    return [c for c in crits if isinstance(c, dict)] if isinstance(crits, list) else []


@st.composite
def mutated_tasks(draw: st.DrawFn) -> tuple[str, dict[str, Any], list[str]]:
    """A baseline name, the mutated document and the mutations applied."""
    name = draw(st.sampled_from(sorted(BASELINES)))
    doc = copy.deepcopy(BASELINES[name])
    applied = [_mutate_once(doc, draw) for _ in range(draw(st.integers(1, 4)))]
    return name, doc, applied


def dump(doc: Any) -> str:
    return str(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000))


FRAGMENTS = [
    "task_id: t",
    "task_id: 'unclosed",
    'description: "unclosed',
    "description: x",
    "initial_prompt: p",
    "success_criteria:",
    "  - type: file_exists",
    "    path: a",
    "    description: d",
    "\t- type: run_command",
    "   - broken: indent",
    "- top level list",
    "scalar only",
    "[a, b",
    "{a: 1",
    "}",
    "]",
    "key: [1, 2",
    "dataset: {rows: [{id: a}]}",
    "tags: [Bad Tag]",
    "n: " + "9" * 400,
    "f: 1e99999",
    "d: 2020-13-45",
    "t: 2001-12-14t21:59:43.10-25:00",
    "x: !!float abc",
    "x: !!int zz",
    "x: !!binary '@@@'",
    "x: !!python/object:os.system",
    "x: !!set {a, b}",
    "x: !!omap [a]",
    "x: !!timestamp nope",
    "x: !custom 1",
    "a: &anchor [1]",
    "b: *anchor",
    "c: *undefined",
    "<<: 5",
    "<<: *anchor",
    "? [a, b]",
    ": value",
    "? {a: 1}\n: v",
    "---",
    "...",
    "%YAML 1.1",
    "%TAG ! tag:x,2000:",
    "key: |",
    "key: >-",
    "  folded text",
    "null: 1",
    "1: one",
    "true: yes",
    "~: ~",
    "'': empty key",
    "key: \x00",
    "\ufeffbom: 1",
    "@reserved",
    "`backtick",
    "key: value # comment",
    "key:value",
    "- - - nested",
    "k: " + "[" * 200,
]


@st.composite
def yamlish_texts(draw: st.DrawFn) -> str | bytes:
    """Text that looks more or less like a task file, or plain noise."""
    kind = draw(st.sampled_from(["fragments", "fragments", "fragments", "unicode", "bytes", "truncated"]))
    if kind == "unicode":
        return str(draw(st.text(max_size=300)))
    if kind == "bytes":
        return bytes(draw(st.binary(max_size=300)))
    if kind == "truncated":
        _, doc, _ = draw(mutated_tasks())
        text = dump(doc)
        return text[: draw(st.integers(0, len(text)))]
    lines = draw(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=20)), max_size=15))
    indents = st.sampled_from(["", "  ", "    ", "\t", " "])
    indent = draw(st.lists(indents, min_size=len(lines), max_size=len(lines)))
    prefix = draw(st.sampled_from(["", "task_id: t\n", "task_id: t\ndescription: d\ninitial_prompt: p\n"]))
    return prefix + "\n".join(i + line for i, line in zip(indent, lines, strict=True))


# ---------------------------------------------------------------------------
# Evaluate safety: generated documents never run arbitrary shell text
# ---------------------------------------------------------------------------

SAFE_COMMANDS = frozenset(str(c["command"]) for c in COMMANDS_TASK["success_criteria"] if "command" in c) | {
    "true",
    "false",
    "exit 3",
    "echo ready > ready.txt",
    "ls",
}


def defuse_commands(node: Any) -> None:
    """Replace any `command` a mutation changed by a harmless one: evaluate really runs them."""
    for parent, key in slots(node):
        value = parent[key]
        if key == "command" and isinstance(value, str) and value not in SAFE_COMMANDS:
            parent[key] = "false"


def row_args(doc: dict[str, Any], pick: int) -> list[str]:
    """--row for a dataset task: the first row, a row that does not exist, or none at all."""
    dataset = doc.get("dataset")
    if pick == 0 or not isinstance(dataset, dict):
        return []
    rows = dataset.get("rows")
    first = rows[0] if isinstance(rows, list) and rows else None
    rid = first.get("id") if isinstance(first, dict) else None
    return ["--row", str(rid) if pick == 1 and rid is not None else "no-such-row"]


# ---------------------------------------------------------------------------
# Sanity: the baselines are valid, so mutations start from a meaningful place
# ---------------------------------------------------------------------------


def test_baselines_are_valid() -> None:
    for name, doc in BASELINES.items():
        with workspace(populated=True) as ws:
            write_task(ws, dump(doc))
            result = run_plan(ws)
            assert result.exit_code == 0, f"{name}:\n{result.output}"
            extra = ["--row", "alpha"] if "dataset" in doc else []
            result = run_evaluate(ws, *extra)
            assert result.exit_code in (0, 1), f"{name}:\n{result.output}"
            assert (ws.run_dir / "run.json").is_file()


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@settings(SETTINGS, max_examples=examples(400))
@given(content=yamlish_texts())
@example(content="")
@example(content="- a\n- b\n")
@example(content="just a scalar")
@example(content=b"\xff\xfe\x00garbage")
@example(content="task_id: a\ndescription: !!float abc\n")
@example(content="task_id: a\ndescription: !!int zz\n")
@example(content="task_id: a\nwhen: 2020-13-45\n")
@example(content="task_id: a\nx: !!timestamp 2020-01-01t25:00:00\n")
@example(content="task_id: a\nx: &a [*a]\n")
@example(content="task_id: " + "[" * 5000 + "]" * 5000 + "\n")
@example(content="task_id: " + "{a: " * 990 + "1" + "}" * 990 + "\n")
@example(content="task_id: a\ndescription: " + "9" * 5000 + "\n")
def test_plan_survives_yamlish_text(content: str | bytes) -> None:
    with workspace() as ws:
        write_task(ws, content)
        event(f"exit {run_plan(ws).exit_code}")


@settings(SETTINGS, max_examples=examples(150))
@given(content=yamlish_texts())
@example(content="task_id: a\ndescription: !!float abc\n")
@example(content="task_id: a\nwhen: 2020-13-45\n")
def test_evaluate_survives_yamlish_text(content: str | bytes) -> None:
    with workspace() as ws:
        write_task(ws, content)
        result = run_evaluate(ws)
        event(f"exit {result.exit_code}")
        assert result.exit_code == 2 or (ws.run_dir / "run.json").is_file(), result.output


@settings(SETTINGS, max_examples=examples(600))
@given(case=mutated_tasks())
def test_plan_survives_mutated_tasks(case: tuple[str, dict[str, Any], list[str]]) -> None:
    name, doc, _ = case
    with workspace() as ws:
        write_task(ws, dump(doc))
        event(f"{name}: exit {run_plan(ws).exit_code}")


@settings(SETTINGS, max_examples=examples(300))
@given(case=mutated_tasks(), populated=st.booleans(), pick_row=st.integers(0, 2))
def test_evaluate_survives_mutated_tasks(
    case: tuple[str, dict[str, Any], list[str]], populated: bool, pick_row: int
) -> None:
    name, doc, _ = case
    defuse_commands(doc)
    with workspace(populated=populated) as ws:
        write_task(ws, dump(doc))
        result = run_evaluate(ws, *row_args(doc, pick_row))
        event(f"{name}: exit {result.exit_code}")
        if result.exit_code in (0, 1):  # graded: the records exist and the output points at them
            assert (ws.run_dir / "run.json").is_file(), result.output
            assert "records:" in result.output


# ---------------------------------------------------------------------------
# Regressions: one test per bug these properties found
# ---------------------------------------------------------------------------

VALID_HEAD = "task_id: reg\ndescription: regression\ninitial_prompt: p\n"
ONE_CRITERION = "success_criteria:\n  - {type: file_exists, path: app.py, description: d}\n"


def plan_text(text: str) -> Result:
    with workspace() as ws:
        write_task(ws, text)
        return run_plan(ws)


@pytest.mark.parametrize("value", ["!!int zz", "!!float abc", "9" * 5000])
def test_scalars_pyyaml_cannot_build_are_config_errors(value: str) -> None:
    """Was: ValueError from PyYAML's constructor escaped as an internal error (exit 3)."""
    result = plan_text(VALID_HEAD + ONE_CRITERION + f"tags: [{value}]\n")
    assert result.exit_code == 1
    assert "not valid YAML" in result.output


def test_timestamps_are_read_as_the_text_written() -> None:
    """Was: `2020-13-45` crashed the loader, and a valid date became a datetime.date that a
    JSON assertion could never equal and task.json could not hold."""
    text = VALID_HEAD.replace("regression", "2020-13-45") + (
        "success_criteria:\n"
        "  - type: json_check\n    path: out.json\n    description: dated\n"
        "    assertions:\n      - {expression: date, operator: equals, expected: 2024-01-15}\n"
    )
    with workspace() as ws:
        write_task(ws, text)
        (ws.workdir / "out.json").write_text('{"date": "2024-01-15"}')
        assert run_plan(ws).exit_code == 0
        result = run_evaluate(ws)
        assert result.exit_code == 0, result.output


@pytest.mark.parametrize("value", ["!!binary /w==", "!!set {a, b}"])
def test_values_json_cannot_hold_are_rejected_with_their_line(value: str) -> None:
    """Was: a !!binary `expected` crashed evaluate while writing task.json (UnicodeDecodeError)."""
    text = VALID_HEAD + (
        "success_criteria:\n"
        "  - type: json_check\n    path: out.json\n    description: d\n"
        f"    assertions:\n      - expression: name\n        operator: equals\n        expected: {value}\n"
    )
    with workspace(populated=True) as ws:
        write_task(ws, text)
        result = run_evaluate(ws)
        assert result.exit_code == 2
        assert "line 11" in result.output and "not supported" in result.output


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("x: &a [*a]\n", "recursive alias"),
        ("x: &a {b: *a}\n", "recursive alias"),
        ("tags: " + "[" * 990 + "]" * 990 + "\n", "nested more than"),
        ("agent: " + "{a: " * 990 + "1" + "}" * 990 + "\n", "nested more than"),
    ],
)
def test_recursive_and_deep_documents_are_config_errors(body: str, message: str) -> None:
    """Was: RecursionError while indexing line numbers (internal error)."""
    result = plan_text(VALID_HEAD + ONE_CRITERION + body)
    assert result.exit_code == 1
    assert message in result.output


def test_alias_bomb_is_rejected_quickly() -> None:
    """Was: ten levels of ten aliases each (10**10 nodes once expanded) ran for minutes."""
    levels = ["l0: &l0 [" + ", ".join(["lol"] * 10) + "]"]
    levels += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 10)]
    started = time.monotonic()
    result = plan_text(VALID_HEAD + ONE_CRITERION + "\n".join(levels) + "\n")
    assert time.monotonic() - started < 10
    assert result.exit_code == 1
    assert "aliases expand" in result.output


def test_rich_markup_in_user_text_is_printed_literally() -> None:
    """Was: a criterion description like `[/]` inside a configuration error made rich raise
    MarkupError, and the internal-error handler re-raised it: a raw traceback."""
    criterion = "{type: file_exists, path: /etc/passwd, description: '[/] [bold]x'}"
    text = VALID_HEAD + f"success_criteria:\n  - {criterion}\n"
    with workspace() as ws:
        write_task(ws, text)
        result = run_evaluate(ws)
        assert result.exit_code == 1
        assert "[/] [bold]x" in result.output
        assert "resolves outside the sandbox" in result.output


def test_run_dir_with_markup_is_printed_literally() -> None:
    with workspace() as ws:
        write_task(ws, VALID_HEAD + ONE_CRITERION)
        run_dir = ws.root / "[/]runs"
        result = invoke(["evaluate", str(ws.task_file), str(ws.workdir), "--run-dir", str(run_dir)])
        assert result.exit_code == 1, result.output
        assert f"records: {run_dir}" in result.output


@pytest.mark.parametrize("below", ["", "sub"])
def test_run_dir_that_cannot_be_a_directory_is_a_usage_error(below: str) -> None:
    """Was: FileExistsError / NotADirectoryError from mkdir (internal error)."""
    with workspace() as ws:
        write_task(ws, VALID_HEAD + ONE_CRITERION)
        blocker = ws.root / "a-file"
        blocker.write_text("")
        run_dir = blocker / below if below else blocker
        result = invoke(["evaluate", str(ws.task_file), str(ws.workdir), "--run-dir", str(run_dir)])
        assert result.exit_code == 2, result.output
        assert "cannot use" in result.output and "Internal error" not in result.output


@pytest.mark.parametrize("weight", [".inf", ".nan", "-.inf"])
def test_non_finite_weight_is_rejected(weight: str) -> None:
    """Was: weight .inf validated and every evaluation scored NaN (printed `weighted score nan`)."""
    result = plan_text(
        VALID_HEAD + f"success_criteria:\n  - {{type: file_exists, path: a, description: d, weight: {weight}}}\n"
    )
    assert result.exit_code == 1
    assert "success_criteria[0].weight" in result.output


def test_dataset_row_id_with_a_trailing_newline_is_rejected() -> None:
    """Was: `^...$` matched before a final newline, so "alpha\\n" became a directory name."""
    text = VALID_HEAD + ONE_CRITERION + 'dataset:\n  rows:\n    - {id: "alpha\\n"}\n'
    result = plan_text(text)
    assert result.exit_code == 1
    assert "Dataset row id" in result.output


def test_internal_error_text_with_markup_is_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    """Was: an exception whose message held `[/]` crashed the internal-error handler itself."""

    @guarded
    def broken() -> None:
        raise RuntimeError("closing tag [/] in a bug report")

    with pytest.raises(typer.Exit) as exc_info:
        broken()
    assert exc_info.value.exit_code == 3
    assert "closing tag [/] in a bug report" in capsys.readouterr().err


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="needs Linux /proc")
def test_reference_directory_that_cannot_be_copied_is_a_config_error() -> None:
    """Was: OSError (EINVAL) while staging a /proc reference escaped as an internal error."""
    with workspace() as ws:
        proc_self = os.path.relpath("/proc/self", ws.task_file.parent)  # absolute paths are refused at load
        write_task(ws, VALID_HEAD + f"reference: {{directory: {proc_self}}}\n" + ONE_CRITERION)
        result = run_evaluate(ws)
        assert result.exit_code == 2
        # /proc lies outside the task's tree: refused before any copy is tried
        assert "reference.directory" in result.output and "outside the task's directory tree" in result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_workdir_holding_a_named_pipe_is_a_usage_error() -> None:
    """Was: shutil.Error from copying the directory to grade escaped as an internal error."""
    with workspace() as ws:
        write_task(ws, VALID_HEAD + ONE_CRITERION)
        os.mkfifo(ws.workdir / "pipe")
        result = invoke(["evaluate", str(ws.task_file), str(ws.workdir), "--run-dir", str(ws.run_dir)])
        assert result.exit_code == 2, result.output
        assert "is a named pipe" in result.output and "Internal error" not in result.output


def test_evaluate_refuses_a_reference_outside_the_task_tree() -> None:
    """Was: `evaluate` staged a reference of `../../..` by copying the host's file system."""
    with workspace() as ws:
        up = os.path.relpath("/", ws.task_file.parent)
        write_task(ws, VALID_HEAD + f"reference: {{directory: {up}}}\n" + ONE_CRITERION)
        result = run_evaluate(ws)
        assert result.exit_code == 2
        assert "reference.directory" in result.output and "outside the task's directory tree" in result.output
