"""llm_judge: one model call grades the work against the task's rubric via a forced verdict tool."""

from __future__ import annotations

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.judge_call import JUDGE_SYSTEM, JudgeOutcome, ask_judge, judged_result
from coder_eval.criteria.registry import register_criterion
from coder_eval.judges.transport import ForcedTool
from coder_eval.judges.verdict import VERDICT_SCHEMA, VERDICT_TOOL, VerdictError, verdict_from_args
from coder_eval.models.criteria_judges import DEFAULT_JUDGE_MODEL, LlmJudgeCriterion
from coder_eval.models.results import CriterionResult
from coder_eval.models.telemetry import TokenUsage

_TOOL = ForcedTool(VERDICT_TOOL, "Submit the grade: a score from 0.0 to 1.0 and a short rationale.", VERDICT_SCHEMA)


def judge_model(spec: LlmJudgeCriterion, ctx: CheckContext) -> str:
    """The criterion's model, else checker_context.api_route.model, else the fixed default."""
    route = ctx.judges.api_route if ctx.judges is not None else None
    return spec.model or (route.model if route is not None else None) or DEFAULT_JUDGE_MODEL


@register_criterion("llm_judge", spec=LlmJudgeCriterion)
class LlmJudge(Criterion[LlmJudgeCriterion]):
    """Continuous: the judge's score; any failure (no verdict, bad score, call error) scores 0 with `error`."""

    def evaluate(self, spec: LlmJudgeCriterion, ctx: CheckContext) -> CriterionResult:
        exchange = ask_judge(
            spec,
            ctx,
            system=JUDGE_SYSTEM.format(tool=VERDICT_TOOL),
            instructions=spec.prompt,
            tool=_TOOL,
            model=judge_model(spec, ctx),
            temperature=spec.temperature,
            max_tokens=spec.max_tokens,
        )
        score, rationale, error = 0.0, "", exchange.error
        if exchange.args is not None:
            try:
                verdict = verdict_from_args(exchange.args)
                score, rationale = verdict.score, verdict.rationale
            except VerdictError as exc:
                error = str(exc)
        t = exchange.transcript
        usage = TokenUsage(
            uncached_input_tokens=t.input_tokens, output_tokens=t.output_tokens, total_cost_usd=t.cost_usd
        )
        return judged_result(
            self, spec, ctx, exchange, JudgeOutcome(score, rationale, error, usage, t.duration_seconds)
        )
