"""Turn the tool names a task file lists into an agent kind's own tool names."""

from __future__ import annotations

from collections.abc import Iterable

from coder_eval.models.tools import ToolVocabulary, filter_kind, normalized


def own_names(vocabulary: ToolVocabulary, requested: Iterable[str]) -> list[str]:
    """Each requested name as the agent calls it: itself when the agent has it, else the agent's
    tools of the kind it stands for (`Bash` -> `run_shell_command`); unknown names are dropped."""
    names: list[str] = []
    for name in requested:
        own = [t for t in vocabulary.tools if normalized(t) == normalized(name)]
        kind = filter_kind(name)
        if not own and kind is not None:
            own = [t for t, k in vocabulary.tools.items() if k == kind]
        names.extend(own)
    return list(dict.fromkeys(names))
