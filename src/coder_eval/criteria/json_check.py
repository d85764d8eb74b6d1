"""json_check: valid JSON, optional JSON Schema conformance, JMESPath assertions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from coder_eval.criteria import bounded
from coder_eval.criteria.base import CheckContext, Criterion, join_details, read_text, single_file
from coder_eval.criteria.paths import resolve_host_path
from coder_eval.criteria.registry import register_criterion
from coder_eval.errors import CheckerMisuseError
from coder_eval.models.criteria_files import JsonAssertion, JsonCheckCriterion
from coder_eval.models.results import CriterionResult

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def json_type_matches(value: Any, name: str) -> bool:
    if isinstance(value, bool) and name in ("number", "integer"):
        return False
    return isinstance(value, _JSON_TYPES[name])


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: true/false never equal 1/0, while 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def _ordered(actual: Any, expected: Any, op: str) -> bool:
    if isinstance(actual, bool) or isinstance(expected, bool):
        return False
    same_kind = (isinstance(actual, int | float) and isinstance(expected, int | float)) or (
        isinstance(actual, str) and isinstance(expected, str)
    )
    if not same_kind:
        return False
    outcomes: dict[str, bool] = {
        "gt": actual > expected,
        "gte": actual >= expected,
        "lt": actual < expected,
        "lte": actual <= expected,
    }
    return outcomes[op]


def assertion_holds(assertion: JsonAssertion, actual: Any) -> bool:
    """Apply one operator. `exists` means the expression found something (not null)."""
    op, expected = assertion.operator, assertion.expected
    if op == "exists":
        return actual is not None and actual != []
    if op == "equals":
        return json_equal(actual, expected)
    if op == "not_equals":
        return not json_equal(actual, expected)
    if op == "contains":
        if isinstance(actual, str):
            return isinstance(expected, str) and expected in actual
        if isinstance(actual, list):
            return expected in actual
        if isinstance(actual, dict):
            return expected in actual
        return False
    if op == "type":
        return json_type_matches(actual, str(expected))
    if op == "regex":
        return isinstance(actual, str) and bounded.search(str(expected), actual)
    return _ordered(actual, expected, op)


@register_criterion("json_check", spec=JsonCheckCriterion)
class JsonCheck(Criterion[JsonCheckCriterion]):
    """Fractional: the mean of the schema check (0/1) and the share of assertions that hold.

    A missing or unparseable file scores 0; with no sub-checks the file only has to parse.
    """

    def evaluate(self, spec: JsonCheckCriterion, ctx: CheckContext) -> CriterionResult:
        path, note = single_file(spec.path, ctx)
        if path is None:
            return self.result(spec, 0.0, details=note)
        try:
            doc = json.loads(read_text(path, ctx.root, limit=spec.max_bytes, ctx=ctx))
        except json.JSONDecodeError as exc:
            return self.result(spec, 0.0, details=join_details(note, f"invalid JSON: {exc.msg} at line {exc.lineno}"))
        scores: list[float] = []
        notes: list[str] = [note]
        if spec.json_schema is not None:
            ok, why = self._schema_ok(spec.json_schema, doc, ctx)
            scores.append(1.0 if ok else 0.0)
            notes.append(why)
        if spec.assertions:
            score, misses = self._assertions(spec.assertions, doc)
            scores.append(score)
            notes.extend(misses)
        if not scores:
            return self.result(spec, 1.0, details=join_details(note, "valid JSON"))
        return self.result(spec, sum(scores) / len(scores), details=join_details(*notes) or "all checks pass")

    def _schema_ok(self, schema_path: str, doc: Any, ctx: CheckContext) -> tuple[bool, str]:
        import jsonschema

        if schema_path.startswith(("$TASK_DIR", "${TASK_DIR}", "$REFERENCE_DIR", "${REFERENCE_DIR}")):
            path: Path | None = resolve_host_path(
                schema_path, root=ctx.root, task_dir=ctx.task_dir, reference_dir=ctx.reference_dir
            )
            why = "file not found"
            if path is not None and not path.is_file():
                path = None
        else:
            path, why = single_file(schema_path, ctx)
            if path is None:  # the workspace is the agent's: a schema missing there fails the check
                return False, f"schema {schema_path!r} not found in the workspace ({why})"
        if path is None:
            raise CheckerMisuseError(f"json_schema {schema_path!r}: {why}")
        try:
            schema = json.loads(read_text(path, ctx=ctx))
            validator_cls = jsonschema.validators.validator_for(schema)
            validator_cls.check_schema(schema)
        except (json.JSONDecodeError, jsonschema.SchemaError) as exc:
            raise CheckerMisuseError(f"json_schema {schema_path!r} is not a valid JSON Schema: {exc}") from None
        errors = sorted(validator_cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            return True, "schema: valid"
        first = errors[0]
        where = "/".join(str(p) for p in first.absolute_path) or "(root)"
        return False, f"schema: {len(errors)} error(s), first at {where}: {first.message[:200]}"

    def _assertions(self, assertions: list[JsonAssertion], doc: Any) -> tuple[float, list[str]]:
        import jmespath

        misses = []
        for a in assertions:
            actual = jmespath.search(a.expression, doc)
            if not assertion_holds(a, actual):
                shown = json.dumps(actual)[:120]
                misses.append(f"{a.expression} {a.operator} {json.dumps(a.expected)[:120]} failed (got {shown})")
        return (len(assertions) - len(misses)) / len(assertions), misses
