"""`--rehearse` and `--rehearse-assume`, shared by run, execute, plan and lint: a docker task without a daemon."""

from __future__ import annotations

import json
from typing import Annotated

import typer

Rehearse = Annotated[
    bool,
    typer.Option(
        "--rehearse",
        help="Run docker tasks without a daemon: their Dockerfile replayed under bubblewrap on this machine's "
        "system (steps that need the network are refused). Same as -D sandbox.rehearsal.enabled=true.",
    ),
]
RehearseAssume = Annotated[
    list[str] | None,
    typer.Option(
        "--rehearse-assume",
        help="With --rehearse: a pattern of RUN commands this machine already provides (skipped and listed), "
        "e.g. 'apt-get *'. Repeatable; implies --rehearse.",
    ),
]


def rehearsal_sets(rehearse: bool, assume: list[str] | None) -> tuple[str, ...]:
    """The `-D` overrides the two flags stand for."""
    if not rehearse and not assume:
        return ()
    sets = ["sandbox.rehearsal.enabled=true"]
    if assume:
        sets.append(f"sandbox.rehearsal.assume_done={json.dumps(list(assume))}")
    return tuple(sets)
