"""Judge and simulator model ids are written vendor-prefixed (`anthropic.claude-sonnet-4-6`) and
translated per transport: the bare id for the Anthropic API, a regional inference profile for Bedrock."""

from __future__ import annotations

import re

_PREFIX = re.compile(r"^(?:(?:us|eu|apac|global)\.)?anthropic[./]")
_REGIONAL = re.compile(r"^(?:us|eu|apac|global)\.")


def direct_model_id(model: str) -> str:
    """`anthropic.claude-x` / `eu.anthropic.claude-x` -> `claude-x`; other ids unchanged."""
    return _PREFIX.sub("", model.strip())


def bedrock_model_id(model: str, region: str) -> str:
    """A cross-region inference profile for `region` (`eu-north-1` -> `eu.anthropic.claude-x`)."""
    if _REGIONAL.match(model):
        return model
    bare = direct_model_id(model)
    area = region.split("-", 1)[0]
    prefix = {"eu": "eu", "us": "us", "ap": "apac"}.get(area, "global")
    return f"{prefix}.anthropic.{bare}"
