"""The task schema, pinned table by table: what validates, what is refused, and what the refusal says.

Invalid documents go through `validate_document`, the same path a task file takes, so each
case asserts on the problem a user actually reads: the YAML path it points at and the
message (plus hint) naming the key fact.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from coder_eval.agents.claude_code import ClaudeCodeConfig
from coder_eval.agents.codex import CodexConfig
from coder_eval.agents.none_agent import NoAgentConfig
from coder_eval.errors import Problem, TaskConfigError
from coder_eval.loading.loader import validate_document
from coder_eval.models.criteria import BUILTIN_CRITERIA, spec_type
from coder_eval.models.criteria_base import LiveCriterion
from coder_eval.models.sandbox import PythonEnv, RepoSource, StarterFilesSource
from coder_eval.models.task import TaskDefinition

CRITERION_MODELS = list(BUILTIN_CRITERIA)
CRITERION_TYPES = [spec_type(m) for m in BUILTIN_CRITERIA]
DROP = object()
"""Marks a key to remove from the base document."""

SOURCE = Path("task.yaml")


def crit(type_: str = "file_exists", **fields: Any) -> dict[str, Any]:
    """A criterion mapping; `file_exists` needs only a path."""
    out: dict[str, Any] = {"type": type_, "description": f"{type_} check"}
    if type_ == "file_exists" and "path" not in fields:
        out["path"] = "out.txt"
    out.update(fields)
    return out


def task(**overrides: Any) -> dict[str, Any]:
    """A minimal valid task document with keys replaced (or dropped with DROP)."""
    doc: dict[str, Any] = {
        "task_id": "demo-task",
        "description": "A demo task",
        "initial_prompt": "Write out.txt",
        "success_criteria": [crit()],
    }
    for key, value in overrides.items():
        if value is DROP:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc


def with_criteria(*criteria: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    return task(success_criteria=list(criteria), **overrides)


def validate(doc: dict[str, Any]) -> TaskDefinition:
    return validate_document(copy.deepcopy(doc), SOURCE)


def problems_of(doc: dict[str, Any]) -> list[Problem]:
    with pytest.raises(TaskConfigError) as info:
        validate(doc)
    return info.value.problems


def assert_problem(doc: dict[str, Any], at: str, *fragments: str) -> Problem:
    """Some problem sits at `at` (a YAML path prefix) and mentions every fragment."""
    problems = problems_of(doc)
    for p in problems:
        text = f"{p.message} {p.hint}"
        if p.field_path.startswith(at) and all(f in text for f in fragments):
            return p
    rendered = "\n".join(f"  {p.field_path!r}: {p.message} ({p.hint})" for p in problems)
    raise AssertionError(f"no problem at {at!r} mentioning {fragments}; got:\n{rendered}")


# ---------------------------------------------------------------------------------------------
# Valid documents: they validate, and the parsed task has the documented shape and defaults.
# ---------------------------------------------------------------------------------------------

Check = Callable[[TaskDefinition], Any]


def _minimal_defaults(t: TaskDefinition) -> None:
    assert t.tags == []
    assert t.skip is False
    assert t.agent is None
    assert t.sandbox.driver == "auto"
    assert t.sandbox.python == PythonEnv()  # omitted: each unit's own empty environment, as the spec says
    assert t.sandbox.template_sources == []
    assert t.sandbox.ignore_patterns == []
    assert t.sandbox.record_cli == []
    assert t.run_limits.max_turns is None
    assert t.run_limits.stop_early is None
    assert t.reference is None
    assert t.pre_run == [] and t.post_run == []
    assert t.dataset is None and t.simulation is None and t.checker_context is None


VALID: list[Any] = [
    pytest.param(task(), _minimal_defaults, id="minimal-task-defaults"),
    *[
        pytest.param(task(task_id=tid), lambda t, tid=tid: t.task_id == tid, id=f"task-id-{tid}")
        for tid in ("my_task", "sentiment-classification", "v1.2", "_private", "A9", "a.b-c_d")
    ],
    pytest.param(
        task(tags=["smoke", "pure-python", "golden", "connector:google-tasks", "lifecycle:generate", "v2"]),
        lambda t: t.tags[3] == "connector:google-tasks",
        id="tags-kebab-and-namespaced",
    ),
    pytest.param(task(skip=True), lambda t: t.skip is True, id="skip-true"),
    pytest.param(
        task(initial_prompt=DROP, agent={"type": "none"}),
        lambda t: isinstance(t.agent, NoAgentConfig) and t.initial_prompt is None,
        id="no-prompt-with-agent-none",
    ),
    pytest.param(
        task(initial_prompt="", agent={"type": "none"}),
        lambda t: t.agent_type == "none",
        id="empty-prompt-with-agent-none",
    ),
    pytest.param(
        task(agent={"model": "claude-sonnet-5"}),
        lambda t: (
            isinstance(t.agent, ClaudeCodeConfig)
            and t.agent.type == "claude-code"
            and t.agent.permission_mode == "acceptEdits"
            and t.agent.system_prompt_mode == "append"
        ),
        id="agent-without-type-defaults-to-claude-code",
    ),
    pytest.param(
        task(agent={}),
        lambda t: isinstance(t.agent, ClaudeCodeConfig),
        id="empty-agent-block-is-claude-code",
    ),
    pytest.param(
        task(agent={"type": "claude-code", "setting_sources": [], "sdk_options": {"effort": "high"}}),
        lambda t: t.agent.setting_sources == [] and t.agent.sdk_options == {"effort": "high"},
        id="claude-code-setting-sources-and-sdk-options",
    ),
    pytest.param(
        task(agent={"type": "codex", "model": "gpt-5", "permission_mode": "bypassPermissions"}),
        lambda t: isinstance(t.agent, CodexConfig) and t.agent.model == "gpt-5",
        id="codex-shared-fields",
    ),
    pytest.param(
        task(agent={"system_prompt": "   "}),
        lambda t: t.agent.system_prompt is None,
        id="blank-system-prompt-is-unset",
    ),
    pytest.param(
        task(agent={"system_prompt": "", "system_prompt_file": "prompt.md"}),
        lambda t: t.agent.system_prompt is None and t.agent.system_prompt_file == "prompt.md",
        id="blank-system-prompt-does-not-clash-with-file",
    ),
    pytest.param(
        task(agent={"system_prompt": "You grade.", "system_prompt_mode": "replace"}),
        lambda t: t.agent.system_prompt_mode == "replace",
        id="replace-with-prompt",
    ),
    pytest.param(
        task(agent={"system_prompt_file": "p.md", "system_prompt_mode": "replace"}),
        lambda t: t.agent.system_prompt_file == "p.md",
        id="replace-with-prompt-file",
    ),
    pytest.param(task(sandbox={"python": None}), lambda t: t.sandbox.python is None, id="python-null-skips-venv"),
    pytest.param(task(sandbox={"python": {}}), lambda t: t.sandbox.python == PythonEnv(), id="python-empty-mapping"),
    pytest.param(task(sandbox={}), lambda t: t.sandbox.python == PythonEnv(), id="python-omitted-is-an-own-venv"),
    pytest.param(
        task(sandbox={"python": {"env_packages": ["pytest", "pylint>=3.0"]}}),
        lambda t: t.sandbox.python.env_packages == ["pytest", "pylint>=3.0"],
        id="python-env-packages",
    ),
    pytest.param(
        task(sandbox={"driver": "docker", "docker": {"image": "coder-eval-agent:latest"}}),
        lambda t: t.sandbox.driver == "docker" and t.sandbox.docker.image == "coder-eval-agent:latest",
        id="docker-driver-with-image",
    ),
    pytest.param(
        task(sandbox={"docker": {"dockerfile_path": "Dockerfile"}}),
        lambda t: t.sandbox.docker.dockerfile_path == "Dockerfile",
        id="docker-dockerfile-only",
    ),
    pytest.param(
        task(
            sandbox={
                "template_sources": [
                    {"type": "repo", "url": "https://github.com/user/repo.git", "commit": "abc123"},
                    {"type": "template_dir", "path": "../templates/python-starter", "mount_point": "c"},
                    {"type": "starter_files", "files": [{"path": "src/main.py", "content": "pass\n"}]},
                ]
            }
        ),
        lambda t: (
            isinstance(t.sandbox.template_sources[0], RepoSource)
            and t.sandbox.template_sources[1].mount_point == "c"
            and isinstance(t.sandbox.template_sources[2], StarterFilesSource)
        ),
        id="repo-first-then-other-sources",
    ),
    pytest.param(
        task(sandbox={"template_sources": [{"type": "template_dir", "path": "tpl"}]}),
        lambda t: t.sandbox.template_sources[0].mount_point == ".",
        id="mount-point-defaults-to-root",
    ),
    pytest.param(
        task(
            sandbox={
                "template_sources": [
                    {"type": "starter_files", "files": [{"path": "docs/notes:v2.md"}, {"path": "./a/b.txt"}]}
                ]
            }
        ),
        lambda t: [f.path for f in t.sandbox.template_sources[0].files] == ["docs/notes:v2.md", "./a/b.txt"],
        id="starter-file-paths-inside-sandbox",
    ),
    pytest.param(
        task(sandbox={"ignore_patterns": ["  !dist ", "*.bak", "\t!node_modules"]}),
        lambda t: t.sandbox.ignore_patterns == ["!dist", "*.bak", "!node_modules"],
        id="ignore-patterns-stripped",
    ),
    pytest.param(
        task(agent={"ignore_patterns": [" !dist ", "*.log"]}),
        lambda t: t.agent.ignore_patterns == ["!dist", "*.log"],
        id="agent-ignore-patterns-stripped",
    ),
    pytest.param(
        with_criteria(
            crit(
                "agent_judge",
                prompt="p",
                agent={"ignore_patterns": ["!node_modules "], "sdk_options": {"effort": "low"}},
            )
        ),
        lambda t: t.success_criteria[0].agent.ignore_patterns == ["!node_modules"],
        id="judge-agent-ignore-patterns-stripped",
    ),
    pytest.param(
        task(sandbox={"record_cli": [{"tool": "curl"}]}),
        lambda t: (t.sandbox.record_cli[0].exit_code, t.sandbox.record_cli[0].stdout) == (1, ""),
        id="record-cli-exit-code-defaults-to-1",
    ),
    pytest.param(
        task(sandbox={"record_cli": [{"tool": "uip", "exit_code": 0}, {"tool": "gh", "exit_code": 255}]}),
        lambda t: [s.exit_code for s in t.sandbox.record_cli] == [0, 255],
        id="record-cli-exit-code-bounds",
    ),
    pytest.param(
        task(sandbox={"limits": {"timeout": 60, "max_memory_mb": 512, "max_cpus": 1.5}}),
        lambda t: t.sandbox.limits.max_cpus == 1.5,
        id="sandbox-limits",
    ),
    pytest.param(
        task(run_limits={"stop_early": False, "max_turns": 1, "task_timeout": 0.5, "max_usd": 2.5}),
        lambda t: t.run_limits.stop_early is False and t.run_limits.max_turns == 1,
        id="run-limits-stop-early-false-kill-switch",
    ),
    pytest.param(
        with_criteria(
            crit("reference_comparison", agent_file="solution.py", reference_file="solution.py"),
            reference={"directory": "reference"},
        ),
        lambda t: t.reference.directory == "reference",
        id="reference-directory-with-comparison",
    ),
    pytest.param(
        task(pre_run=[{"command": "python seed_db.py"}]),
        lambda t: (t.pre_run[0].timeout, t.pre_run[0].fail_on_error) == (30, True),
        id="pre-run-defaults",
    ),
    pytest.param(
        task(pre_run=[{"command": "a", "timeout": 1}, {"command": "b", "timeout": 300, "fail_on_error": False}]),
        lambda t: [c.timeout for c in t.pre_run] == [1, 300] and t.pre_run[1].fail_on_error is False,
        id="pre-run-timeout-bounds",
    ),
    pytest.param(
        task(post_run=[{"command": "tar czf /tmp/a.tgz ."}, {"command": "x", "timeout": 300}]),
        lambda t: [c.timeout for c in t.post_run] == [30, 300],
        id="post-run-defaults-and-bounds",
    ),
    pytest.param(
        task(dataset={"rows": [{"id": "alpha"}]}),
        lambda t: (
            (
                t.dataset.id_field,
                t.dataset.stratify_field,
                t.dataset.sample_per_stratum,
                t.dataset.sample_seed,
            )
            == ("id", "expected_skill", None, None)
        ),
        id="dataset-rows-defaults",
    ),
    pytest.param(
        task(dataset={"paths": ["datasets/a.jsonl", "datasets/b.jsonl"], "id_field": "case_id"}),
        lambda t: t.dataset.paths == ["datasets/a.jsonl", "datasets/b.jsonl"] and t.dataset.rows is None,
        id="dataset-paths",
    ),
    pytest.param(
        task(simulation={"enabled": True, "persona": "analyst", "goal": "a flow"}),
        lambda t: (
            (t.simulation.max_turns, t.simulation.check_criteria, t.simulation.stop_on_criteria_pass)
            == (8, "end_of_dialog", False)
        ),
        id="simulation-defaults",
    ),
    *[
        pytest.param(
            task(
                simulation={
                    "persona": "p",
                    "goal": "g",
                    "stop_on_criteria_pass": True,
                    "check_criteria": mode,
                }
            ),
            lambda t, mode=mode: t.simulation.check_criteria == mode,
            id=f"simulation-stop-on-pass-with-{mode}",
        )
        for mode in ("every_turn", "both")
    ],
    pytest.param(
        task(checker_context={"api_route": {"route": "bedrock", "model": "claude-haiku-4-5"}}),
        lambda t: t.checker_context.api_route.model == "claude-haiku-4-5",
        id="checker-context-bedrock",
    ),
    pytest.param(
        task(
            checker_context={
                "api_route": {
                    "route": "litellm",
                    "model": "azure/gpt-5.6-luna",
                    "params": {"api_version": "2024-05-01"},
                    "env_params": {"api_key": "LITELLM_AUTH_TOKEN"},
                }
            }
        ),
        lambda t: t.checker_context.api_route.params == {"api_version": "2024-05-01"},
        id="checker-context-litellm-with-params",
    ),
    pytest.param(
        with_criteria(
            crit("llm_judge", prompt="grade"),
            checker_context={"api_route": {"route": "litellm", "model": "azure/x"}},
        ),
        lambda t: t.checker_context.api_route.route == "litellm",
        id="litellm-with-llm-judge",
    ),
    pytest.param(
        with_criteria(crit(weight=0)),
        lambda t: t.success_criteria[0].weight == 0 and not t.success_criteria[0].is_gating,
        id="weight-zero-is-informational",
    ),
    pytest.param(
        with_criteria(crit("command_executed", stop_early={})),
        lambda t: (
            t.success_criteria[0].stop_early.on_pass == "continue"
            and t.success_criteria[0].stop_early.decide_within is None
        ),
        id="stop-early-on-command-executed",
    ),
    pytest.param(
        with_criteria(
            crit(
                "skill_triggered",
                skill_name="s",
                expected_skill="s",
                stop_early={"on_pass": "stop", "decide_within": 5},
            )
        ),
        lambda t: t.success_criteria[0].stop_early.on_pass == "stop",
        id="stop-early-on-skill-triggered",
    ),
    pytest.param(
        with_criteria(crit(suite_thresholds={"accuracy": 0.8})),
        lambda t: t.success_criteria[0].suite_thresholds == {"accuracy": 0.8},
        id="suite-thresholds-on-gating-criterion",
    ),
    pytest.param(
        with_criteria(
            crit(
                "json_check",
                path="r.json",
                assertions=[
                    {"expression": "items[?active].name", "operator": "exists"},
                    {"expression": "status", "expected": "success"},
                    {"expression": "meta", "operator": "type", "expected": "object"},
                    {"expression": "length(results)", "operator": "gte", "expected": 1},
                    {"expression": "v", "operator": "regex", "expected": r"^\d+\.\d+$"},
                    {"expression": "x", "expected": None},
                ],
            )
        ),
        lambda t: (
            [a.operator for a in t.success_criteria[0].assertions]
            == ["exists", "equals", "type", "gte", "regex", "equals"]
        ),
        id="json-check-assertions",
    ),
    pytest.param(
        with_criteria(crit("file_contains", path="a.py", excludes=["TODO"])),
        lambda t: t.success_criteria[0].includes == [],
        id="file-contains-excludes-only",
    ),
    pytest.param(
        with_criteria(crit("run_command", command="python app.py", score_from_stdout=True)),
        lambda t: t.success_criteria[0].score_from_stdout is True,
        id="run-command-score-from-stdout",
    ),
]


@pytest.mark.parametrize(("doc", "check"), VALID)
def test_valid_task(doc: dict[str, Any], check: Check) -> None:
    result = check(validate(doc))
    assert result is None or result is True


# ---------------------------------------------------------------------------------------------
# Criteria: one minimal valid example per type, and the shared defaults.
# ---------------------------------------------------------------------------------------------

MINIMAL_CRITERIA: dict[str, dict[str, Any]] = {
    "file_exists": {"path": "app.py"},
    "file_contains": {"path": "app.py", "includes": ["Hello"]},
    "file_check": {"path": "app.py"},
    "file_matches_regex": {"path": "config.py", "pattern": r"^API_KEY = \w+$"},
    "json_check": {"path": "data.json"},
    "run_command": {"command": "python app.py"},
    "cli_called": {"verb": "ixp projects list"},
    "command_executed": {},
    "commands_efficiency": {"expected_commands": 8},
    "classification_match": {
        "path": "result.txt",
        "expected_label": "positive",
        "allowed_labels": ["positive", "negative"],
    },
    "skill_triggered": {"skill_name": "uipath-agents", "expected_skill": ""},
    "reference_comparison": {"agent_file": "solution.py", "reference_file": "solution.py"},
    "llm_judge": {"prompt": "Grade it."},
    "agent_judge": {"prompt": "Inspect Main.xaml."},
    "system_one_judge": {
        "prompt": "Grade.",
        "questions": {"works": {"type": "noul", "instructions": "Does it run?"}},
    },
    "uipath_eval": {"agent_name": "my-agent", "eval_set": "regression-v1", "thresholds": {"accuracy": 0.8}},
    "harbor_verifier": {},
    "output_matches": {"pattern": "done"},
    "tool_order": {"first": {"tool": "Read"}, "then": {"tool": "Write"}},
    "file_created": {"path": "report.md"},
}


def test_every_criterion_type_has_a_minimal_example() -> None:
    assert len(CRITERION_TYPES) == 20
    assert set(MINIMAL_CRITERIA) == set(CRITERION_TYPES)


@pytest.mark.parametrize("type_", sorted(MINIMAL_CRITERIA))
def test_minimal_criterion_validates_with_defaults(type_: str) -> None:
    extra = {"reference": {"directory": "reference"}} if type_ == "reference_comparison" else {}
    t = validate(with_criteria(crit(type_, **MINIMAL_CRITERIA[type_]), **extra))
    (c,) = t.success_criteria
    assert c.type == type_
    assert type(c) is CRITERION_MODELS[CRITERION_TYPES.index(type_)]
    assert c.weight == 1.0
    assert c.pass_threshold == 0.9
    assert c.suite_thresholds is None
    assert c.is_gating


def test_only_live_criteria_carry_stop_early() -> None:
    live = sorted(m.model_fields["type"].default for m in CRITERION_MODELS if issubclass(m, LiveCriterion))
    assert live == ["command_executed", "skill_triggered"]


def test_criterion_specific_defaults() -> None:
    t = validate(
        with_criteria(
            crit("run_command", command="true"),
            crit("llm_judge", prompt="p"),
            crit("agent_judge", prompt="p"),
            crit("cli_called"),
            crit("command_executed"),
            crit("reference_comparison", agent_file="a.py", reference_file="a.py"),
            crit(
                "system_one_judge",
                prompt="p",
                questions={"q": {"type": "score", "instructions": "i", "criteria": ["bad", "good"]}},
            ),
            reference={"directory": "ref"},
        )
    )
    run, llm, agent, cli, cmd, ref, s1 = t.success_criteria
    assert (run.timeout, run.expected_exit_code, run.stdout_match, run.expected_stdout) == (
        30,
        0,
        "exact",
        None,
    )
    assert (llm.include_reference, llm.temperature, llm.max_tokens, llm.max_file_chars) == (
        True,
        0.0,
        2000,
        20_000,
    )
    assert (agent.max_turns, agent.turn_timeout, agent.agent.type) == (50, 300, "claude-code")
    assert (cli.min_count, cli.max_count, cli.ignore_flags, cli.log) == (1, None, ["output"], None)
    assert (cmd.min_count, cmd.max_count, cmd.require_success, cmd.stop_early) == (1, None, False, None)
    assert (ref.comparison_method, ref.similarity_threshold) == ("ast", 0.8)
    assert s1.include_reference is False


# ---------------------------------------------------------------------------------------------
# Invalid documents: (document, YAML path of the problem, fragments the problem must mention).
# ---------------------------------------------------------------------------------------------

INVALID: list[Any] = [
    # required fields
    *[
        pytest.param(task(**{key: DROP}), key, ("required field is missing",), id=f"missing-{key}")
        for key in ("task_id", "description", "success_criteria")
    ],
    pytest.param(task(success_criteria=[]), "success_criteria", ("at least 1",), id="empty-success-criteria"),
    pytest.param(task(description="   "), "description", ("must not be empty",), id="blank-description"),
    pytest.param(
        with_criteria({"type": "file_exists", "path": "x"}),
        "success_criteria[0].description",
        ("required field is missing",),
        id="criterion-needs-description",
    ),
    # task_id must be a safe directory name
    *[
        pytest.param(task(task_id=bad), "task_id", ("directory name",), id=f"task-id-{label}")
        for label, bad in [
            ("space", "my task"),
            ("slash", "a/b"),
            ("parent", "../escape"),
            ("leading-dot", ".hidden"),
            ("leading-dash", "-x"),
            ("backslash", "a\\b"),
            ("empty", ""),
            ("trailing-newline", "abc\n"),
        ]
    ],
    # tags
    *[
        pytest.param(task(tags=["smoke", bad]), "tags", ("kebab-case", "key:value"), id=f"tag-{label}")
        for label, bad in [
            ("uppercase", "Smoke"),
            ("underscore", "pure_python"),
            ("double-namespace", "a:b:c"),
            ("trailing-dash", "smoke-"),
            ("double-dash", "a--b"),
            ("empty-value", "connector:"),
            ("empty-key", ":google"),
            ("space", "smoke test"),
            ("trailing-newline", "smoke\n"),
        ]
    ],
    # initial_prompt
    pytest.param(
        task(initial_prompt=DROP),
        "",
        ("initial_prompt is required unless agent.type is none",),
        id="prompt-required",
    ),
    pytest.param(
        task(initial_prompt="  \n", agent={"type": "codex"}),
        "",
        ("initial_prompt is required",),
        id="blank-prompt-required-for-codex",
    ),
    # agent.type
    pytest.param(
        task(agent={"type": "claud-code"}),
        "agent",
        ("unknown agent type 'claud-code'", "Did you mean 'claude-code'?", "claude-code", "codex", "none"),
        id="agent-type-typo-suggests",
    ),
    pytest.param(
        task(agent={"type": "devin"}),
        "agent",
        ("unknown agent type 'devin'", "Known types:", "antigravity, claude-code, codex", "none", "opencode, pi"),
        id="agent-type-unknown-lists-known",
    ),
    pytest.param(task(agent={"type": 3}), "agent", ("agent.type must be a string",), id="agent-type-not-string"),
    pytest.param(task(agent="claude-code"), "agent", ("must be a mapping",), id="agent-not-mapping"),
    # codex refuses claude-only fields
    *[
        pytest.param(
            task(agent={"type": "codex", key: value}),
            f"agent.{key}",
            (f"unknown key '{key}'",),
            id=f"codex-no-{key}",
        )
        for key, value in [
            ("setting_sources", []),
            ("claude_settings", {"permissions": {}}),
        ]
    ],
    # codex sdk_options may not take over what the harness sets (the route, the sandbox, typed fields)
    *[
        pytest.param(
            task(agent={"type": "codex", "sdk_options": {key: "x"}}),
            "agent.sdk_options",
            (f"sdk_options may not set {key}",),
            id=f"codex-sdk-options-owns-{key}",
        )
        for key in ("model", "model_providers.x.base_url", "sandbox_mode", "developer_instructions")
    ],
    # sdk_options framework-owned keys
    *[
        pytest.param(
            task(agent={"sdk_options": {key: "x"}}),
            "agent.sdk_options",
            (f"sdk_options may not set {key}", "typed agent fields"),
            id=f"sdk-options-owns-{key}",
        )
        for key in (
            "model",
            "max_turns",
            "mcp_servers",
            "permission_mode",
            "allowed_tools",
            "hooks",
            "resume",
            "setting_sources",
            "include_partial_messages",
            "system_prompt",
            "cwd",
            "env",
        )
    ],
    pytest.param(
        task(agent={"permission_mode": "yolo"}),
        "agent.permission_mode",
        ("acceptEdits",),
        id="permission-mode-literal",
    ),
    # system prompt rules
    pytest.param(
        task(agent={"system_prompt": "Be careful.", "system_prompt_file": "p.md"}),
        "agent",
        ("system_prompt and system_prompt_file are mutually exclusive",),
        id="system-prompt-and-file-exclusive",
    ),
    pytest.param(task(agent={"system_prompt_mode": "replace"}), "agent", ("replace needs",), id="replace-needs-prompt"),
    pytest.param(
        task(agent={"system_prompt_mode": "replace", "system_prompt": "  "}),
        "agent",
        ("replace needs a non-blank system_prompt",),
        id="replace-blank-prompt",
    ),
    # sandbox
    pytest.param(task(sandbox={"driver": "podman"}), "sandbox.driver", ("'tempdir'", "'docker'"), id="driver-literal"),
    pytest.param(
        task(sandbox={"python": {"packages": ["pytest"]}}),
        "sandbox.python.packages",
        ("unknown key 'packages'",),
        id="python-unknown-key",
    ),
    pytest.param(
        task(
            sandbox={
                "template_sources": [
                    {"type": "starter_files", "files": [{"path": "a.txt"}]},
                    {"type": "repo", "url": "https://example.com/r.git"},
                ]
            }
        ),
        "sandbox",
        ("repo template source must be the first",),
        id="repo-source-not-first",
    ),
    *[
        pytest.param(
            task(sandbox={"template_sources": [{"type": "starter_files", "files": [{"path": bad}]}]}),
            "sandbox.template_sources[0].files[0].path",
            ("stay inside the sandbox",),
            id=f"starter-file-escapes-{label}",
        )
        for label, bad in [
            ("parent", "../x.py"),
            ("absolute", "/etc/passwd"),
            ("nested-parent", "a/../../x"),
            ("windows-parent", "..\\x.py"),
            ("windows-drive", "C:/Windows/x.txt"),
            ("windows-drive-relative", "C:x.txt"),
            ("unc", "\\\\host\\share\\x"),
        ]
    ],
    *[
        pytest.param(
            task(sandbox={"template_sources": [{"type": "template_dir", "path": "tpl", "mount_point": bad}]}),
            "sandbox.template_sources[0].mount_point",
            ("mount_point must be a relative path that stays inside the sandbox",),
            id=f"mount-point-escapes-{label}",
        )
        for label, bad in [
            ("parent", ".."),
            ("nested-parent", "a/../../b"),
            ("absolute", "/srv"),
            ("windows-drive", "D:\\data"),
        ]
    ],
    pytest.param(
        task(sandbox={"template_sources": [{"type": "svn", "url": "x"}]}),
        "sandbox.template_sources[0]",
        ("unknown type 'svn'",),
        id="template-source-type",
    ),
    *[
        pytest.param(
            task(sandbox={"ignore_patterns": ["*.bak", bad]}),
            "sandbox.ignore_patterns",
            ("must not be empty or a bare '!'",),
            id=f"ignore-pattern-{label}",
        )
        for label, bad in [("empty", ""), ("whitespace", "   "), ("bang", "!"), ("padded-bang", "  ! ")]
    ],
    *[
        pytest.param(
            task(sandbox={"record_cli": [{"tool": name}]}),
            "sandbox.record_cli[0].tool",
            (f"{name!r} cannot be recorded", "break the harness"),
            id=f"record-cli-reserved-{name}",
        )
        for name in ("python", "python3", "env", "sh", "bash", "node", "git", "uv", "cmd")
    ],
    *[
        pytest.param(
            task(sandbox={"record_cli": [{"tool": bad}]}),
            "sandbox.record_cli[0].tool",
            ("bare executable name",),
            id=f"record-cli-not-bare-{label}",
        )
        for label, bad in [
            ("path", "bin/uip"),
            ("relative", "./uip"),
            ("backslash", "C:\\tools\\uip"),
            ("leading-space", " uip"),
            ("inner-space", "uip cli"),
            ("dotfile", ".uip"),
        ]
    ],
    *[
        pytest.param(
            task(sandbox={"record_cli": [{"tool": "uip", "exit_code": code}]}),
            "sandbox.record_cli[0].exit_code",
            (bound,),
            id=f"record-cli-exit-code-{code}",
        )
        for code, bound in [(-1, "greater than or equal to 0"), (256, "less than or equal to 255")]
    ],
    pytest.param(
        task(sandbox={"record_cli": [{"tool": "uip"}, {"tool": "curl"}, {"tool": "uip", "exit_code": 0}]}),
        "sandbox",
        ("record_cli names uip more than once",),
        id="record-cli-duplicate-tool",
    ),
    pytest.param(
        task(sandbox={"docker": {"image": "img:1", "dockerfile_path": "Dockerfile"}}),
        "sandbox.docker",
        ("image and dockerfile_path are mutually exclusive",),
        id="docker-image-xor-dockerfile",
    ),
    *[
        pytest.param(
            task(agent={"ignore_patterns": ["*.bak", bad]}),
            "agent.ignore_patterns",
            ("must not be empty or a bare '!'",),
            id=f"agent-ignore-pattern-{label}",
        )
        for label, bad in [("empty", ""), ("bang", " ! ")]
    ],
    pytest.param(
        with_criteria(crit("agent_judge", prompt="p", agent={"ignore_patterns": ["!"]})),
        "success_criteria[0].agent.ignore_patterns",
        ("must not be empty or a bare '!'",),
        id="judge-agent-ignore-pattern-bang",
    ),
    *[
        pytest.param(
            with_criteria(crit("agent_judge", prompt="p", agent={"sdk_options": {key: value}})),
            "success_criteria[0].agent.sdk_options",
            (f"sdk_options may not set {key}",),
            id=f"judge-agent-sdk-options-owns-{key}",
        )
        for key, value in [("mcp_servers", {}), ("setting_sources", ["user"]), ("hooks", {}), ("model", "x")]
    ],
    # run_limits
    *[
        pytest.param(task(run_limits={key: value}), f"run_limits.{key}", (bound,), id=f"run-limits-{key}-{value}")
        for key, value, bound in [
            ("max_turns", 0, "greater than or equal to 1"),
            ("expected_turns", 0, "greater than or equal to 1"),
            ("task_timeout", 0, "greater than 0"),
            ("turn_timeout", -5, "greater than 0"),
            ("max_input_tokens", 0, "greater than or equal to 1"),
            ("max_output_tokens", 0, "greater than or equal to 1"),
            ("max_total_tokens", 0, "greater than or equal to 1"),
            ("max_usd", 0, "greater than 0"),
            ("stop_early_gate_threshold", 1.5, "less than or equal to 1"),
        ]
    ],
    pytest.param(
        task(run_limits={"stop_early": True}),
        "run_limits",
        ("stop_early: true is not supported", "stop_early block on a criterion", "stop_early: false"),
        id="run-limits-stop-early-true",
    ),
    pytest.param(
        task(run_limits={"max_turn": 3}),
        "run_limits.max_turn",
        ("did you mean 'max_turns'?",),
        id="run-limits-typo",
    ),
    # reference
    *[
        pytest.param(
            task(reference={key: "solution.py"}),
            "reference",
            (
                f"reference.{key} is no longer supported",
                'reference: {directory: "reference"}',
                "reference_file",
            ),
            id=f"reference-{key}-migration",
        )
        for key in ("code", "file")
    ],
    pytest.param(
        task(reference={"directory": "reference", "code": "print(1)"}),
        "reference",
        ("reference.code is no longer supported",),
        id="reference-code-next-to-directory",
    ),
    pytest.param(task(reference={}), "reference.directory", ("required field is missing",), id="reference-needs-dir"),
    pytest.param(
        with_criteria(crit("reference_comparison", agent_file="a.py", reference_file="a.py")),
        "",
        ("reference_comparison", "needs a task-level", "reference: {directory"),
        id="reference-comparison-without-reference",
    ),
    pytest.param(
        with_criteria(
            crit("reference_comparison", agent_file="a.py", reference_file="../a.py"),
            reference={"directory": "r"},
        ),
        "success_criteria[0].reference_file",
        ("stay inside the reference directory",),
        id="reference-file-escapes",
    ),
    pytest.param(
        with_criteria(
            crit("reference_comparison", agent_file="a.py", reference_file="C:/ref/a.py"), reference={"directory": "r"}
        ),
        "success_criteria[0].reference_file",
        ("stay inside the reference directory",),
        id="reference-file-windows-drive",
    ),
    pytest.param(
        with_criteria(crit("reference_comparison", agent_file="a.py"), reference={"directory": "r"}),
        "success_criteria[0].reference_file",
        ("required field is missing",),
        id="reference-file-required",
    ),
    # pre_run / post_run
    *[
        pytest.param(
            task(pre_run=[{"command": "x", "timeout": t}]),
            "pre_run[0].timeout",
            (bound,),
            id=f"pre-run-timeout-{t}",
        )
        for t, bound in [(0, "greater than or equal to 1"), (301, "less than or equal to 300")]
    ],
    pytest.param(
        task(post_run=[{"command": "x", "timeout": 301}]),
        "post_run[0].timeout",
        ("less than or equal to 300",),
        id="post-run-timeout-301",
    ),
    pytest.param(
        task(pre_run=[{"command": "  "}]),
        "pre_run[0].command",
        ("must not be empty",),
        id="pre-run-blank-command",
    ),
    pytest.param(
        task(post_run=[{"command": "x", "fail_on_error": False}]),
        "post_run[0].fail_on_error",
        ("unknown key 'fail_on_error'",),
        id="post-run-has-no-fail-on-error",
    ),
    # dataset
    pytest.param(
        task(dataset={"rows": [{"id": "a"}], "paths": ["a.jsonl"]}),
        "dataset",
        ("Dataset must specify only one of 'paths' or 'rows'",),
        id="dataset-rows-and-paths",
    ),
    pytest.param(task(dataset={}), "dataset", ("Dataset must specify either 'paths' or 'rows'",), id="dataset-neither"),
    pytest.param(
        task(dataset={"paths": []}),
        "dataset",
        ("Dataset.paths must be a non-empty list",),
        id="dataset-paths-empty",
    ),
    pytest.param(
        task(dataset={"rows": [], "sample_per_stratum": 0}),
        "dataset.sample_per_stratum",
        ("greater than or equal to 1",),
        id="dataset-sample-per-stratum-positive",
    ),
    # simulation
    pytest.param(
        task(simulation={"persona": "p", "goal": "g", "stop_on_criteria_pass": True}),
        "simulation",
        ("stop_on_criteria_pass needs check_criteria: every_turn or both",),
        id="simulation-stop-on-pass-needs-per-turn",
    ),
    pytest.param(
        task(simulation={"enabled": True, "goal": "g"}),
        "simulation",
        ("an enabled simulation needs persona",),
        id="simulation-needs-persona",
    ),
    pytest.param(
        task(simulation={"persona": "p", "goal": "g", "max_turns": 101}),
        "simulation.max_turns",
        ("less than or equal to 100",),
        id="simulation-max-turns",
    ),
    pytest.param(
        task(simulation={"persona": "p", "goal": "g", "check_criteria": "sometimes"}),
        "simulation.check_criteria",
        ("end_of_dialog", "every_turn", "both"),
        id="simulation-check-criteria-literal",
    ),
    # checker_context
    pytest.param(
        task(checker_context={"api_route": {"route": "litellm"}}),
        "checker_context.api_route",
        ("route: litellm needs a model",),
        id="litellm-needs-model",
    ),
    *[
        pytest.param(
            task(checker_context={"api_route": {"route": "bedrock", key: {"api_version": "x"}}}),
            "checker_context.api_route",
            ("params and env_params are only valid with route: litellm",),
            id=f"{key}-only-with-litellm",
        )
        for key in ("params", "env_params")
    ],
    pytest.param(
        with_criteria(
            crit("agent_judge", prompt="p"),
            checker_context={"api_route": {"route": "litellm", "model": "azure/x"}},
        ),
        "",
        ("litellm cannot drive agent_judge",),
        id="litellm-with-agent-judge",
    ),
    pytest.param(
        task(checker_context={"api_route": {"route": "openai"}}),
        "checker_context.api_route.route",
        ("'direct'", "'bedrock'", "'litellm'"),
        id="checker-route-literal",
    ),
    # shared criterion fields
    pytest.param(
        with_criteria(crit(weight=0, suite_thresholds={"accuracy": 0.8})),
        "success_criteria[0]",
        ("weight-0 (informational) criterion cannot set suite_thresholds",),
        id="weight-zero-suite-thresholds",
    ),
    *[
        pytest.param(
            with_criteria(crit(type_, weight=0, stop_early={}, **extra)),
            "success_criteria[0]",
            ("weight-0 (informational) criterion cannot set stop_early",),
            id=f"weight-zero-stop-early-{type_}",
        )
        for type_, extra in [
            ("command_executed", {}),
            ("skill_triggered", {"skill_name": "s", "expected_skill": ""}),
        ]
    ],
    *[
        pytest.param(
            with_criteria(crit(type_, stop_early={}, **MINIMAL_CRITERIA[type_])),
            "success_criteria[0].stop_early",
            ("unknown key 'stop_early'",),
            id=f"stop-early-not-on-{type_}",
        )
        for type_ in sorted(set(MINIMAL_CRITERIA) - {"command_executed", "skill_triggered", "reference_comparison"})
    ],
    pytest.param(
        with_criteria(crit("command_executed", stop_early={"on_pass": "halt"})),
        "success_criteria[0].stop_early.on_pass",
        ("'stop'", "'continue'"),
        id="stop-early-on-pass-literal",
    ),
    pytest.param(
        with_criteria(crit("command_executed", stop_early={"decide_within": 0})),
        "success_criteria[0].stop_early.decide_within",
        ("greater than or equal to 1",),
        id="stop-early-decide-within-positive",
    ),
    pytest.param(
        with_criteria(crit(weight=-1)),
        "success_criteria[0].weight",
        ("greater than or equal to 0",),
        id="weight-negative",
    ),
    pytest.param(
        with_criteria(crit(pass_threshold=1.5)),
        "success_criteria[0].pass_threshold",
        ("less than or equal to 1",),
        id="pass-threshold-above-one",
    ),
    # criterion type
    pytest.param(
        with_criteria(crit("file_exist", path="x")),
        "success_criteria[0]",
        ("unknown type 'file_exist'", "did you mean 'file_exists'?"),
        id="criterion-type-typo",
    ),
    pytest.param(
        with_criteria(crit("llm_judg", prompt="p")),
        "success_criteria[0]",
        ("unknown type 'llm_judg'", "did you mean 'llm_judge'?"),
        id="criterion-type-typo-judge",
    ),
    pytest.param(
        with_criteria({"path": "x", "description": "d"}),
        "success_criteria[0]",
        ("missing `type`",),
        id="criterion-type-missing",
    ),
    # regexes
    pytest.param(
        with_criteria(crit("file_matches_regex", path="a", pattern="(unclosed")),
        "success_criteria[0].pattern",
        ("not a valid regular expression",),
        id="file-matches-regex-bad-pattern",
    ),
    *[
        pytest.param(
            with_criteria(crit("command_executed", **{key: "[a-"})),
            f"success_criteria[0].{key}",
            ("not a valid regular expression",),
            id=f"command-executed-bad-{key}",
        )
        for key in ("command_pattern", "exclude_pattern")
    ],
    pytest.param(
        with_criteria(crit("file_check", path="a", patterns=[{"pattern": "*oops"}])),
        "success_criteria[0].patterns[0].pattern",
        ("not a valid regular expression",),
        id="file-check-bad-pattern",
    ),
    pytest.param(
        with_criteria(crit("run_command", command="x", expected_stdout="(", stdout_match="regex")),
        "success_criteria[0]",
        ("not a valid regular expression",),
        id="run-command-bad-stdout-regex",
    ),
    # json_check assertions
    *[
        pytest.param(
            with_criteria(crit("json_check", path="r.json", assertions=[{"expression": "status", "operator": op}])),
            "success_criteria[0].assertions[0]",
            (f"operator {op!r} needs an `expected` value",),
            id=f"json-assertion-{op}-needs-expected",
        )
        for op in ("equals", "not_equals", "contains", "gt", "regex", "type")
    ],
    pytest.param(
        with_criteria(crit("json_check", path="r.json", assertions=[{"expression": "status"}])),
        "success_criteria[0].assertions[0]",
        ("operator 'equals' needs an `expected` value",),
        id="json-assertion-default-operator-needs-expected",
    ),
    *[
        pytest.param(
            with_criteria(crit("json_check", path="r.json", assertions=[{"expression": expr, "operator": "exists"}])),
            "success_criteria[0].assertions[0].expression",
            ("not a valid JMESPath expression",),
            id=f"json-assertion-bad-jmespath-{label}",
        )
        for label, expr in [("open-bracket", "items["), ("dangling-dot", "a."), ("bad-filter", "items[?")]
    ],
    *[
        pytest.param(
            with_criteria(
                crit(
                    "json_check",
                    path="r.json",
                    assertions=[{"expression": "x", "operator": "type", "expected": bad}],
                )
            ),
            "success_criteria[0].assertions[0]",
            ("operator 'type' expects one of", "string", "object", "null"),
            id=f"json-assertion-type-{label}",
        )
        for label, bad in [("str", "str"), ("dict", "dict"), ("none", None), ("int", 3)]
    ],
    pytest.param(
        with_criteria(
            crit(
                "json_check",
                path="r.json",
                assertions=[{"expression": "x", "operator": "regex", "expected": "("}],
            )
        ),
        "success_criteria[0].assertions[0]",
        ("not a valid regular expression",),
        id="json-assertion-bad-regex",
    ),
    pytest.param(
        with_criteria(
            crit(
                "json_check",
                path="r.json",
                assertions=[{"expression": "x", "operator": "matches", "expected": 1}],
            )
        ),
        "success_criteria[0].assertions[0].operator",
        ("'equals'", "'exists'"),
        id="json-assertion-operator-literal",
    ),
    # run_command / file_contains
    pytest.param(
        with_criteria(crit("run_command", command="x", score_from_stdout=True, expected_stdout="1.0")),
        "success_criteria[0]",
        ("score_from_stdout and expected_stdout are mutually exclusive",),
        id="run-command-score-xor-stdout",
    ),
    pytest.param(
        with_criteria(crit("file_contains", path="a.py")),
        "success_criteria[0]",
        ("set includes and/or excludes", "file_exists"),
        id="file-contains-needs-includes-or-excludes",
    ),
    pytest.param(
        with_criteria(crit("file_contains", path="a.py", inclues=["x"])),
        "success_criteria[0].inclues",
        ("unknown key 'inclues'", "did you mean 'includes'?"),
        id="file-contains-typo",
    ),
    # system_one_judge questions
    *[
        pytest.param(
            with_criteria(crit("system_one_judge", prompt="p", questions={"q": question})),
            "success_criteria[0].questions.q",
            fragments,
            id=f"system-one-{label}",
        )
        for label, question, fragments in [
            (
                "choice-expected-and-values",
                {
                    "type": "choice",
                    "instructions": "i",
                    "criteria": ["a", "b"],
                    "expected": "a",
                    "values": {"a": 1.0},
                },
                ("exactly one of expected", "values"),
            ),
            (
                "choice-neither",
                {"type": "choice", "instructions": "i", "criteria": ["a", "b"]},
                ("exactly one of expected", "values"),
            ),
            (
                "choice-expected-not-an-option",
                {"type": "choice", "instructions": "i", "criteria": ["a", "b"], "expected": "c"},
                ("expected 'c' is not one of the options",),
            ),
            (
                "choice-expected-not-a-described-option",
                {
                    "type": "choice",
                    "instructions": "i",
                    "criteria": {"good": "x", "bad": "y"},
                    "expected": "ok",
                },
                ("expected 'ok' is not one of the options", "good", "bad"),
            ),
            (
                "choice-values-unknown-option",
                {"type": "choice", "instructions": "i", "criteria": ["a", "b"], "values": {"z": 0.5}},
                ("values names 'z'",),
            ),
            (
                "choice-value-out-of-range",
                {"type": "choice", "instructions": "i", "criteria": ["a", "b"], "values": {"a": 2}},
                ("between 0 and 1",),
            ),
            (
                "choice-one-option",
                {"type": "choice", "instructions": "i", "criteria": ["a"], "expected": "a"},
                ("at least two options",),
            ),
            (
                "score-one-level",
                {"type": "score", "instructions": "i", "criteria": ["only"]},
                ("at least 2",),
            ),
            ("question-type-unknown", {"type": "yesno", "instructions": "i"}, ("unknown type 'yesno'",)),
        ]
    ],
    pytest.param(
        with_criteria(crit("system_one_judge", prompt="p", questions={})),
        "success_criteria[0].questions",
        ("at least 1",),
        id="system-one-needs-a-question",
    ),
    # other per-type rules
    pytest.param(
        with_criteria(crit("commands_efficiency", expected_commands=0)),
        "success_criteria[0].expected_commands",
        ("greater than or equal to 1",),
        id="commands-efficiency-positive",
    ),
    pytest.param(
        with_criteria(crit("command_executed", min_count=3, max_count=1)),
        "success_criteria[0]",
        ("max_count (1) is below min_count (3)",),
        id="command-executed-bounds",
    ),
    pytest.param(
        with_criteria(crit("classification_match", path="r", expected_label="a", allowed_labels=[])),
        "success_criteria[0].allowed_labels",
        ("at least 1",),
        id="classification-needs-labels",
    ),
    pytest.param(
        with_criteria(crit("uipath_eval", agent_name="a", eval_set="e", thresholds={})),
        "success_criteria[0].thresholds",
        ("at least 1",),
        id="uipath-eval-needs-thresholds",
    ),
    pytest.param(
        with_criteria(crit("agent_judge", prompt="p", agent={"type": "codex"})),
        "success_criteria[0].agent.type",
        ("'claude-code'",),
        id="agent-judge-runs-on-claude-code",
    ),
    # unknown keys below the top level (top-level ones warn: tests/loading/test_compat.py)
    pytest.param(
        task(agent={"permision_mode": "plan"}),
        "agent.permision_mode",
        ("unknown key 'permision_mode'", "did you mean 'permission_mode'?"),
        id="agent-key-typo",
    ),
    pytest.param(
        task(agent={"max_turns": 10}),
        "agent.max_turns",
        ("unknown key 'max_turns'",),
        id="run-caps-are-not-agent-fields",
    ),
]


@pytest.mark.parametrize(("doc", "at", "fragments"), INVALID)
def test_invalid_task(doc: dict[str, Any], at: str, fragments: tuple[str, ...]) -> None:
    assert_problem(doc, at, *fragments)


# ---------------------------------------------------------------------------------------------
# A few rules that read better as plain tests.
# ---------------------------------------------------------------------------------------------


def test_codex_error_lists_what_codex_does_accept() -> None:
    p = assert_problem(task(agent={"type": "codex", "setting_sources": []}), "agent.setting_sources", "unknown key")
    assert "permission_mode" in p.hint and "setting_sources" not in p.hint.split("allowed keys:")[-1]


def test_agent_type_none_may_omit_prompt_but_not_criteria() -> None:
    assert_problem(
        task(initial_prompt=DROP, agent={"type": "none"}, success_criteria=DROP),
        "success_criteria",
        "required field is missing",
    )


def test_simulation_cannot_run_without_an_agent() -> None:
    doc = task(agent={"type": "none"}, simulation={"enabled": True, "persona": "p", "goal": "g"})
    assert_problem(doc, "", "simulation needs an agent")


def test_disabled_simulation_is_fine_with_agent_none() -> None:
    doc = task(agent={"type": "none"}, simulation={"enabled": False, "persona": "p", "goal": "g"})
    assert validate(doc).simulation is not None


def test_litellm_accepts_a_disabled_route_combination_without_agent_judge() -> None:
    doc = with_criteria(crit(), checker_context={"api_route": {"route": "litellm", "model": "m"}})
    assert validate(doc).checker_context.api_route.route == "litellm"


def test_task_round_trips_through_json() -> None:
    doc = task(
        agent={"type": "codex", "model": "gpt-5"},
        sandbox={"record_cli": [{"tool": "uip", "exit_code": 0}], "python": None},
        success_criteria=[crit("command_executed", stop_early={"on_pass": "stop"}), crit()],
    )
    t = validate(doc)
    again = TaskDefinition.model_validate_json(t.model_dump_json())
    assert again == t
    assert isinstance(again.agent, CodexConfig)


def test_several_problems_reported_at_once() -> None:
    doc = task(task_id="bad id", tags=["Bad"], success_criteria=[crit("file_exist")])
    paths = {p.field_path for p in problems_of(doc)}
    assert {"task_id", "tags", "success_criteria[0]"} <= paths


def test_lazy_model_exports_match_the_criteria_module():
    import coder_eval.models as models
    from coder_eval.models import criteria
    from coder_eval.models.criteria_names import CRITERIA_EXPORTS

    assert set(CRITERIA_EXPORTS) == set(criteria.__all__)
    for name in models.__all__:
        assert getattr(models, name) is not None
