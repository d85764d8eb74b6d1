"""A docker task read as a rehearsal's replay plan: what its Dockerfile does, in order, and what it cannot.

A rehearsal runs a docker task without a daemon (see rehearsal.py): the host's system stands in for
the base image and the Dockerfile's own steps are replayed on top, offline. The plan is made once,
before anything runs, so `plan` refuses exactly what `run` would: a step that needs the network
(`apt-get install`, `pip install`, `curl`, `ADD` of a URL), a COPY into the host's system
directories, a copy from another build stage, a missing source, a secret mount. Commands the
operator says the host already provides (`sandbox.rehearsal.assume_done`) are skipped and listed.

The Dockerfile is parsed by the `dockerfile` package (BuildKit's own parser, heredocs included).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from coder_eval.models.sandbox import DockerConfig, Rehearsal
from coder_eval.sandbox.dockerfile_parse import Instruction, dockerignore, ignored, parse
from coder_eval.sandbox.dockerfile_words import expand, fragments
from coder_eval.sandbox.network_steps import needs_network

SYSTEM_TOPS = frozenset({"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "opt", "etc", "proc", "dev", "sys"})
"""Top-level directories a rehearsal shows from the host, read-only: nothing can be copied into them."""
ARCHIVES = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst")
IGNORED = frozenset({"CMD", "ENTRYPOINT", "EXPOSE", "LABEL", "MAINTAINER", "HEALTHCHECK", "STOPSIGNAL", "VOLUME"})
_HEREDOC_ONLY = re.compile(r"^<<-?([\"']?)(\w+)\1$")
_FLAGS = re.compile(r"^\s*\w+((\s+--\S+)*)\s+", re.IGNORECASE)
DEFAULT_SHELL = ("/bin/sh", "-c")
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""The PATH base images declare; an `ENV PATH=/x:$PATH` adds to it."""


@dataclass(frozen=True)
class ReplayProblem:
    line: int
    message: str
    fix: str

    def render(self, dockerfile: str) -> str:
        return f"{dockerfile}, line {self.line}: {self.message} ({self.fix})"


@dataclass(frozen=True)
class ReplayStep:
    """One thing to do inside the unit's set-up namespace, in Dockerfile order."""

    line: int
    text: str
    """The instruction as written (its first line), for messages."""
    kind: Literal["run", "copy", "workdir"]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)
    shell: tuple[str, ...] = DEFAULT_SHELL
    script: str = ""
    argv: tuple[str, ...] = ()
    sources: tuple[Path, ...] = ()
    heredocs: tuple[tuple[str, str], ...] = ()
    """COPY <<NAME: (name, content) of each file written from the Dockerfile itself."""
    dest: str = ""
    into_dir: bool = False
    extract: bool = False
    chmod: str | None = None


@dataclass
class ReplayPlan:
    base: str | None
    workdir: str | None
    """Where the workspace appears inside (None: only at its own path)."""
    steps: list[ReplayStep] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    """The final image's ENV, which every later command of the unit gets."""
    notes: list[str] = field(default_factory=list)
    problems: list[ReplayProblem] = field(default_factory=list)
    dockerfile: str = ""


@dataclass
class _State:
    plan: ReplayPlan
    context: Path
    rehearsal: Rehearsal
    cwd: str = "/"
    args: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    shell: tuple[str, ...] = DEFAULT_SHELL
    ignore: list[str] = field(default_factory=list)

    @property
    def values(self) -> dict[str, str]:
        """What `$NAME` means in an instruction: build arguments, then ENV (PATH starts as images' usual one)."""
        return {"PATH": IMAGE_PATH, **self.args, **self.env}

    def problem(self, line: int, message: str, fix: str) -> None:
        self.plan.problems.append(ReplayProblem(line, message, fix))


def plan_replay(docker: DockerConfig, rehearsal: Rehearsal, task_dir: Path) -> ReplayPlan:
    """The replay plan of a docker task's settings; problems listed, never raised."""
    if docker.dockerfile_path is None:
        return _image_only(docker)
    dockerfile = (task_dir / docker.dockerfile_path).resolve()
    plan = ReplayPlan(base=None, workdir=None, dockerfile=str(dockerfile))
    try:
        text = dockerfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        plan.problems.append(ReplayProblem(0, f"cannot read the Dockerfile ({exc})", "fix dockerfile_path"))
        return plan
    try:
        commands = parse(text)
    except ValueError as exc:
        plan.problems.append(ReplayProblem(0, f"the Dockerfile does not parse: {exc}", "fix its syntax"))
        return plan
    state = _State(plan, dockerfile.parent, rehearsal, ignore=dockerignore(dockerfile.parent))
    if docker.build is not None:
        state.args.update({k: os.path.expandvars(v) for k, v in docker.build.args.items()})
    for command in _final_stage(commands, state):
        _step(command, state)
    plan.env = dict(state.env)
    plan.workdir = _workdir(docker.working_dir, state)
    _check_destinations(plan)
    return plan


def _image_only(docker: DockerConfig) -> ReplayPlan:
    plan = ReplayPlan(base=docker.image, workdir=None)
    if docker.image:
        plan.notes.append(f"image {docker.image}: the host's system stands in for it; nothing to replay")
    wd = docker.working_dir
    if wd == "auto":
        plan.notes.append("working_dir auto: the image's WORKDIR is unknown without a daemon; the workspace stays at "
                          "its own path (set sandbox.docker.working_dir to place it)")  # fmt: skip
    elif wd and wd != "/":
        plan.workdir = wd.rstrip("/")
    return plan


def _workdir(working_dir: str | None, state: _State) -> str | None:
    chosen = state.cwd if working_dir == "auto" else working_dir
    if chosen is None or chosen.rstrip("/") == "":
        return None
    chosen = posixpath.normpath(chosen)
    top = chosen.strip("/").split("/")[0]
    if top in SYSTEM_TOPS or top == "tmp":
        state.problem(
            0,
            f"the working directory {chosen} lies under /{top}, which a rehearsal cannot place the workspace in",
            "set sandbox.docker.working_dir outside the system directories, e.g. -D sandbox.docker.working_dir=/app",
        )
        return None
    return chosen


def _check_destinations(plan: ReplayPlan) -> None:
    for step in plan.steps:
        if step.kind != "copy":
            continue
        top = step.dest.strip("/").split("/")[0]
        if top in SYSTEM_TOPS:
            plan.problems.append(
                ReplayProblem(
                    step.line,
                    f"{step.text!r} writes into /{top}, which a rehearsal shows read-only from the host",
                    "install it on the host and add the instruction to sandbox.rehearsal.assume_done, or use docker",
                )
            )


def _final_stage(commands: list[Instruction], state: _State) -> list[Instruction]:
    """The final stage's instructions, behind those of the stages it is built FROM."""
    stages: list[tuple[str | None, str, list[Instruction]]] = []
    for command in commands:
        if command.cmd == "FROM":
            value = command.value
            alias = value[2] if len(value) >= 3 and value[1].upper() == "AS" else None
            stages.append((alias, expand(value[0] if value else "", state.args), []))
        elif not stages:
            if command.cmd == "ARG":  # before the first FROM: global build arguments
                _step(command, state)
        else:
            stages[-1][2].append(command)
    if not stages:
        state.problem(1, "the Dockerfile has no FROM", "start it with FROM")
        return []
    names = {alias: i for i, (alias, _, _) in enumerate(stages) if alias}
    chain = [len(stages) - 1]
    while names.get(stages[chain[0]][1], len(stages)) < chain[0]:
        chain.insert(0, names[stages[chain[0]][1]])
    base = stages[chain[0]][1]
    state.plan.base = base
    state.plan.notes.append(f"FROM {base}: the host's system stands in for the base image")
    if len(stages) > len(chain):
        state.plan.notes.append(f"{len(stages) - len(chain)} other build stage(s) not replayed (only the final one)")
    return [c for i in chain for c in stages[i][2]]


def _step(command: Instruction, state: _State) -> None:
    cmd, line = command.cmd, command.line
    handler = _HANDLERS.get(cmd)
    if handler is not None:
        handler(command, state)
    elif cmd == "USER":
        state.plan.notes.append(f"line {line}: USER ignored (set-up runs as the harness's user, the unit as its own)")
    elif cmd in IGNORED:
        state.plan.notes.append(f"line {line}: {cmd} has no part in a unit; not applied")
    elif cmd == "ONBUILD":
        state.plan.notes.append(f"line {line}: ONBUILD ignored")
    else:
        state.problem(line, f"{cmd} is not an instruction a rehearsal knows", "remove it, or run under docker")


def _arg(command: Instruction, state: _State) -> None:
    for word in command.value:
        name, sep, default = word.partition("=")
        if name not in state.args:
            state.args[name] = expand(default, state.values) if sep else ""


def _env(command: Instruction, state: _State) -> None:
    words = command.value
    for name, value in zip(words[::2], words[1::2], strict=False):
        state.env[name] = expand(value, state.values)


def _shell(command: Instruction, state: _State) -> None:
    state.shell = command.value or DEFAULT_SHELL


def _workdir_step(command: Instruction, state: _State) -> None:
    target = expand(command.value[0], state.values) if command.value else "/"
    state.cwd = posixpath.normpath(posixpath.join(state.cwd, target))
    state.plan.steps.append(ReplayStep(command.line, command.first, "workdir", state.cwd, dict(state.values)))


def _run(command: Instruction, state: _State) -> None:
    line = command.line
    for flag in command.flags:
        if flag.startswith("--mount=") and not re.search(r"type=(cache|tmpfs)\b", flag):
            state.problem(line, f"RUN {flag} is not replayed", "remove the mount, or run under docker")
            return
    if command.json:
        joined = " ".join(command.value)
        if _skipped(joined, state, line) or _refused(joined, state, line):
            return
        step = ReplayStep(line, command.first, "run", state.cwd, dict(state.values), argv=command.value)
        state.plan.steps.append(step)
        return
    value = command.value
    only = bool(value and command.heredocs and _HEREDOC_ONLY.match(value[0].strip()))
    script = command.heredocs[0][1] if only else _FLAGS.sub("", command.original, count=1)
    kept = _without_assumed(script, state, line)
    if kept is None:
        return
    step = ReplayStep(line, command.first, "run", state.cwd, dict(state.values), shell=state.shell, script=kept)
    state.plan.steps.append(step)


def _without_assumed(script: str, state: _State, line: int) -> str | None:
    """The script with the commands the host already provides replaced by `true`; None when refused."""
    out, last = [], 0
    for start, end in fragments(script):
        text = script[start:end].strip()
        out.append(script[last:start])
        if _skipped(text, state, line):
            out.append(" true ")
        else:
            network = needs_network(text)
            if network is not None:
                state.problem(
                    line,
                    f"`{text[:120]}` needs the network ({network}), which a rehearsal does not have",
                    "do it on the host and add a pattern to sandbox.rehearsal.assume_done "
                    f"(--rehearse-assume '{network.split()[0]} *'), or run under docker",
                )
                return None
            out.append(script[start:end])
        last = end
    out.append(script[last:])
    return "".join(out)


def _skipped(text: str, state: _State, line: int) -> bool:
    normal = " ".join(text.split())
    for pattern in state.rehearsal.assume_done:
        if fnmatch.fnmatchcase(normal, pattern):
            state.plan.notes.append(f"line {line}: `{normal[:120]}` skipped (assume_done {pattern!r})")
            return True
    return False


def _refused(text: str, state: _State, line: int) -> bool:
    network = needs_network(text)
    if network is not None:
        state.problem(line, f"`{text[:120]}` needs the network ({network})", "add it to assume_done, or use docker")
    return network is not None


def _copy(command: Instruction, state: _State) -> None:
    cmd, line, first = command.cmd, command.line, command.first
    flags = {f.split("=", 1)[0]: f.partition("=")[2] for f in command.flags}
    if "--from" in flags:
        state.problem(line, f"{first!r} copies from another build stage", "copy from the build context, or use docker")
        return
    if _skipped(first, state, line):
        return
    words = [expand(w, state.values) for w in command.value]
    if len(words) < 2:
        state.problem(line, f"{cmd} needs a source and a destination", "fix the instruction")
        return
    *raw_sources, dest = words
    dest = posixpath.normpath(posixpath.join(state.cwd, dest)) + ("/" if dest.endswith("/") else "")
    heredocs = dict(command.heredocs)
    sources: list[Path] = []
    docs: list[tuple[str, str]] = []
    for raw in raw_sources:
        name = raw[2:].lstrip("-").strip("\"'") if raw.startswith("<<") else None
        if name is not None and name in heredocs:
            docs.append((name, heredocs[name]))
        elif re.match(r"^[a-z][a-z0-9+.-]*://", raw) or raw.startswith("git@"):
            state.problem(line, f"{cmd} of {raw} needs the network", "download it into the build context and COPY it")
            return
        else:
            found = _sources(raw, state, line)
            if found is None:
                return
            sources += found
    step = ReplayStep(
        line,
        first,
        "copy",
        state.cwd,
        sources=tuple(sources),
        heredocs=tuple(docs),
        dest=dest.rstrip("/") or "/",
        into_dir=dest.endswith("/") or len(sources) + len(docs) > 1,
        extract=cmd == "ADD" and any(s.name.endswith(ARCHIVES) for s in sources),
        chmod=flags.get("--chmod"),
    )
    state.plan.steps.append(step)


def _sources(raw: str, state: _State, line: int) -> list[Path] | None:
    context = state.context.resolve()
    pattern = str(context / raw.lstrip("/"))
    found = sorted(Path(p) for p in glob.glob(pattern)) if glob.has_magic(raw) else [context / raw.lstrip("/")]
    found = [p for p in found if p.exists() and not ignored(p.relative_to(context).as_posix(), state.ignore)]
    escaped = [p for p in found if not p.resolve().is_relative_to(context)]
    if escaped or ".." in Path(raw).parts:
        state.problem(line, f"{raw} lies outside the build context {context}", "keep sources inside the context")
        return None
    if not found:
        state.problem(line, f"{raw} is not in the build context {context}", "add it, or fix the path")
        return None
    return found


_HANDLERS = {
    "ARG": _arg,
    "ENV": _env,
    "SHELL": _shell,
    "WORKDIR": _workdir_step,
    "RUN": _run,
    "COPY": _copy,
    "ADD": _copy,
}
