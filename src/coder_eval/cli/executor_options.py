"""Options choosing where units run (`--executor`) and, for Ray, what each unit asks of the cluster."""

from __future__ import annotations

from typing import Annotated

import typer

Executor = Annotated[
    str, typer.Option("--executor", help="Where units run: local (this process) or ray (a Ray cluster).")
]
RayAddress = Annotated[
    str | None,
    typer.Option("--ray-address", help="Ray cluster to join (default: $RAY_ADDRESS, else a private local Ray)."),
]
RayCpus = Annotated[float, typer.Option("--ray-cpus", min=0.01, help="ray: CPUs each unit reserves.")]
RayMemory = Annotated[int | None, typer.Option("--ray-memory", min=1, help="ray: memory (MB) each unit reserves.")]
RayResource = Annotated[
    list[str] | None,
    typer.Option(
        "--ray-resource",
        help="ray: a custom resource each unit needs, NAME=AMOUNT, or AGENT:NAME=AMOUNT for one agent kind's units.",
    ),
]
RaySharedDir = Annotated[
    bool,
    typer.Option(
        "--ray-shared-run-dir",
        help="ray: workers write records straight into --run-dir (mounted at the same path on every node).",
    ),
]


def executor_settings(
    name: str, address: str | None, cpus: float, memory_mb: int | None, resources: list[str] | None, shared: bool
) -> object | None:
    """The executor's settings from the CLI options (None for local)."""
    from coder_eval.errors import UsageError

    ray_flags = address or memory_mb or resources or shared
    if name != "ray":
        if ray_flags:
            raise UsageError("--ray-* options need --executor ray")
        return None
    from coder_eval.cluster.settings import ray_settings

    return ray_settings(
        address,
        cpus,
        memory_mb,
        list(resources or []),
        shared,
    )
