"""system_one_judge: a rubric of named, typed questions answered in one forced tool call.

The judge model answers every question at once (`submit_answers`), optionally with a confidence
per answer and a probability per option (`distribution`); each answer earns a credit in [0, 1] by
its question's type (a yes/no against `expected`, a choice against `expected` or `values`, a level
on an ordered scale), and the score is the weighted mean of the credits. With a distribution,
`scoring: expected` credits the probability-weighted mean over the options and `scoring: argmax`
the likeliest option; without one, the answer given. A judge that cannot run here (no credential)
ends the run ERROR.
"""

from __future__ import annotations

from typing import Any

from coder_eval.criteria.base import CheckContext, Criterion
from coder_eval.criteria.judge_call import JUDGE_SYSTEM, ask_judge, persist_transcript
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CriterionUnavailableError
from coder_eval.judges.services import Endpoint
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


def options(question: RubricQuestion) -> list[str]:
    """The answers a question admits, as the distribution names them."""
    if isinstance(question, NoulQuestion):
        return ["yes", "no"]
    if isinstance(question, ChoiceQuestion):
        return question.options
    return list(question.criteria)


def _answer_schema(question: RubricQuestion) -> dict[str, Any]:
    if isinstance(question, NoulQuestion):
        answer: dict[str, Any] = {"type": "boolean"}
    else:
        answer = {"type": "string", "enum": options(question)}
    probability = {"type": "number", "minimum": 0, "maximum": 1}
    return {
        "type": "object",
        "properties": {
            "answer": answer,
            "confidence": probability,
            "distribution": {
                "type": "object",
                "description": "Probability of each option (they sum to 1).",
                "properties": dict.fromkeys(options(question), probability),
            },
        },
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
    lines.append("")
    lines.append("With each answer, give `distribution`: your probability for every option of that question.")
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


def distribution(question: RubricQuestion, raw: Any) -> dict[str, float] | None:
    """The judge's probabilities over the question's options, normalised; None when none usable was given."""
    given = raw.get("distribution") if isinstance(raw, dict) else None
    if not isinstance(given, dict):
        return None
    known = options(question)
    probs = {
        str(k): float(v)
        for k, v in given.items()
        if str(k) in known and isinstance(v, int | float) and not isinstance(v, bool) and v >= 0
    }
    total = sum(probs.values())
    return {k: v / total for k, v in probs.items()} if total > 0 else None


def scored_credit(question: RubricQuestion, raw: Any, scoring: str) -> tuple[float, str]:
    """(credit, what is recorded) under `scoring`: the distribution's mean or argmax, else the answer."""
    probs = distribution(question, raw)
    if probs is None:
        return credit(question, raw)
    if scoring == "argmax":
        best = max(options(question), key=lambda o: probs.get(o, 0.0))  # ties: the first option listed
        got, shown = credit(question, {"answer": best})
        return got, f"{shown} (argmax, p={probs.get(best, 0.0):.2f})"
    mean = sum(p * credit(question, {"answer": o})[0] for o, p in probs.items())
    shown = ", ".join(f"{o} {p:.2f}" for o, p in probs.items())
    return mean, f"expected over {{{shown}}}"


def _confidence(raw: Any) -> float | None:
    value = raw.get("confidence") if isinstance(raw, dict) else None
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@register_criterion("system_one_judge", spec=SystemOneJudgeCriterion)
class SystemOneJudge(Criterion[SystemOneJudgeCriterion]):
    """Continuous: weighted mean of the rubric's per-question credits."""

    def evaluate(self, spec: SystemOneJudgeCriterion, ctx: CheckContext) -> CriterionResult:
        route = ctx.judges.api_route if ctx.judges is not None else None
        endpoint = (
            Endpoint(spec.base_url, spec.api_key_env, spec.timeout_seconds) if spec.base_url is not None else None
        )
        exchange = ask_judge(
            spec,
            ctx,
            system=JUDGE_SYSTEM.format(tool=TOOL_NAME),
            instructions=rubric_text(spec),
            tool=rubric_tool(spec),
            model=spec.model or (route.model if route is not None else None) or DEFAULT_JUDGE_MODEL,
            endpoint=endpoint,
            timeout=spec.timeout_seconds,
            max_context_chars=spec.max_state_chars,
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
            got, shown = scored_credit(question, raw, spec.scoring) if raw is not None else (0.0, "no answer")
            conf = _confidence(raw)
            findings.append(f"{name}: {shown} -> {got:.2f}" + (f" (confidence {conf:.2f})" if conf is not None else ""))
            num += got * question.weight
            den += question.weight
        score = num / den if den and error is None else 0.0
        return self.result(
            spec,
            score,
            details="; ".join([*findings, *exchange.notes]),
            error=error,
            cls=JudgeCriterionResult,
            findings=findings,
            token_usage=usage,
            transcript_path=path,
        )
