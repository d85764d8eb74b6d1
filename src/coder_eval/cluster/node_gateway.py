"""One model gateway per node: a Ray actor pinned to the node, and the ModelLink units use to reach it.

Agents talk to the gateway on their own machine (127.0.0.1). A unit opens its route through the
actor and, when its agent is done, takes the route's call records back with it, so the gateway's
accounting lands in the unit's record exactly as under the local executor.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coder_eval.agents.kind import RouteAddress
from coder_eval.engine.gateway_link import GatewayLink, RouteRecords, fold_route_records, route_key
from coder_eval.engine.gateway_spec import GatewaySpec

if TYPE_CHECKING:
    from coder_eval.engine.agent_phase import AgentPhase
    from coder_eval.engine.task_log import TaskLog
    from coder_eval.engine.units import RunUnit
    from coder_eval.gateway.routes import Route
    from coder_eval.gateway.server import GatewayThread
    from coder_eval.models.tools import ToolVocabulary

NAMESPACE = "coder-eval"


def gateway_name(run_token: str, node_id: str) -> str:
    return f"gateway-{run_token}-{node_id}"


class NodeGateway:
    """The body of the per-node gateway actor: a GatewayThread and the routes its units opened."""

    def __init__(self, spec: GatewaySpec) -> None:
        self._thread: GatewayThread = spec.start()
        self._link = GatewayLink(self._thread, oracle=spec.oracle)
        self._routes: dict[str, Route] = {}
        self._lock = threading.Lock()

    def open(self, unit: RunUnit, workspace: str, vocabulary: ToolVocabulary | None) -> tuple[str, str]:
        """Open the unit's route (closing one a dead attempt left behind); its base URL and token."""
        key = route_key(unit)
        with self._lock:
            stale = self._routes.pop(key, None)
        if stale is not None:
            self._thread.close_route(stale)
        route = self._link.open(unit, Path(workspace), vocabulary=vocabulary).route
        with self._lock:
            self._routes[key] = route
        return route.base_url, route.token

    def close(self, key: str) -> RouteRecords | None:
        """Close the route and hand back what it saw (None when it is not open here)."""
        with self._lock:
            route = self._routes.pop(key, None)
        if route is None:
            return None
        self._thread.close_route(route)
        return RouteRecords.of(route)

    def stop(self) -> None:
        self._thread.stop()


@dataclass
class _RemoteRoute:
    gateway: Any
    key: str
    route: RouteAddress
    env: dict[str, str] = field(default_factory=dict)

    @property
    def address(self) -> RouteAddress:
        return self.route

    def finish(self, phase: AgentPhase, env_info: dict[str, Any], log: TaskLog) -> None:
        import ray

        records: RouteRecords | None = ray.get(self.gateway.close.remote(self.key))
        if records is None:
            log.add("the node's gateway no longer knew this unit's route; its call records are missing")
            return
        env_info["gateway_node"] = ray.get_runtime_context().get_node_id()
        fold_route_records(records, phase, env_info, log)


class NodeGatewayLink:
    """ModelLink for a unit on a Ray worker: its route lives on the node's gateway actor."""

    def __init__(self, gateway: Any) -> None:
        self.gateway = gateway

    def open(self, unit: RunUnit, workspace: Path, *, vocabulary: ToolVocabulary | None = None) -> _RemoteRoute:
        import ray

        base_url, token = ray.get(self.gateway.open.remote(unit, str(workspace), vocabulary))
        return _RemoteRoute(self.gateway, route_key(unit), RouteAddress(base_url, token))


_actor_lock = threading.Lock()


def node_gateway(spec: GatewaySpec, run_token: str) -> Any:
    """This node's gateway actor for the run, started on first use (detached; the driver stops it)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    node_id = ray.get_runtime_context().get_node_id()
    actor_cls = ray.remote(NodeGateway)
    with _actor_lock:
        return actor_cls.options(
            name=gateway_name(run_token, node_id),
            namespace=NAMESPACE,
            get_if_exists=True,
            lifetime="detached",
            num_cpus=0,
            max_concurrency=64,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(spec)
