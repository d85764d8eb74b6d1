"""CE109: a criterion runs code while the reference is visible to it.

A criterion that names the reference (`sees_reference`) has it in reach for its whole run, and so
does every program it starts. When one of those programs is the agent's code (a test suite that
imports the agent's module, the agent's script, an interpreter on a workspace file), that code can
read the reference and print what the grader wants. Comparison tools (`diff`, `cmp`, `grep`, ...)
read files and run nothing; anything else is assumed to run code. Reading the command is a
heuristic: it cannot see what an author's script does, so it says which program it stopped at.
"""

from __future__ import annotations

import re
import shlex

from coder_eval.models.criteria import BaseCriterion, RunCommandCriterion
from coder_eval.models.criteria_judges import AgentJudgeCriterion

READ_ONLY_TOOLS = frozenset(
    {
        *("diff", "cmp", "comm", "cat", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "grep", "egrep"),
        *("fgrep", "test", "[", "[[", "]]", "ls", "stat", "echo", "printf", "true", "false", "cd", "jq"),
        *("sha256sum", "sha1sum", "md5sum", "cksum", "basename", "dirname", "realpath", "readlink", "!"),
    }
)
"""Programs that compare or read files and never run what they read."""
_SEPARATORS = re.compile(r"\|\||&&|[;|&\n]|\$\(|`|\(|\)|\{|\}")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _programs(command: str) -> list[str]:
    """The program of each simple command in a shell command line (best effort; `?` when unreadable)."""
    found = []
    for part in _SEPARATORS.split(command):
        try:
            words = shlex.split(part, comments=True)
        except ValueError:
            return ["?"]
        words = [w for w in words if not _ASSIGNMENT.match(w)]
        if words:
            found.append(words[0].rsplit("/", 1)[-1] if not words[0].startswith("$") else words[0])
    return found


def runs_code_with_reference(criterion: BaseCriterion) -> str | None:
    """What in `criterion` may run the agent's code while the reference is visible, or None."""
    if not criterion.sees_reference:
        return None
    if isinstance(criterion, RunCommandCriterion):
        runners = [p for p in _programs(criterion.command) if p not in READ_ONLY_TOOLS]
        return f"its command runs {runners[0]!r}" if runners else None
    if isinstance(criterion, AgentJudgeCriterion):
        return "its judge agent may run the agent's code in a copy that holds the reference"
    return None
