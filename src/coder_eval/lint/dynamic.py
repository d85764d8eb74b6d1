"""Rules that run the task: once with no agent (it must not pass) and once with its oracle (it must).

The no-agent run is the `none` agent: sandbox, pre_run and grading, nothing else. The oracle run
is the same, with the task's reference directory added as the last template source, so the
workspace the criteria see holds the reference solution; a reference with `solve` (a Harbor task's
solve.sh) is applied by running that command instead (`engine/oracle_solve.py`). Criteria that read the agent's
trajectory (skill_triggered, command_executed, ...) cannot pass without an agent, so the oracle
verdict leaves them out; `--agent-oracle` instead has the real agent play a script derived from
the reference (`run -b script --oracle`), which covers them too. Criteria that call a model
(judges, uipath_eval) are removed from both runs: lint never spends tokens.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from coder_eval.engine.batch import run_batch
from coder_eval.engine.experiment_plan import PlanInputs, plan_units
from coder_eval.engine.orchestrator import RunOptions
from coder_eval.errors import TaskConfigError
from coder_eval.lint.findings import Finding, finding
from coder_eval.lint.static import Lines
from coder_eval.loading.loader import LoadedTask
from coder_eval.models.criteria import BaseCriterion, UipathEvalCriterion
from coder_eval.models.criteria_judges import JudgeContextFields
from coder_eval.models.results import EvaluationResult
from coder_eval.models.sandbox import TemplateDirSource
from coder_eval.sandbox.drivers import PreservationMode


@dataclass(frozen=True)
class DynamicOptions:
    max_parallel: int = 4
    agent_oracle: bool = False
    keep_dir: Path | None = None
    sets: tuple[str, ...] = ()
    """`-D` overrides every lint run resolves its tasks under (`--rehearse` sets sandbox.rehearsal)."""


def calls_a_model(criterion: BaseCriterion) -> bool:
    return isinstance(criterion, JudgeContextFields | UipathEvalCriterion) and not criterion.is_disabled


def _without_model_criteria(task: LoadedTask) -> LoadedTask | None:
    kept = [c for c in task.definition.success_criteria if not calls_a_model(c)]
    if not kept:
        return None
    definition = task.definition.model_copy(update={"success_criteria": kept})
    return LoadedTask(definition, task.source_file, task.suite_id, task.row_id, task.row)


def _with_reference(task: LoadedTask) -> LoadedTask:
    """The task with its reference applied: its solve command run before grading, else its directory
    copied into the workspace after the other sources."""
    d = task.definition
    assert d.reference is not None
    if d.reference.solve is not None:
        return task  # the oracle's unit runs the command (`_run_none(..., oracle=True)`)
    sources = [*d.sandbox.template_sources, TemplateDirSource(type="template_dir", path=d.reference.directory)]
    sandbox = d.sandbox.model_copy(update={"template_sources": sources})
    return LoadedTask(d.model_copy(update={"sandbox": sandbox}), task.source_file, task.suite_id, task.row_id, task.row)


def _run_none(
    tasks: list[LoadedTask],
    run_dir: Path,
    max_parallel: int,
    problems: list[TaskConfigError],
    *,
    oracle: bool = False,
    sets: tuple[str, ...] = (),
) -> dict[str, EvaluationResult]:
    if not tasks:
        return {}
    plan = plan_units(tasks, PlanInputs(sets=sets, agent_type="none"))
    problems.extend(plan.errors)
    first = plan.experiment.variants[0].variant_id
    units = [replace(u, oracle=oracle) for u in plan.units if u.replicate_index == 0 and u.variant_id == first]
    options = RunOptions(run_dir=run_dir, grade=True, preservation=PreservationMode.NONE)
    results = asyncio.run(run_batch(units, options, max_parallel=max_parallel))
    return {r.task_id: r for r in results}


def _run_agent_oracle(
    files: list[Path], run_dir: Path, max_parallel: int, problems: list[TaskConfigError], sets: tuple[str, ...]
) -> dict[str, EvaluationResult]:
    if not files:
        return {}
    from coder_eval.engine.run import RunRequest, run_pipeline

    request = RunRequest(
        paths=[str(f) for f in files],
        max_parallel=max_parallel,
        run_dir=run_dir,
        backend="script",
        oracle=True,
        repeats=1,
        preservation=PreservationMode.NONE,
        sets=sets,
    )
    outcome = run_pipeline(request)
    problems.extend(outcome.load_errors)
    return {r.task_id: r for r in outcome.results}


def _failing(result: EvaluationResult, criteria: list[BaseCriterion], *, skip_agent: bool) -> list[tuple[int, str]]:
    out = []
    for i, (criterion, res) in enumerate(zip(criteria, result.success_criteria_results, strict=False)):
        if not criterion.is_gating or calls_a_model(criterion) or (skip_agent and criterion.requires_agent):
            continue
        if not res.passed:
            out.append((i, f"[{i}] {criterion.description!r} scored {res.score:.2f}"))
    return out


def _judge_note(task: LoadedTask) -> str:
    judges = [c for c in task.definition.success_criteria if calls_a_model(c) and c.is_gating]
    return f" (its {len(judges)} model-graded criteria were not run)" if judges else ""


def _none_findings(task: LoadedTask, result: EvaluationResult | None, lines: Lines) -> Iterable[Finding]:
    where = {"file": str(task.source_file), "task_id": task.task_id}
    if result is None:
        return
    if result.final_status.category == "error":
        yield finding(
            "CE203",
            line=lines.line(task.source_file, "task_id"),
            message=f"with no agent the task ended {result.final_status.value}: {result.error_message or '?'}",
            **where,
        )
        return
    has_judges = any(calls_a_model(c) and c.is_gating for c in task.definition.success_criteria)
    if result.final_status.category == "succeeded" and not has_judges:
        yield finding(
            "CE201",
            line=lines.line(task.source_file, "success_criteria"),
            message=f"with no agent it scored {result.weighted_score or 0:.3f} and SUCCEEDED",
            **where,
        )
        return
    criteria = [c for c in task.definition.success_criteria if not calls_a_model(c)]
    for criterion, res in zip(criteria, result.success_criteria_results, strict=False):
        if criterion.is_gating and res.passed:
            yield finding(
                "CE204",
                line=lines.line(task.source_file, "success_criteria"),
                message=f"{criterion.type} {criterion.description!r} passes with no agent{_judge_note(task)}",
                **where,
            )


def _oracle_findings(
    task: LoadedTask, result: EvaluationResult | None, lines: Lines, *, agent: bool
) -> Iterable[Finding]:
    where = {"file": str(task.source_file), "task_id": task.task_id}
    if result is None:
        return
    solve = task.definition.reference is not None and task.definition.reference.solve is not None
    how = "the scripted agent writing the reference" if agent else "the reference copied into the workspace"
    if solve:
        how = "the reference applied by its solve command"
    if result.final_status.category == "error":
        yield finding(
            "CE203",
            line=lines.line(task.source_file, "reference"),
            message=f"with {how} the task ended {result.final_status.value}: {result.error_message or '?'}",
            **where,
        )
        return
    criteria: list[BaseCriterion] = list(task.definition.success_criteria)
    if not agent:  # the no-agent runs graded the task without its model-graded criteria
        criteria = [c for c in criteria if not calls_a_model(c)]
    failing = _failing(result, criteria, skip_agent=not agent)
    if failing:
        yield finding(
            "CE202",
            line=lines.line(task.source_file, "success_criteria", failing[0][0]),
            message=f"with {how}, these gating criteria fail: " + "; ".join(text for _, text in failing),
            **where,
        )


def dynamic_findings(tasks: list[LoadedTask], options: DynamicOptions) -> list[Finding]:
    """Run every task with no agent and with its oracle; findings for what the runs prove."""
    lines = Lines()
    problems: list[TaskConfigError] = []
    runnable = {t.task_id: r for t in tasks if (r := _without_model_criteria(t)) is not None}
    with tempfile.TemporaryDirectory(prefix="coder-eval-lint-") as tmp:
        base = options.keep_dir or Path(tmp)
        agentless = [t for t in runnable.values() if t.definition.agent_type != "none"]
        none_results = _run_none(agentless, base / "no-agent", options.max_parallel, problems, sets=options.sets)
        with_ref = [t for t in runnable.values() if t.definition.reference is not None]
        if options.agent_oracle:
            files = sorted({t.source_file for t in with_ref if t.definition.agent_type != "none"})
            where = base / "agent-oracle"
            oracle_results = _run_agent_oracle(files, where, options.max_parallel, problems, options.sets)
        else:
            oracle = [_with_reference(t) for t in with_ref]
            oracle_results = _run_none(
                oracle, base / "oracle", options.max_parallel, problems, oracle=True, sets=options.sets
            )
    found = [
        finding("CE203", file=str(p.file), line=1, task_id="-", message=f"the lint run could not plan it: {p.render()}")
        for p in problems
    ]
    for task in tasks:
        run_task = runnable.get(task.task_id)
        if run_task is None:
            continue
        if task.definition.agent_type != "none":
            found.extend(_none_findings(task, none_results.get(task.task_id), lines))
        if task.definition.reference is None:
            if task.row_id is None or task.row_id == _first_row(tasks, task):
                found.append(
                    finding(
                        "CE205",
                        file=str(task.source_file),
                        line=lines.line(task.source_file, "task_id"),
                        task_id=task.suite_id or task.task_id,
                        message="no reference solution: nothing shows these criteria can pass",
                    )
                )
            continue
        found.extend(_oracle_findings(task, oracle_results.get(task.task_id), lines, agent=options.agent_oracle))
    return found


def _first_row(tasks: list[LoadedTask], task: LoadedTask) -> str | None:
    return next((t.row_id for t in tasks if t.source_file == task.source_file), None)
