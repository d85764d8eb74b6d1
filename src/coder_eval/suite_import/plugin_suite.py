"""`coder-eval import plugin-eval PLUGIN_DIR -o OUT`: a `claude plugin eval` suite as task files and a
two-arm experiment.

The plugin is the directory holding `plugin.json` or `.claude-plugin/plugin.json`; its suite is the
eval directory (`--eval-dir`, else the manifest's `experimental.evals`, else `evals/`). Every case
directory (one holding `case.yaml` or `prompt.md`, at any depth; `mocks/`, `results/` and hidden
directories are not cases) becomes `OUT/<case>/task.yaml`, graded by the criteria of
`plugin_graders.py`, with the plugin in its agent block. `OUT/experiment.yaml` runs every case
without and with the plugin (the format's ablation), `runs` replicates each, for the paired verdict.

Best effort, as the Harbor import: each case is imported or refused with its reason (a grader
that cannot be carried, a resumed-session case, an invalid case file), nothing is left of a
refused case, and what an imported case could not carry is listed under it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any

from coder_eval.errors import CoderEvalError, TaskConfigError, UsageError
from coder_eval.suite_import.experiment_file import plugin_path, write_ablation
from coder_eval.suite_import.plugin_case import PluginCase, read_case
from coder_eval.suite_import.plugin_graders import GraderContext, GraderRefusedError, criterion_for, is_with_only
from coder_eval.suite_import.report import (
    ImportedCase,
    ImportReport,
    Refused,
    one_line,
    slug,
    write_report_file,
    write_task,
)

READ_ONLY_TOOLS = ("Read", "Glob", "Grep", "Skill")
"""Tools a case always has in `claude plugin eval` (its read-only set), before the case's own."""
NOT_CASES = frozenset({"mocks", "results", "node_modules"})
MANIFESTS = ("plugin.json", ".claude-plugin/plugin.json")
SCRIPT_FILE = "task.script.yaml"
"""A case directory may hold the scripted model's script for the case (`-b script`); it is copied along."""
GRADING_SLACK_SEC = 600
"""The task's deadline beyond the agent's `timeout_seconds`: set-up, scaffold and grading."""


def manifest_of(plugin_dir: Path) -> dict[str, Any] | None:
    """The plugin's manifest, or None when the directory has none."""
    for name in MANIFESTS:
        path = plugin_dir / name
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise TaskConfigError.single(
                    path, f"not readable as JSON: {one_line(exc)}", "", "fix the manifest"
                ) from None
            if not isinstance(data, dict):
                raise TaskConfigError.single(path, "the manifest is not a JSON object", "", "fix the manifest")
            return data
    return None


def eval_dir_of(plugin_dir: Path, manifest: dict[str, Any] | None, eval_dir: str | None = None) -> Path:
    """`--eval-dir`, else the manifest's `experimental.evals`, else `evals`, below the plugin root."""
    chosen = eval_dir
    if chosen is None and manifest is not None:
        declared = (
            (manifest.get("experimental") or {}).get("evals")
            if isinstance(manifest.get("experimental"), dict)
            else None
        )
        chosen = declared if isinstance(declared, str) and declared.strip() else None
    rel = PurePosixPath((chosen or "evals").replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts:
        raise UsageError(f"the eval directory {chosen!r} must be a relative path inside the plugin {plugin_dir}")
    return plugin_dir / rel


def find_cases(eval_dir: Path) -> list[Path]:
    """Case directories under the eval directory, sorted; a case's own subdirectories are not searched."""
    found: list[Path] = []
    for current, dirs, files in os.walk(eval_dir):
        if "case.yaml" in files or "prompt.md" in files:
            found.append(Path(current))
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in NOT_CASES)
    return sorted(found)


def skills_of(plugin_dir: Path) -> list[str]:
    skills = plugin_dir / "skills"
    return sorted(p.parent.name for p in skills.glob("*/SKILL.md")) if skills.is_dir() else []


def is_plugin_suite(path: Path) -> bool:
    """A plugin directory (a manifest) whose eval directory holds at least one case."""
    try:
        manifest = manifest_of(path)
    except CoderEvalError:
        return False
    if manifest is None:
        return False
    evals = eval_dir_of(path, manifest)
    return evals.is_dir() and bool(find_cases(evals))


def _agent(case: PluginCase, plugin_rel: str) -> dict[str, Any]:
    execution = case.execution
    tools = list(dict.fromkeys([*READ_ONLY_TOOLS, *execution.allowed_tools]))
    agent: dict[str, Any] = {
        "type": "claude-code",
        "permission_mode": "acceptEdits",
        "setting_sources": [],
        "allowed_tools": tools,
        "plugins": [{"type": "local", "path": plugin_rel}],
    }
    if execution.disallowed_tools:
        agent["disallowed_tools"] = list(execution.disallowed_tools)
    if execution.model:
        agent["model"] = execution.model
    if execution.append_system_prompt:
        agent["system_prompt"] = execution.append_system_prompt
    return agent


def _context_losses(case: PluginCase, source: Path) -> list[str]:
    losses: list[str] = []
    if case.context.history_file:
        raise TaskConfigError.single(
            source,
            "the case resumes a recorded session (context.history_file), which no agent here can be handed",
            "context.history_file",
            "write the earlier turns into the prompt, or leave this case to claude plugin eval",
        )
    execution, context = case.execution, case.context
    if execution.model:
        losses.append(
            f"execution.model ({execution.model}): carried as agent.model, a Claude model; give another agent kind "
            "its own with -m"
        )
    if execution.env:
        losses.append(
            f"execution.env ({', '.join(sorted(execution.env))}): the agent gets no variables set by the case"
        )
    for key in ("artifact_publish", "growthbook_overrides"):
        if getattr(execution, key) is not None:
            losses.append(f"execution.{key}: Claude Code's own setting, not carried")
    if context.add_dirs:
        losses.append(f"context.add_dirs ({', '.join(context.add_dirs)}): extra directories are not given to the agent")
    if case.plugins:
        losses.append(f"plugins ({', '.join(case.plugins)}): the with-plugin arm loads the plugin under test only")
    if case.expected_outcome:
        losses.append("expected_outcome: informational, not kept")
    extra = sorted(set(case.model_extra or {}) | {f"execution.{k}" for k in execution.model_extra or {}})
    extra += sorted(f"context.{k}" for k in context.model_extra or {})
    losses.extend(f"{key}: not a key of the format; ignored" for key in extra)
    return losses


def _scaffold(case: PluginCase, case_dir: Path, task_dir: Path, source: Path) -> list[dict[str, Any]]:
    script = case.context.scaffold_script
    if not script:
        return []
    rel = PurePosixPath(script.replace("\\", "/"))
    path = (case_dir / rel).resolve()
    if rel.is_absolute() or not path.is_relative_to(case_dir.resolve()) or not path.is_file():
        raise TaskConfigError.single(
            source, f"{script!r} is not a file inside the case directory", "context.scaffold_script", "fix the path"
        )
    (task_dir / "scaffold").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, task_dir / "scaffold" / rel.name)
    return [{"command": f'bash "$TASK_DIR/scaffold/{rel.name}"', "timeout": 120}]


def import_case(
    case_dir: Path, read: tuple[PluginCase, Path, list[Path]], out: Path, plugin_dir: Path, skills: list[str]
) -> ImportedCase:
    """One case (as `read_case` read it) into `out/<task id>/`, removed again when the case is refused."""
    case, source, sources = read
    target = out / slug(case.name)
    if target.exists():
        raise UsageError(f"{target} already exists; import into an empty directory or remove it")
    target.mkdir(parents=True)
    try:
        return _write_case(case, case_dir, source, sources, target, plugin_dir, skills)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


def _write_case(
    case: PluginCase,
    case_dir: Path,
    source: Path,
    sources: list[Path],
    target: Path,
    plugin_dir: Path,
    skills: list[str],
) -> ImportedCase:
    losses = _context_losses(case, source)
    scored = not all(is_with_only(g) for g in case.graders)
    ctx = GraderContext(case_dir=case_dir, task_dir=target, skills=skills, with_only_informational=scored)
    criteria = []
    for i, grader in enumerate(case.graders):
        try:
            criteria.append(criterion_for(grader, ctx))
        except GraderRefusedError as exc:
            raise TaskConfigError.single(
                sources[i], exc.reason, f"graders[{grader.name}].{exc.field_name}", "grade it by hand, or remove it"
            ) from None
    timeout = case.execution.timeout_seconds
    doc: dict[str, Any] = {
        "task_id": target.name,
        "description": case.description or f"claude plugin eval case {case.name}",
        "tags": list(dict.fromkeys(["plugin-eval", *(slug(t) for t in case.tags)])),
        "initial_prompt": case.execution.prompt,
        "agent": _agent(case, plugin_path(plugin_dir, target)),
        "sandbox": {"python": None},  # the format runs the agent with the operator's own tools
        "run_limits": {
            "max_turns": case.execution.max_turns,
            "turn_timeout": timeout,
            "task_timeout": timeout + GRADING_SLACK_SEC,
        },
    }
    pre_run = _scaffold(case, case_dir, target, source)
    if pre_run:
        doc["pre_run"] = pre_run
    doc["success_criteria"] = criteria
    script = case_dir / SCRIPT_FILE
    if script.is_file():  # the scripted model's part, a Coder Eval addition the format ignores
        shutil.copyfile(script, target / SCRIPT_FILE)
    header = f"# Imported from the claude plugin eval case {case_dir} by `coder-eval import plugin-eval`.\n"
    write_task(doc, target / "task.yaml", header)
    return ImportedCase(case_dir, target / "task.yaml", [*losses, *ctx.losses])


def import_plugin_eval(plugin_dir: Path, out: Path, eval_dir: str | None = None) -> ImportReport:
    """Every case of the plugin's suite into `out`, and the two-arm experiment beside them."""
    if not plugin_dir.is_dir():
        raise UsageError(f"{plugin_dir} is not a directory: pass the plugin's root directory")
    plugin_dir = plugin_dir.resolve()
    manifest = manifest_of(plugin_dir)
    evals = eval_dir_of(plugin_dir, manifest, eval_dir)
    if not evals.is_dir():
        raise UsageError(f"{plugin_dir} has no eval directory {evals.name}/ (pass --eval-dir if it is elsewhere)")
    cases = find_cases(evals)
    if not cases:
        raise UsageError(f"{evals} holds no case (a directory with case.yaml or prompt.md)")
    report = ImportReport()
    if manifest is None:
        report.notes.append("no plugin.json: the directory itself is loaded as the plugin")
    if (evals / "mocks").is_dir():
        report.notes.append(
            "mocks/: the MCP stand-ins are not carried; the plugin's servers start as the agent starts them"
        )
    skills = skills_of(plugin_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs: dict[str, int] = {}
    for case_dir in cases:
        try:
            read = read_case(case_dir)
            case, task_id = read[0], slug(read[0].name)
            if task_id in runs:
                raise UsageError(f"its name {case.name!r} becomes the task id {task_id!r}, which another case took")
            report.imported.append(import_case(case_dir, read, out, plugin_dir, skills))
            runs[task_id] = case.runs
        except CoderEvalError as exc:
            report.refused.append(Refused(case_dir, one_line(exc)))
    if report.imported:
        name = str((manifest or {}).get("name") or plugin_dir.name)
        repeats = max(runs.values())
        for item in report.imported:
            own = runs[item.task_file.parent.name]
            if own != repeats:
                item.losses.append(
                    f"runs: {own}: every case runs {repeats} times per arm here (the suite's largest runs)"
                )
        report.experiment = write_ablation(
            out, name, repeats, plugin_dir, arms=("without-plugin", "with-plugin"), what=f"the plugin {name}"
        )
    write_report_file(report, out, f"coder-eval import plugin-eval {plugin_dir}")
    return report
