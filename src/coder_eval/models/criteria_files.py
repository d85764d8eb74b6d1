"""Criteria that read files the agent left in the sandbox."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from coder_eval.models.base import NonBlank, RegexFlags, RegexStr, StrictModel
from coder_eval.models.criteria_base import BaseCriterion, names_reference

PATH_DOC = "Sandbox-relative path; a glob when no file of that literal name exists."

SCAN_LIMIT_BYTES = 1024**3
"""Default cap of a streamed substring check (file_contains, file_check's includes/excludes): 1 GiB."""
READ_LIMIT_BYTES = 32 * 1024 * 1024
"""Default cap of a whole-file read (regex, JSON, labels, similarity): 32 MiB."""
MAX_BYTES_CEILING = 64 * 1024**3


def max_bytes_field(default: int, how: str) -> Any:
    """The `max_bytes` field of a criterion that reads a file; `how` says how it reads it."""
    return Field(
        None,
        ge=1,
        le=MAX_BYTES_CEILING,
        description=(
            f"Largest file (bytes) this criterion reads; a larger file fails the criterion with a reason "
            f"saying so. Default {default} ({how})."
        ),
    )


class FileExistsCriterion(BaseCriterion):
    """Binary: at least one file matches `path`."""

    type: Literal["file_exists"] = "file_exists"
    path: NonBlank = Field(description=PATH_DOC)
    reads_files_only: ClassVar[bool] = True


class FileContainsCriterion(BaseCriterion):
    """Fractional: required strings present and forbidden strings absent."""

    type: Literal["file_contains"] = "file_contains"
    path: NonBlank = Field(description=PATH_DOC)
    includes: list[str] = Field(default_factory=list, description="Strings that must be present.")
    excludes: list[str] = Field(default_factory=list, description="Strings that must not be present.")
    max_bytes: int | None = max_bytes_field(SCAN_LIMIT_BYTES, "1 GiB, streamed")
    reads_files_only: ClassVar[bool] = True

    @model_validator(mode="after")
    def _needs_a_check(self) -> FileContainsCriterion:
        if not self.includes and not self.excludes:
            raise ValueError("set includes and/or excludes (for a bare existence check use file_exists)")
        return self


class RegexCheck(StrictModel):
    """One regex sub-check of file_check."""

    pattern: RegexStr = Field(description="Python regular expression.")
    must_match: bool = Field(True, description="False turns it into a must-not-match check.")
    flags: RegexFlags = Field(0, ge=0, description="`re` flags as an integer (2 IGNORECASE, 8 MULTILINE, 16 DOTALL).")


class FileCheckCriterion(BaseCriterion):
    """Fractional: existence plus includes / excludes / regex sub-checks, averaged."""

    type: Literal["file_check"] = "file_check"
    path: NonBlank = Field(description=PATH_DOC)
    includes: list[str] = Field(default_factory=list, description="Strings that must be present.")
    excludes: list[str] = Field(default_factory=list, description="Strings that must not be present.")
    patterns: list[RegexCheck] = Field(default_factory=list, description="Regex sub-checks.")
    max_bytes: int | None = max_bytes_field(
        SCAN_LIMIT_BYTES, "1 GiB for includes/excludes, streamed; 32 MiB when patterns read the file whole"
    )
    reads_files_only: ClassVar[bool] = True


class FileMatchesRegexCriterion(BaseCriterion):
    """Binary: the file content matches (or, with must_match false, does not match) a regex."""

    type: Literal["file_matches_regex"] = "file_matches_regex"
    path: NonBlank = Field(description=PATH_DOC)
    pattern: RegexStr = Field(description="Python regular expression, searched anywhere in the file.")
    must_match: bool = Field(True, description="False means the pattern must NOT match.")
    flags: RegexFlags = Field(0, ge=0, description="`re` flags as an integer (2 IGNORECASE, 8 MULTILINE, 16 DOTALL).")
    max_bytes: int | None = max_bytes_field(READ_LIMIT_BYTES, "32 MiB, read whole")
    reads_files_only: ClassVar[bool] = True


JsonOperator = Literal["equals", "not_equals", "contains", "gt", "gte", "lt", "lte", "type", "regex", "exists"]
JSON_TYPE_NAMES = ("string", "number", "integer", "boolean", "array", "object", "null")


class JsonAssertion(StrictModel):
    """One JMESPath assertion of json_check."""

    expression: NonBlank = Field(description="JMESPath expression evaluated against the document.")
    operator: JsonOperator = Field("equals", description="How the result is compared with `expected`.")
    expected: Any = Field(None, description="Expected value; not needed for `exists`.")

    @field_validator("expression")
    @classmethod
    def _compiles(cls, value: str) -> str:
        import jmespath
        from jmespath.exceptions import JMESPathError

        try:
            jmespath.compile(value)
        except JMESPathError as exc:
            raise ValueError(f"not a valid JMESPath expression: {exc}") from exc
        return value

    @model_validator(mode="after")
    def _expected_present(self) -> JsonAssertion:
        if self.operator != "exists" and "expected" not in self.model_fields_set:
            raise ValueError(f"operator {self.operator!r} needs an `expected` value")
        if self.operator == "type" and self.expected not in JSON_TYPE_NAMES:
            raise ValueError(f"operator 'type' expects one of {', '.join(JSON_TYPE_NAMES)}")
        if self.operator == "regex":
            if not isinstance(self.expected, str):
                raise ValueError("operator 'regex' expects a string pattern")
            RegexCheck(pattern=self.expected)
        if self.operator in ("gt", "gte", "lt", "lte") and (
            isinstance(self.expected, bool) or not isinstance(self.expected, int | float | str)
        ):
            raise ValueError(f"operator {self.operator!r} expects a number or a string")
        return self


class JsonCheckCriterion(BaseCriterion):
    """Fractional: valid JSON, optional JSON Schema conformance, JMESPath assertions."""

    type: Literal["json_check"] = "json_check"
    path: NonBlank = Field(description=PATH_DOC)
    json_schema: str | None = Field(None, description="Sandbox-relative path (or glob) of a JSON Schema file.")
    assertions: list[JsonAssertion] = Field(default_factory=list, description="JMESPath assertions.")
    max_bytes: int | None = max_bytes_field(READ_LIMIT_BYTES, "32 MiB, read whole")
    reads_files_only: ClassVar[bool] = True

    @property
    def sees_reference(self) -> bool:
        return self.json_schema is not None and names_reference(self.json_schema)


class ClassificationMatchCriterion(BaseCriterion):
    """Binary: the single label the agent wrote to a file equals the expected label."""

    type: Literal["classification_match"] = "classification_match"
    path: NonBlank = Field(description="File holding the agent's predicted label. " + PATH_DOC)
    expected_label: str = Field(description="Ground-truth label for this row.")
    allowed_labels: list[NonBlank] = Field(min_length=1, description="The canonical label set.")
    case_sensitive: bool = Field(False, description="When false, labels compare case-insensitively.")
    reads_files_only: ClassVar[bool] = True

    @field_validator("allowed_labels")
    @classmethod
    def _unique(cls, labels: list[str]) -> list[str]:
        if len({label.strip() for label in labels}) != len(labels):
            raise ValueError("allowed_labels must not repeat a label")
        return labels
