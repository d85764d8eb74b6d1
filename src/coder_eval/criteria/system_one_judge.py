"""system_one_judge: a rubric of named, typed questions answered in one forced tool call.

The judge model answers every question at once (`submit_answers`), optionally with a confidence
per answer; each answer earns a credit in [0, 1] by its question's type (a yes/no against
`expected`, a choice against `expected` or `values`, a level on an ordered scale), and the score is
the weighted mean of the credits. A judge that cannot run here (no credential) ends the run ERROR.
"""

from __future__ import annotations

from typing import Any

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.judge_call import JUDGE_SYSTEM, ask_judge, persist_transcript
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CriterionUnavailableError
from coder_eval.judges.transport import ForcedTool
from coder_eval.models.criteria_judges import (
    DEFAULT_JUDGE_MODEL,
    ChoiceQuestion,
    NoulQuestion,
    RubricQuestion,
    ScoreQuestion,
    SystemOneJudgeCriterion,
)
from coder_eval.models.results import CriterionResult, JudgeCriterionResult
from coder_eval.models.telemetry import TokenUsage

TOOL_NAME = "submit_answers"
_YES = {"yes", "true", "y", "1"}
_NO = {"no", "false", "n", "0"}


def _answer_schema(question: RubricQuestion) -> dict[str, Any]:
    if isinstance(question, NoulQuestion):
        answer: dict[str, Any] = {"type": "boolean"}
    elif isinstance(question, ChoiceQuestion):
        answer = {"type": "string", "enum": question.options}
    else:
        answer = {"type": "string", "enum": list(question.criteria)}
    return {
        "type": "object",
        "properties": {"answer": answer, "confidence": {"type": "number", "minimum": 0, "maximum": 1}},
        "required": ["answer"],
    }


def rubric_tool(spec: SystemOneJudgeCriterion) -> ForcedTool:
    props = {name: _answer_schema(q) for name, q in spec.questions.items()}
    schema = {
        "type": "object",
        "properties": {"answers": {"type": "object", "properties": props, "required": list(props)}},
        "required": ["answers"],
    }
    return ForcedTool(TOOL_NAME, "Answer every rubric question.", schema)


def rubric_text(spec: SystemOneJudgeCriterion) -> str:
    lines = [spec.prompt.strip(), "", "Answer each question of the rubric:"]
    for name, q in spec.questions.items():
        if isinstance(q, NoulQuestion):
            kind = "yes/no (true/false)"
        elif isinstance(q, ChoiceQuestion):
            opts = q.criteria if isinstance(q.criteria, dict) else {o: "" for o in q.criteria}
            kind = "one of: " + "; ".join(f"{k}" + (f" ({v})" if v else "") for k, v in opts.items())
        else:
            kind = "one level, worst to best: " + " | ".join(q.criteria)
        lines.append(f"- {name}: {q.instructions.strip()} [{kind}]")
    return "\n".join(lines)


def credit(question: RubricQuestion, raw: Any) -> tuple[float, str]:
    """(credit, the answer as recorded); an unusable answer earns 0."""
    answer = raw.get("answer") if isinstance(raw, dict) else raw
    if isinstance(question, NoulQuestion):
        text = str(answer).strip().lower()
        if isinstance(answer, bool) or text in _YES | _NO:
            value = answer if isinstance(answer, bool) else text in _YES
            return (1.0 if value == question.expected else 0.0), ("yes" if value else "no")
        return 0.0, f"unusable answer {answer!r}"
    if isinstance(question, ChoiceQuestion):
        text = str(answer)
        if text not in question.options:
            return 0.0, f"unusable answer {answer!r}"
        if question.values is not None:
            return question.values.get(text, 0.0), text
        return (1.0 if text == question.expected else 0.0), text
    return _scale_credit(question, answer)


def _scale_credit(question: ScoreQuestion, answer: Any) -> tuple[float, str]:
    levels = list(question.criteria)
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(levels):
        index = answer
    elif str(answer) in levels:
        index = levels.index(str(answer))
    else:
        return 0.0, f"unusable answer {answer!r}"
    return index / (len(levels) - 1), levels[index]


def _confidence(raw: Any) -> float | None:
    value = raw.get("confidence") if isinstance(raw, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@register_criterion("system_one_judge", spec=SystemOneJudgeCriterion)
class SystemOneJudge(Criterion[SystemOneJudgeCriterion]):
    """Continuous: weighted mean of the rubric's per-question credits."""

    def evaluate(self, spec: SystemOneJudgeCriterion, ctx: CheckContext) -> CriterionResult:
        route = ctx.judges.api_route if ctx.judges is not None else None
        exchange = ask_judge(
            spec,
            ctx,
            system=JUDGE_SYSTEM.format(tool=TOOL_NAME),
            instructions=rubric_text(spec),
            tool=rubric_tool(spec),
            model=spec.model or (route.model if route is not None else None) or DEFAULT_JUDGE_MODEL,
        )
        path = persist_transcript(spec, ctx, exchange)
        if exchange.unavailable:
            raise CriterionUnavailableError(exchange.error or "the judge could not run")
        t = exchange.transcript
        usage = TokenUsage(
            uncached_input_tokens=t.input_tokens, output_tokens=t.output_tokens, total_cost_usd=t.cost_usd
        )
        answers = (exchange.args or {}).get("answers")
        error = exchange.error
        if error is None and not isinstance(answers, dict):
            error = "the judge's submit_answers call has no answers mapping"
        findings: list[str] = []
        num = den = 0.0
        for name, question in spec.questions.items():
            raw = answers.get(name) if isinstance(answers, dict) else None
            got, shown = credit(question, raw) if raw is not None else (0.0, "no answer")
            conf = _confidence(raw)
            findings.append(f"{name}: {shown} -> {got:.2f}" + (f" (confidence {conf:.2f})" if conf is not None else ""))
            num += got * question.weight
            den += question.weight
        score = num / den if den and error is None else 0.0
        return self.result(
            spec,
            score,
            details="; ".join(findings),
            error=error,
            cls=JudgeCriterionResult,
            findings=findings,
            token_usage=usage,
            transcript_path=path,
        )
