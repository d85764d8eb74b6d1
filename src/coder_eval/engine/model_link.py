"""How a unit's agent reaches a model: a gateway route per unit, its env, and its call records.

The orchestrator only sees this small seam; `engine/gateway_link.py` implements it on the
model gateway.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from coder_eval.agents.kind import RouteAddress
    from coder_eval.engine.agent_phase import AgentPhase
    from coder_eval.engine.task_log import TaskLog
    from coder_eval.engine.units import RunUnit
    from coder_eval.models.tools import ToolVocabulary


class OpenLink(Protocol):
    env: dict[str, str]
    """Variables the agent needs besides its route (e.g. the AWS settings under bedrock)."""

    @property
    def address(self) -> RouteAddress | None:
        """The unit's gateway route, which the agent kind turns into its own variables; None without a gateway."""
        ...

    def finish(self, phase: AgentPhase, env_info: dict[str, Any], log: TaskLog) -> None:
        """Fold the route's call records, totals and budget verdict into the unit's results."""
        ...


class ModelLink(Protocol):
    def open(self, unit: RunUnit, workspace: Path, *, vocabulary: ToolVocabulary | None = None) -> OpenLink:
        """A fresh route for this unit (raises a CoderEvalError when the unit cannot be served)."""
        ...
