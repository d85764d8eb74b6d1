"""Options choosing where units run (`--executor`) and, for Ray, what each unit asks of the cluster."""

from __future__ import annotations

from typing import Annotated, Any

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


def executor_settings(opts: dict[str, Any]) -> object | None:
    """The executor's settings from the CLI options (None for local)."""
    from coder_eval.errors import UsageError

    name = opts["executor"]
    ray_flags = opts["ray_address"] or opts["ray_memory"] or opts["ray_resource"] or opts["ray_shared_run_dir"]
    if name != "ray":
        if ray_flags:
            raise UsageError("--ray-* options need --executor ray")
        return None
    from coder_eval.cluster.settings import ray_settings

    return ray_settings(
        opts["ray_address"],
        opts["ray_cpus"],
        opts["ray_memory"],
        list(opts["ray_resource"] or []),
        opts["ray_shared_run_dir"],
    )
