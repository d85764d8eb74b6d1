"""Match one recorded argv against a structured CLI pattern: verb, positionals, flag predicates.

Pure functions over plain data, importing nothing but the standard library, so the
matcher can run wherever an argv needs classifying (the grader, the record_cli recorder).

Parsing is driven by declarations, never by guesses. A flag takes the next token
only when the pattern declares it value-bearing; every other flag is a switch.
Guessing the other way lets `delete --yes proj-1` bind `yes=proj-1`, hiding the
target from a guard that forbids deleting it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

PredicateKind = Literal["equals", "contains", "matches_regex", "any_of", "present", "absent"]

IGNORED_WITH_VALUE = frozenset({"output"})
"""Ignored flags known to carry a value (`--output json`), so ignoring them keeps that value out."""

_NEGATIVE_NUMBER = re.compile(r"-(?:\d+(?:\.\d*)?|\.\d+)")

Binding = tuple[str, str | None]
"""A flag name and its value; None for a switch."""


@dataclass(frozen=True)
class FlagTest:
    """One predicate over a flag's values, gathered across the flag's names (key first, then aliases)."""

    names: tuple[str, ...]
    kind: PredicateKind
    expected: tuple[str, ...] = ()
    regex_flags: int = 0

    @property
    def takes_value(self) -> bool:
        """Whether the predicate inspects a value, which makes every name of the flag value-bearing."""
        return self.kind not in ("present", "absent")

    def holds(self, flags: Mapping[str, Sequence[str]]) -> bool:
        """Whether the parsed flags satisfy this predicate; any one value under any name suffices."""
        seen = [name for name in self.names if name in flags]
        if self.kind == "present":
            return bool(seen)
        if self.kind == "absent":
            return not seen
        return any(self._accepts(value) for name in seen for value in flags[name])

    def _accepts(self, value: str) -> bool:
        if self.kind == "equals":
            return value == self.expected[0]
        if self.kind == "contains":
            return self.expected[0] in value
        if self.kind == "matches_regex":
            return re.search(self.expected[0], value, self.regex_flags) is not None
        return value in self.expected


@dataclass(frozen=True)
class ArgvPattern:
    """What a matching invocation looks like. `verbs` holds alternatives, each a token sequence."""

    tool: str | None = None
    verbs: tuple[tuple[str, ...], ...] = ((),)
    positional: tuple[str, ...] | None = None
    flag_tests: tuple[FlagTest, ...] = ()
    value_flags: frozenset[str] | None = None
    """Flags that take the next token; None = the default (an ignored `output`), empty = none at all."""
    ignore_flags: frozenset[str] = IGNORED_WITH_VALUE

    @property
    def value_bearing(self) -> frozenset[str]:
        """Flags that take the following token: declared ones (default `output`) and value predicates."""
        tested = {name for test in self.flag_tests if test.takes_value for name in test.names}
        declared = self.ignore_flags & IGNORED_WITH_VALUE if self.value_flags is None else self.value_flags
        return declared | tested

    @property
    def declared(self) -> frozenset[str]:
        """Every flag name the pattern mentions; a declared short cluster such as `-rf` stays whole."""
        tested = {name for test in self.flag_tests for name in test.names}
        return (self.value_flags or frozenset()) | self.ignore_flags | tested


@dataclass(frozen=True)
class ParsedArgv:
    """An argv split into its non-flag tokens, in order, and the values passed under each flag name."""

    positionals: tuple[str, ...]
    flags: Mapping[str, tuple[str, ...]]


def parse_argv(
    argv: Sequence[str], *, value_bearing: frozenset[str], declared: frozenset[str] = frozenset()
) -> ParsedArgv:
    """Split `argv` into positionals and flag values; only `value_bearing` flags consume a token.

    Flag names lose their leading dashes. A switch is recorded with no values. After a
    bare `--` every token is positional.
    """
    positionals: list[str] = []
    flags: dict[str, list[str]] = {}
    index = 0
    while index < len(argv):
        token = argv[index]
        index += 1
        if token == "--":
            positionals.extend(argv[index:])
            break
        if not _is_flag(token, declared):
            positionals.append(token)
            continue
        bindings, wants_next = _read_flag(token, value_bearing, declared)
        for name, value in bindings:
            values = flags.setdefault(name, [])
            if value is not None:
                values.append(value)
        if wants_next is not None:
            values = flags.setdefault(wants_next, [])
            if index < len(argv):
                values.append(argv[index])
                index += 1
    return ParsedArgv(tuple(positionals), {name: tuple(values) for name, values in flags.items()})


def _is_flag(token: str, declared: frozenset[str]) -> bool:
    """Dash-led tokens are flags, except a lone `-` and a negative number nobody declared as a flag."""
    if not token.startswith("-") or token == "-":
        return False
    return not (_NEGATIVE_NUMBER.fullmatch(token) and token[1:] not in declared)


def _read_flag(token: str, value_bearing: frozenset[str], declared: frozenset[str]) -> tuple[list[Binding], str | None]:
    """The bindings one flag token makes, and the flag name that takes the next token, if any."""
    if token.startswith("--"):
        name, has_value, value = token[2:].partition("=")
        if has_value:
            return [(name, value)], None
        return _whole(name, value_bearing)
    body = token[1:]
    name, has_value, value = body.partition("=")
    if has_value and name in declared:
        return [(name, value)], None
    if len(body) == 1 or body in declared:
        return _whole(body, value_bearing)
    return _split_cluster(body, value_bearing)


def _whole(name: str, value_bearing: frozenset[str]) -> tuple[list[Binding], str | None]:
    return ([], name) if name in value_bearing else ([(name, None)], None)


def _split_cluster(body: str, value_bearing: frozenset[str]) -> tuple[list[Binding], str | None]:
    """Read `-abc` as `-a -b -c`; a value-bearing letter takes the rest of the token (`-fvalue`).

    A letter followed by `=` takes what follows the `=`, so `-yf=x` binds `y` and `f=x`.
    """
    bindings: list[Binding] = []
    for index, letter in enumerate(body):
        rest = body[index + 1 :]
        if rest.startswith("="):
            return [*bindings, (letter, rest[1:])], None
        if letter in value_bearing:
            return ([*bindings, (letter, rest)], None) if rest else (bindings, letter)
        bindings.append((letter, None))
    return bindings, None


def remainder_after_verb(positionals: Sequence[str], verbs: Sequence[Sequence[str]]) -> tuple[str, ...] | None:
    """The positionals after the first verb that prefixes them token by token, or None if none does."""
    for verb in verbs:
        if tuple(positionals[: len(verb)]) == tuple(verb):
            return tuple(positionals[len(verb) :])
    return None


def mismatches(pattern: ArgvPattern, argv: Sequence[str], tool: str | None = None) -> list[str]:
    """The facets of `pattern` this invocation fails, in a fixed order; an empty list is a match.

    Positionals are only compared once a verb matched, since they are counted from its end.
    """
    missed: list[str] = []
    if pattern.tool is not None and tool != pattern.tool:
        missed.append("tool")
    parsed = parse_argv(argv, value_bearing=pattern.value_bearing, declared=pattern.declared)
    rest = remainder_after_verb(parsed.positionals, pattern.verbs)
    if rest is None:
        missed.append("verb")
    elif pattern.positional is not None and rest[: len(pattern.positional)] != pattern.positional:
        missed.append("positional")
    flags = {name: values for name, values in parsed.flags.items() if name not in pattern.ignore_flags}
    missed.extend(f"flag {test.names[0]}" for test in pattern.flag_tests if not test.holds(flags))
    return missed
