"""Rules read from the task definitions alone, no run needed."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from difflib import SequenceMatcher
from pathlib import Path

from rapidfuzz.distance import Indel
from rapidfuzz.process import cdist

from coder_eval.lint.findings import Finding, finding
from coder_eval.lint.reference_rule import runs_code_with_reference
from coder_eval.loading.loader import LoadedTask
from coder_eval.loading.yaml_source import LineMap, read_yaml
from coder_eval.models.criteria import (
    BaseCriterion,
    FileContainsCriterion,
    FileExistsCriterion,
    FileMatchesRegexCriterion,
    RunCommandCriterion,
)

MIN_LEAK_CHARS = 8
"""Shorter expected strings (`ok`, `42`) appear in prompts by coincidence; only longer ones count."""
DUPLICATE_RATIO = 0.9
_ECHO_COMMAND = re.compile(r"^\s*(cat|echo|printf|head|tail)\b[^;&|<>$`]*$")
_BACKGROUND = re.compile(r"(^|[^&])&\s*($|;)|\bnohup\b|\bsetsid\b|--daemon\b")


class Lines:
    """Line numbers of a task file's fields, read once per file."""

    def __init__(self) -> None:
        self._maps: dict[Path, LineMap] = {}

    def line(self, path: Path, *field: str | int) -> int:
        if path not in self._maps:
            try:
                self._maps[path] = read_yaml(path)[1]
            except Exception:  # the file loaded a moment ago; lines are a nicety
                self._maps[path] = {}
        lines = self._maps[path]
        while field and field not in lines:
            field = field[:-1]
        return lines.get(field, 1)


def _expected_strings(criterion: BaseCriterion) -> list[str]:
    if isinstance(criterion, FileContainsCriterion):
        return list(criterion.includes)
    if isinstance(criterion, RunCommandCriterion) and criterion.expected_stdout and criterion.stdout_match != "regex":
        return [criterion.expected_stdout.strip()]
    return []


def _is_text_presence(criterion: BaseCriterion) -> bool:
    """Satisfied by writing the right text into a file: nothing is executed or parsed."""
    if isinstance(criterion, FileExistsCriterion | FileMatchesRegexCriterion):
        return True
    if isinstance(criterion, FileContainsCriterion):
        return not criterion.excludes
    if isinstance(criterion, RunCommandCriterion):
        return bool(_ECHO_COMMAND.match(criterion.command)) and criterion.expected_stdout is not None
    return False


def _task_rules(task: LoadedTask, lines: Lines) -> Iterable[Finding]:
    d = task.definition
    file = str(task.source_file)
    where = {"file": file, "task_id": task.suite_id or task.task_id}
    criteria = list(d.success_criteria)
    gating = [c for c in criteria if c.is_gating]
    prompt = d.initial_prompt or ""
    for i, criterion in enumerate(criteria):
        for text in _expected_strings(criterion):
            if len(text) >= MIN_LEAK_CHARS and text in prompt:
                yield finding(
                    "CE101",
                    line=lines.line(task.source_file, "success_criteria", i),
                    message=f"success_criteria[{i}] ({criterion.type}) expects {text!r}, which the prompt "
                    "spells out: an agent can copy it without doing the work",
                    **where,
                )
        exposure = runs_code_with_reference(criterion) if d.reference is not None else None
        if exposure is not None:
            yield finding(
                "CE109",
                line=lines.line(task.source_file, "success_criteria", i),
                message=f"success_criteria[{i}] ({criterion.type}) sees the reference and {exposure}: "
                "code the agent wrote can read the reference while it runs",
                **where,
            )
        if _is_text_presence(criterion) and isinstance(criterion, RunCommandCriterion):
            yield finding(
                "CE104",
                line=lines.line(task.source_file, "success_criteria", i, "command"),
                message=f"success_criteria[{i}] runs {criterion.command!r}, which only prints text the "
                "agent wrote; the expected output can be echoed into the file",
                **where,
            )
    if not gating:
        yield finding(
            "CE102",
            line=lines.line(task.source_file, "success_criteria"),
            message=f"all {len(criteria)} criteria have weight 0",
            **where,
        )
    elif all(isinstance(c, FileExistsCriterion) for c in gating):
        yield finding(
            "CE103",
            line=lines.line(task.source_file, "success_criteria"),
            message=f"the {len(gating)} gating criteria only check that files exist",
            **where,
        )
    elif all(_is_text_presence(c) for c in gating):
        yield finding(
            "CE104",
            line=lines.line(task.source_file, "success_criteria"),
            message="every gating criterion checks for text in a file; none runs or parses what the agent made",
            **where,
        )
    from coder_eval.engine.tool_permissions import refusal_warnings
    from coder_eval.models.agent import DEFAULT_AGENT_KIND, parse_agent_config

    agent = d.agent or parse_agent_config({"type": DEFAULT_AGENT_KIND})
    for message in refusal_warnings(criteria, agent):
        yield finding("CE108", line=lines.line(task.source_file, "agent"), message=message, **where)
    if d.pre_run and not d.post_run:
        for i, command in enumerate(d.pre_run):
            if _BACKGROUND.search(command.command):
                yield finding(
                    "CE106",
                    line=lines.line(task.source_file, "pre_run", i),
                    message=f"pre_run[{i}] starts a background process ({command.command.strip()[:60]!r}) "
                    "and the task has no post_run",
                    **where,
                )


def _duplicates(tasks: list[LoadedTask], lines: Lines) -> Iterable[Finding]:
    """Near-identical prompts with the same criterion kinds, across different task files.

    A later task is compared with each earlier one of the same criterion kinds, in order, and
    reported against the first whose difflib ratio reaches DUPLICATE_RATIO. difflib's ratio never
    exceeds the LCS similarity (its matching blocks are a common subsequence), which rapidfuzz
    computes for a whole group at once in C++; only the pairs that similarity lets through pay for
    difflib, so the findings and their figures are the pairwise scan's, without its quadratic cost."""
    singles = [t for t in tasks if t.row_id is None and t.definition.initial_prompt]
    groups: dict[tuple[tuple[str, int], ...], list[int]] = {}
    for j, task in enumerate(singles):
        kinds = tuple(sorted(Counter(c.type for c in task.definition.success_criteria).items()))
        groups.setdefault(kinds, []).append(j)
    found: list[tuple[int, Finding]] = []
    for members in groups.values():
        if len(members) > 1:
            found.extend(_group_duplicates([singles[j] for j in members], members, lines))
    return [f for _, f in sorted(found, key=lambda pair: pair[0])]


def _group_duplicates(group: list[LoadedTask], order: list[int], lines: Lines) -> Iterable[tuple[int, Finding]]:
    prompts = [t.definition.initial_prompt or "" for t in group]
    bound = cdist(prompts, prompts, scorer=Indel.normalized_similarity, score_cutoff=DUPLICATE_RATIO - 1e-9)
    for j, later in enumerate(group):
        for i in range(j):
            earlier = group[i]
            if bound[i][j] == 0 or earlier.source_file == later.source_file:
                continue
            ratio = SequenceMatcher(None, prompts[i], prompts[j], autojunk=False).ratio()
            if ratio >= DUPLICATE_RATIO:
                yield (
                    order[j],
                    finding(
                        "CE105",
                        file=str(later.source_file),
                        line=lines.line(later.source_file, "initial_prompt"),
                        task_id=later.task_id,
                        message=f"prompt is {ratio:.0%} the same as {earlier.task_id} ({earlier.source_file}) "
                        "with the same criterion types",
                    ),
                )
                break


def static_findings(tasks: list[LoadedTask]) -> list[Finding]:
    """Every static rule over `tasks`; a dataset is checked once, on its first row."""
    lines = Lines()
    seen_suites: set[Path] = set()
    found: list[Finding] = []
    for task in tasks:
        if task.suite_id is not None:
            if task.source_file in seen_suites:
                continue
            seen_suites.add(task.source_file)
        found.extend(_task_rules(task, lines))
        found.extend(_load_warnings(task))
    found.extend(_duplicates(tasks, lines))
    return found


def _load_warnings(task: LoadedTask) -> Iterable[Finding]:
    """CE107: what the loader dropped or read in a legacy form (once per file, like the other rules)."""
    for warning in task.warnings:
        yield finding(
            "CE107",
            file=str(task.source_file),
            line=warning.line or 1,
            task_id=task.suite_id if task.suite_id is not None else task.task_id,
            message=warning.render(),
        )
