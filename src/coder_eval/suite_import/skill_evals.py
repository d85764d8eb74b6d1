"""`coder-eval import skill-evals SKILL_DIR -o OUT`: skill-creator's `evals/evals.json` as task files and a
without/with-skill experiment.

skill-creator runs each eval's prompt twice (with the skill, and without it as the baseline) and a
grader model marks each expectation passed or failed; the pass rate is passed / total. Here each
eval becomes `OUT/<eval>/task.yaml`: its `files` (paths under the skill) are copied into the
workspace at the same paths and named in the prompt, as skill-creator's executor is told them;
each expectation becomes one pass/fail criterion of weight 1 (so the score is the pass rate):
a deterministic check where `expectations.py` recognises the wording (unless `--judge-all`), else
an `llm_judge` shown the reply and the tool calls with `expected_output` as context. An eval with
no expectation is judged on its `expected_output`. An entry with `should_trigger` (the
description-optimisation format) becomes a `skill_triggered` check.

The with-skill arm loads the skill where it lives when its directory sits in a plugin's
`skills/` (the plugin's other skills come along, and the report says so); otherwise the import
copies it to `OUT/plugin/skills/<name>/` and says that the copy is a snapshot.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from coder_eval.errors import CoderEvalError, TaskConfigError, UsageError
from coder_eval.suite_import.expectations import deterministic, named_file
from coder_eval.suite_import.experiment_file import plugin_path, write_ablation
from coder_eval.suite_import.frontmatter import read_markdown
from coder_eval.suite_import.report import (
    ImportedCase,
    ImportReport,
    Refused,
    one_line,
    slug,
    write_report_file,
    write_task,
)

EVALS_FILE = "evals/evals.json"
SCRIPTS_DIR = "evals/scripts"
"""`evals/scripts/<task id>.yaml`, when present, is the scripted model's script for that eval (`-b script`)."""
RUNS = 3
"""skill-creator's runs per configuration."""
EXECUTOR_TOOLS = ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "Skill"]
TURN_TIMEOUT_SEC = 600
JUDGED_LOSS = (
    "judged expectations: one verdict each from the reply and the tool calls (skill-creator's grader reads the "
    "transcript and the output files)"
)


def _read_evals(skill_dir: Path) -> tuple[dict[str, Any], Path]:
    path = skill_dir / EVALS_FILE
    if not path.is_file():
        raise UsageError(f"{skill_dir} has no {EVALS_FILE}: pass the skill's directory (the one holding SKILL.md)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TaskConfigError.single(path, f"not readable as JSON: {one_line(exc)}", "", "fix the file") from None
    if isinstance(data, list):
        data = {"evals": data}
    if not isinstance(data, dict) or not isinstance(data.get("evals"), list) or not data["evals"]:
        raise TaskConfigError.single(path, "no evals: expected an object with a non-empty `evals` list", "evals")
    return data, path


def skill_name_of(skill_dir: Path, declared: Any) -> str:
    skill_md = skill_dir / "SKILL.md"
    if not skill_md.is_file():
        raise UsageError(f"{skill_dir} has no SKILL.md: pass the skill's directory")
    front, _ = read_markdown(skill_md)
    for name in (declared, (front or {}).get("name"), skill_dir.name):
        if isinstance(name, str) and name.strip():
            return name.strip()
    return skill_dir.name


def plugin_root_for(skill_dir: Path, name: str, out: Path, notes: list[str]) -> Path:
    """The plugin root the with-skill arm loads: the enclosing plugin, or a copy made here."""
    parent = skill_dir.parent
    if parent.name == "skills" and skill_dir.name == name:
        others = sorted(p.parent.name for p in parent.glob("*/SKILL.md") if p.parent.name != name)
        if others:
            notes.append(
                f"the with-skill arm loads the plugin at {parent.parent}, so also its skills {', '.join(others)}"
            )
        return parent.parent
    root = out / "plugin"
    target = root / "skills" / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(skill_dir, target, symlinks=True, ignore=shutil.ignore_patterns("evals", "*-workspace"))
    notes.append(f"the skill is copied to {target} (a snapshot: import again after changing the skill)")
    return root


def _text(item: Any, where: str, source: Path) -> str:
    if isinstance(item, str) and item.strip():
        return item.strip()
    if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip():
        return str(item["text"]).strip()
    raise TaskConfigError.single(source, "an expectation must be a sentence (or an object with `text`)", where)


def _judge(text: str, entry: dict[str, Any], files: list[str]) -> dict[str, Any]:
    context = f"The task given to the agent:\n{entry['prompt']}\n\n"
    if entry.get("expected_output"):
        context += f"What a good result looks like (context, not itself graded):\n{entry['expected_output']}\n\n"
    prompt = (
        f"{context}Decide whether this expectation holds for the agent's work, from its final reply and its tool "
        "calls (and any files shown). Without clear evidence it does not hold. Score 1.0 when it holds and 0.0 when "
        f"it does not.\n\nExpectation:\n{text}"
    )
    body: dict[str, Any] = {"type": "llm_judge", "prompt": prompt, "include_reference": False, "pass_threshold": 0.5}
    body.update(include_agent_output=True, include_tool_calls=True)
    if files:
        body["files"] = files
    return body


def _criteria(entry: dict[str, Any], skill: str, judge_all: bool, where: str, source: Path) -> list[dict[str, Any]]:
    raw = entry.get("expectations", entry.get("assertions"))
    if raw is not None and not isinstance(raw, list):
        raise TaskConfigError.single(source, "expectations must be a list of sentences", f"{where}.expectations")
    out: list[dict[str, Any]] = []
    for i, item in enumerate(raw or []):
        text = _text(item, f"{where}.expectations[{i}]", source)
        body = None if judge_all else deterministic(text, skill)
        how = "judged" if body is None else f"checked: {body['type']}"
        if body is None:
            shown = named_file(text)  # a file the sentence names is shown to the judge
            body = _judge(text, entry, [shown] if shown else [])
        out.append({"description": f"expectation {i + 1}: {text} ({how})"[:300], **body, "weight": 1.0})
    if not out:
        expected = entry.get("expected_output")
        if not isinstance(expected, str) or not expected.strip():
            raise TaskConfigError.single(
                source, "nothing to grade: no expectations and no expected_output", where, "add expectations"
            )
        out.append({"description": "expected output (judged)", **_judge(expected, entry, []), "weight": 1.0})
    for item in out:
        item.setdefault("pass_threshold", 1.0)
    return out


def _inputs(entry: dict[str, Any], skill_dir: Path, target: Path, where: str, source: Path) -> list[str]:
    files = entry.get("files") or []
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise TaskConfigError.single(source, "files must be a list of paths under the skill", f"{where}.files")
    for rel in files:
        pure = PurePosixPath(rel.replace("\\", "/"))
        path = (skill_dir / pure).resolve()
        if pure.is_absolute() or not path.is_relative_to(skill_dir.resolve()) or not path.is_file():
            raise TaskConfigError.single(source, f"{rel!r} is not a file under the skill", f"{where}.files")
        copy = target / "inputs" / pure
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copy)
    return [PurePosixPath(f.replace("\\", "/")).as_posix() for f in files]


def _trigger_task(entry: dict[str, Any], skill: str, where: str, source: Path) -> tuple[str, list[dict[str, Any]]]:
    prompt = entry.get("query", entry.get("prompt"))
    if not isinstance(prompt, str) or not prompt.strip() or not isinstance(entry["should_trigger"], bool):
        raise TaskConfigError.single(source, "a trigger entry needs a query and should_trigger: true/false", where)
    expected = skill if entry["should_trigger"] else ""
    wanted = "fires" if expected else "does not fire"
    criterion = {"type": "skill_triggered", "skill_name": skill, "expected_skill": expected}
    return prompt, [{"description": f"the {skill} skill {wanted}", **criterion, "pass_threshold": 1.0}]


@dataclass(frozen=True)
class SkillSuite:
    skill_dir: Path
    source: Path
    """evals.json"""
    skill: str
    plugin_root: Path
    out: Path
    judge_all: bool


def import_eval(entry: dict[str, Any], index: int, suite: SkillSuite, task_id: str) -> ImportedCase:
    """One eval into `out/task_id/` (removed again when the eval is refused)."""
    skill_dir, out, skill, source = suite.skill_dir, suite.out, suite.skill, suite.source
    where = f"evals[{index}]"
    target = out / task_id
    if target.exists():
        raise UsageError(f"{target} already exists; import into an empty directory or remove it")
    target.mkdir(parents=True)
    try:
        losses: list[str] = []
        doc: dict[str, Any] = {"task_id": task_id, "description": f"skill-creator eval {task_id} of the {skill} skill"}
        doc["tags"] = ["skill-evals", slug(skill)]
        if "should_trigger" in entry:
            prompt, criteria = _trigger_task(entry, skill, where, source)
        else:
            given = entry.get("prompt")
            if not isinstance(given, str) or not given.strip():
                raise TaskConfigError.single(source, "no prompt", f"{where}.prompt", "every eval needs one")
            prompt = given
            criteria = _criteria(entry, skill, suite.judge_all, where, source)
            inputs = _inputs(entry, skill_dir, target, where, source)
            if inputs:
                prompt = f"{prompt}\n\nInput files: {', '.join(inputs)}"
                doc["sandbox"] = {"python": None, "template_sources": [{"type": "template_dir", "path": "inputs"}]}
            if any(c["type"] == "llm_judge" for c in criteria):
                losses.append(JUDGED_LOSS)
        doc["initial_prompt"] = prompt
        doc["agent"] = {
            "type": "claude-code",
            "permission_mode": "acceptEdits",
            "setting_sources": [],
            "allowed_tools": list(EXECUTOR_TOOLS),
            "plugins": [{"type": "local", "path": plugin_path(suite.plugin_root, target)}],
        }
        doc.setdefault("sandbox", {"python": None})
        doc["run_limits"] = {"turn_timeout": TURN_TIMEOUT_SEC, "task_timeout": TURN_TIMEOUT_SEC + 600}
        doc["success_criteria"] = criteria
        script = skill_dir / SCRIPTS_DIR / f"{task_id}.yaml"
        if script.is_file():  # the scripted model's part, a Coder Eval addition skill-creator ignores
            shutil.copyfile(script, target / "task.script.yaml")
        header = f"# Imported from eval {entry.get('id', index)} of {source} by `coder-eval import skill-evals`.\n"
        write_task(doc, target / "task.yaml", header)
        return ImportedCase(Path(f"{source}#{task_id}"), target / "task.yaml", losses)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise


def _task_id(entry: Any, index: int) -> str:
    if isinstance(entry, dict):
        for key in ("name", "eval_name"):
            if isinstance(entry.get(key), str) and entry[key].strip():
                return slug(entry[key])
        if isinstance(entry.get("id"), int | str) and not isinstance(entry.get("id"), bool):
            return slug(f"eval-{entry['id']}")
    return f"eval-{index}"


def import_skill_evals(skill_dir: Path, out: Path, *, judge_all: bool = False) -> ImportReport:
    """Every eval of the skill's evals.json into `out`, and the without/with-skill experiment."""
    if not skill_dir.is_dir():
        raise UsageError(f"{skill_dir} is not a directory: pass the skill's directory (SKILL.md and evals/)")
    skill_dir = skill_dir.resolve()
    data, source = _read_evals(skill_dir)
    skill = skill_name_of(skill_dir, data.get("skill_name"))
    out.mkdir(parents=True, exist_ok=True)
    report = ImportReport()
    plugin_root = plugin_root_for(skill_dir, skill, out, report.notes)
    suite = SkillSuite(skill_dir, source, skill, plugin_root, out, judge_all)
    taken: set[str] = set()
    for index, entry in enumerate(data["evals"]):
        task_id = _task_id(entry, index)
        try:
            if not isinstance(entry, dict):
                raise TaskConfigError.single(source, "an eval must be an object", f"evals[{index}]")
            if task_id in taken:
                raise UsageError(f"evals[{index}] becomes the task id {task_id!r}, which another eval took")
            report.imported.append(import_eval(entry, index, suite, task_id))
            taken.add(task_id)
        except CoderEvalError as exc:
            report.refused.append(Refused(Path(f"{source}#{task_id}"), one_line(exc)))
    if report.imported:
        report.experiment = write_ablation(
            out, skill, RUNS, plugin_root, arms=("without-skill", "with-skill"), what=f"the skill {skill}"
        )
    write_report_file(report, out, f"coder-eval import skill-evals {skill_dir}")
    return report
