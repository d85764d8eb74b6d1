"""Layer 5: `-D path=value` / `--set` command-line overrides and their aliases.

Only paths under `agent.`, `run_limits.` and `sandbox.` are reachable. Values follow
YAML scalar rules (`30` is an int, `true` a bool, `null` resets, `[a, b]` a list,
`{"k": 1}` a mapping). Paths are checked against the schema with a did-you-mean;
`agent.*` paths are checked again per task against the resolved agent type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from coder_eval.common.suggest import did_you_mean
from coder_eval.config.merge import Layer
from coder_eval.errors import TaskConfigError, UsageError
from coder_eval.loading.yaml_source import parse_yaml_text
from coder_eval.models.partial import (
    agent_fields,
    is_agent_annotation,
    is_mapping_annotation,
    nested_model,
    unknown_key_message,
)
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.models.task_parts import RunLimits

OVERRIDE_ROOTS: dict[str, type[BaseModel] | None] = {"agent": None, "run_limits": RunLimits, "sandbox": SandboxConfig}
ALIASES: dict[str, str] = {"--model": "agent.model", "--driver": "sandbox.driver"}


@dataclass(frozen=True)
class Override:
    """One parsed override: a dotted path, its typed value and the flag that set it."""

    path: str
    value: Any
    origin: str

    @property
    def parts(self) -> list[str]:
        return self.path.split(".")


def parse_value(raw: str) -> Any:
    """Read a value with YAML scalar rules (JSON objects and flow lists included)."""
    if raw.strip() == "":
        return ""
    try:
        value, _ = parse_yaml_text(raw, "-D value")
    except TaskConfigError as exc:
        raise UsageError(f"cannot read override value {raw!r}: {exc.render()}") from None
    return value


def parse_assignment(text: str, origin: str = "-D") -> Override:
    """Split `path=value` and type the value."""
    path, sep, raw = text.partition("=")
    path = path.strip()
    if not sep or not path:
        raise UsageError(f"{origin} {text!r}: expected path=value, e.g. -D agent.model=claude-opus-5")
    check_root_path(path, origin)
    return Override(path, parse_value(raw), f"{origin} {path}={raw}")


def check_root_path(path: str, origin: str = "-D") -> None:
    """The path must be `root.field[...]` with a reachable root, and its fields must exist."""
    parts = path.split(".")
    root = parts[0]
    if root not in OVERRIDE_ROOTS:
        hint = did_you_mean(root, list(OVERRIDE_ROOTS)) or f"reachable roots: {', '.join(OVERRIDE_ROOTS)}"
        raise UsageError(f"{origin} {path!r}: {root!r} cannot be overridden from the command line ({hint})")
    if len(parts) < 2 or not all(parts):
        raise UsageError(f"{origin} {path!r}: name a field under {root}, e.g. {root}.<field>")
    model = OVERRIDE_ROOTS[root]
    fields = agent_fields(None) if model is None else model.model_fields
    problem = path_problem(fields, parts[1:], root)
    if problem:
        raise UsageError(f"{origin}: {problem}")


def path_problem(fields: Mapping[str, FieldInfo], parts: Sequence[str], prefix: str) -> str | None:
    """Why `prefix.parts` is not a settable field path, or None when it is."""
    head, rest = parts[0], parts[1:]
    info = fields.get(head)
    where = f"{prefix}.{head}"
    if info is None:
        return unknown_key_message(prefix, head, list(fields))
    if not rest:
        return None
    child = nested_model(info.annotation)
    if child is not None and not is_agent_annotation(info.annotation):
        return path_problem(child.model_fields, rest, where)
    if is_mapping_annotation(info.annotation):
        return None  # free-form dict (e.g. agent.sdk_options): any key below it
    return f"{where} has no sub-fields; set it whole ({where}=...)"


def check_agent_paths(layer: Layer | None, agent_type: str) -> None:
    """Check the layer's `agent.*` paths against the config class of the resolved agent type."""
    if layer is None or not isinstance(layer.data.get("agent"), dict):
        return
    fields = agent_fields(agent_type)
    for path in _leaf_paths(layer.data["agent"], ()):
        problem = path_problem(fields, list(path), "agent")
        if problem:
            raise UsageError(f"{problem} (agent type {agent_type!r})")


def _leaf_paths(data: Mapping[str, Any], prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    # Only the first key below `agent` matters for the per-type check; free-form values are opaque.
    return [(*prefix, str(key)) for key in data]


def _set_path(target: dict[str, Any], parts: Sequence[str], value: Any) -> None:
    node = target
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = value


def collect_overrides(
    sets: Sequence[str] = (),
    *,
    model: str | None = None,
    driver: str | None = None,
    agent_type: str | None = None,
) -> list[Override]:
    """All command-line overrides in application order: --type, then aliases, then -D entries.

    An alias and a `-D` on the same path is a UsageError; `--type` and `-D agent.type` may
    both be given and the `-D` value wins.
    """
    assignments = [parse_assignment(text) for text in sets]
    by_path = {o.path for o in assignments}
    out: list[Override] = []
    if agent_type is not None:
        out.append(Override("agent.type", agent_type, f"--type {agent_type}"))
    for flag, value in (("--model", model), ("--driver", driver)):
        if value is None:
            continue
        path = ALIASES[flag]
        if path in by_path:
            raise UsageError(f"{flag} and -D {path}=... both set {path}; use one of them")
        out.append(Override(path, value, f"{flag} {value}"))
    out.extend(assignments)
    return out


def overrides_layer(overrides: Sequence[Override]) -> Layer | None:
    """The CLI layer for the resolver (None when there are no overrides); later entries win."""
    if not overrides:
        return None
    data: dict[str, Any] = {}
    for override in overrides:
        _set_path(data, override.parts, override.value)
    details = {o.path: o.origin for o in overrides}
    return Layer("cli", data, ", ".join(o.origin for o in overrides), details)


def build_cli_layer(
    sets: Sequence[str] = (),
    *,
    model: str | None = None,
    driver: str | None = None,
    agent_type: str | None = None,
) -> Layer | None:
    """Parse `-D`/`--set` entries and the `--model`/`--driver`/`--type` flags into the CLI layer."""
    return overrides_layer(collect_overrides(sets, model=model, driver=driver, agent_type=agent_type))
