"""The event protocol and the EventCollector where the reference system's plugin guide imports them.

`coder_eval.streaming.events` holds the six event types the guide names (AgentStart/End,
TurnStart/End, ToolStart/End) in a lenient form, and `coder_eval.streaming.collector` the
EventCollector a hand-written `communicate()` builds its TurnRecord with. They are thin layers
over the native protocol (`coder_eval.agent`): the events are subclasses of ours, so renderers,
`task.log` and the collector read them like any other.
"""

from coder_eval.agents.events import StreamCallback, safe_emit
from coder_eval.streaming.collector import EventCollector
from coder_eval.streaming.events import (
    AgentEndEvent,
    AgentStartEvent,
    ToolEndEvent,
    ToolStartEvent,
    TurnEndEvent,
    TurnStartEvent,
)

__all__ = [
    "AgentEndEvent",
    "AgentStartEvent",
    "EventCollector",
    "StreamCallback",
    "ToolEndEvent",
    "ToolStartEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "safe_emit",
]
