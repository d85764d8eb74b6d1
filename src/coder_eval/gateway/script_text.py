"""The text a scripted step becomes when no dedicated tool carries it: shell scripts and Codex patches."""

from __future__ import annotations

import shlex


def _lines(text: str) -> list[str]:
    """The lines of a text, without a final empty line for a trailing newline."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def whole_lines(old: str, new: str) -> bool:
    """Whether an edit replaces whole lines (so an apply_patch hunk can express it exactly)."""
    return old.endswith("\n") and (new == "" or new.endswith("\n"))


def add_file_patch(path: str, content: str) -> str:
    """A Codex patch that creates `path` holding `content`."""
    body = "".join(f"+{line}\n" for line in _lines(content))
    return f"*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch"


def update_file_patch(path: str, old: str, new: str) -> str:
    """A Codex patch that replaces the lines of `old` with the lines of `new` in `path`."""
    minus = "".join(f"-{line}\n" for line in _lines(old))
    plus = "".join(f"+{line}\n" for line in _lines(new))
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n{minus}{plus}*** End Patch"


def heredoc_delimiter(content: str) -> str:
    """A heredoc delimiter that is not a line of `content`."""
    lines = set(content.split("\n"))
    n = 0
    while f"CODER_EVAL_EOF_{n}" in lines:
        n += 1
    return f"CODER_EVAL_EOF_{n}"


def shell_write(path: str, content: str) -> str:
    """A bash script that writes `content` to `path` exactly (creating parent directories).

    The heredoc is never the script's last line, so agents that trim the command and wrap it
    (Gemini CLI: `{ cmd; }; ...`) or eval it (Claude Code) run it unchanged.
    """
    q = shlex.quote(path)
    mkdir = f'mkdir -p -- "$(dirname -- {q})" && '
    if content == "":
        return f"{mkdir}: > {q}"
    end = heredoc_delimiter(content)
    if content.endswith("\n"):
        return f"{mkdir}cat > {q} <<'{end}' &&\n{content}{end}\ntrue"
    return f"{mkdir}printf '%s' \"$(cat <<'{end}'\n{content}\n{end}\n)\" > {q}"


_PY_EDIT = (
    "import sys; a = sys.argv; t = open(a[1], encoding='utf-8', newline='').read(); "
    "a[2] in t or sys.exit('old text not found in ' + a[1]); "
    "open(a[1], 'w', encoding='utf-8', newline='').write(t.replace(a[2], a[3], 1))"
)


def shell_edit(path: str, old: str, new: str) -> str:
    """A shell command that replaces the first `old` with `new` in `path` (python3 one-liner)."""
    return " ".join(shlex.quote(p) for p in ("python3", "-c", _PY_EDIT, path, old, new))
