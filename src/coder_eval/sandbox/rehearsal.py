"""A docker task rehearsed without a daemon: its Dockerfile replayed in a bubblewrap unit on the host's system.

`sandbox.rehearsal` (`run --rehearse`) moves a docker task to bubblewrap and replays its Dockerfile
(dockerfile_plan.py) before the unit starts, so an image-based pack can be smoke-tested where no
Docker daemon runs (a laptop, CI). What stands in for what:

- the base image: the host's system, read-only, as under any bubblewrap unit;
- the image's own directories (anything a step creates outside the system directories: `/app`,
  `/logs`, `/tests`, `/srv/...`): a directory of the unit's own (`root/`), shown at its path;
- the image's working directory (`docker.working_dir`, `auto` for the Dockerfile's last WORKDIR):
  the workspace appears there too, and commands that start in the workspace start there;
- ENV: every command of the unit gets the image's variables (the harness's own win, as under docker;
  PATH entries the image adds come after the unit's own);
- RUN: each step in a set-up namespace with no network, as the harness's user (docker build runs as the
  image's root), with the image's ENV and build arguments, from its WORKDIR; `/tmp` is kept from step to
  step and dropped at the end (a unit's `/tmp` starts empty, as under docker);
- COPY/ADD of local files: staged read-only into the unit and copied inside, so nothing is written on
  the host outside the unit's directories.

A step that fails stops the unit with an ERROR naming the Dockerfile line, the exit code and the
output's end. A write into a place the unit cannot be shown (beside a directory the harness binds,
such as the harness's own Python under /root) is found after the replay and refused the same way.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from coder_eval.common.host_tools import split_loader_env
from coder_eval.sandbox.bwrap import BubblewrapEnvironment, inside_tool, loader_prefix
from coder_eval.sandbox.bwrap_procs import reap_namespace_zombies
from coder_eval.sandbox.bwrap_userns import set_up_flags
from coder_eval.sandbox.dockerfile_plan import IMAGE_PATH, SYSTEM_TOPS, ReplayPlan, ReplayStep
from coder_eval.sandbox.drivers import SandboxRequest
from coder_eval.sandbox.environment import Command
from coder_eval.sandbox.isolated import SHARE_INNER
from coder_eval.sandbox.tempdir import Finisher
from coder_eval.sandbox.templates import SetupError

WRAP = 'mkdir -p -- "$0" && cd -- "$0" && exec "$@"'
"""Each step starts in its WORKDIR, made first (docker creates a missing WORKDIR)."""
STAGE = "rehearsal"
OUTPUT_SHOWN = 3000
NETWORK_SIGNS = ("Could not resolve", "Temporary failure in name resolution", "Network is unreachable",
                 "Name or service not known", "Failed to establish a new connection")  # fmt: skip
_DEST_FLAGS = frozenset({"--bind", "--ro-bind", "--dev-bind", "--symlink"})
_ONE_FLAGS = frozenset({"--tmpfs", "--proc", "--dev", "--dir", "--mqueue", "--remount-ro"})


def mount_targets(args: list[str]) -> list[str]:
    """Every path inside that a bwrap argument list mounts or creates."""
    targets, i = [], 0
    while i < len(args):
        if args[i] in _DEST_FLAGS:
            targets.append(args[i + 2])
            i += 3
        elif args[i] in _ONE_FLAGS:
            targets.append(args[i + 1])
            i += 2
        elif args[i] in ("--perms", "--size", "--chdir"):
            i += 2
        else:
            i += 1
    return targets


def _top(path: str) -> str:
    return path.strip("/").split("/")[0]


class RehearsalEnvironment(BubblewrapEnvironment):
    """A bubblewrap unit with a replayed image: its own top-level directories and the workspace at its WORKDIR."""

    def __init__(
        self,
        workspace: Path,
        request: SandboxRequest,
        finisher: Finisher | None,
        plan: ReplayPlan,
        *,
        existing: bool = False,
    ) -> None:
        super().__init__(workspace, request, finisher, existing=existing)
        self.plan = plan
        self.workdir = plan.workdir
        self.root_dir = self.unit_dir / "root"
        self.root_dir.mkdir(mode=0o755)
        self.image_env = {k: v for k, v in plan.env.items() if k != "PATH"}
        path = plan.env.get("PATH", IMAGE_PATH).split(":")
        self.image_path = [p for p in path if p and p not in IMAGE_PATH.split(":")]
        self._shown_workspace = self.workspace
        """What appears at the working directory: the workspace, or during a re-grade's replay a throwaway one."""

    # -- what every namespace of the unit sees ---------------------------------------------------------

    def _base_mounts(self, extra_rw: tuple[Path, ...] = ()) -> list[str]:
        return super()._mounts(extra_rw)

    def _mounts(self, extra_rw: tuple[Path, ...] = ()) -> list[str]:
        base = self._base_mounts(extra_rw)
        reserved = {_top(t) for t in mount_targets(base)} | SYSTEM_TOPS | {"tmp"}
        args = list(base)
        for entry in sorted(self.root_dir.iterdir()):
            if entry.name in reserved:
                continue
            if entry.is_symlink():
                args += ["--symlink", os.readlink(entry), f"/{entry.name}"]
            else:
                args += ["--bind", str(entry), f"/{entry.name}"]
        if self.workdir is not None:
            args += ["--bind", str(self._shown_workspace), self.workdir]
        return args

    def _inner_cwd(self, cwd: Path) -> str:
        if self.workdir is not None:
            try:
                rel = cwd.relative_to(self.workspace)
            except ValueError:
                return str(cwd)
            return str(PurePosixPath(self.workdir) / rel.as_posix()) if rel.parts else self.workdir
        return str(cwd)

    def base_env(self) -> dict[str, str]:
        env = super().base_env()
        for name, value in self.image_env.items():
            env.setdefault(name, value)  # the harness's own (HOME, PATH, the unit's variables) win, as under docker
        return env

    def fallback_path_entries(self) -> list[str]:
        return [*super().fallback_path_entries(), *self.image_path]

    # -- the replay --------------------------------------------------------------------------------------

    def replay(self, *, timeout: float, scratch_workspace: Path | None = None) -> None:
        """Run the plan's steps in order; `scratch_workspace` stands at the working directory instead of the
        workspace (a re-grade rebuilds the image's directories without touching the graded work)."""
        if scratch_workspace is not None:
            self._shown_workspace = scratch_workspace
        tmp = self.unit_dir / "replay-tmp"
        tmp.mkdir()
        tmp.chmod(0o1777)
        try:
            for index, step in enumerate(self.plan.steps):
                self._replay_step(step, index, tmp, timeout)
        finally:
            self._shown_workspace = self.workspace
            shutil.rmtree(tmp, ignore_errors=True)
            self.unshare(STAGE)
        self._refuse_hidden_writes()

    def _replay_step(self, step: ReplayStep, index: int, tmp: Path, timeout: float) -> None:
        self._clear_link_stubs()
        env, loader = split_loader_env(self._step_env(step))
        body = [*loader_prefix(loader), *self._step_body(step, index)]
        argv = [*self.limits.prefix(), *self._replay_argv(tmp), "--", inside_tool("sh"), "-c", WRAP, step.cwd, *body]
        try:
            result = self.run_tracked(
                Command(argv=argv), argv=argv, cwd=self.workspace, env=env, timeout=timeout, output_limit=64 * 1024
            )
        finally:
            reap_namespace_zombies()
        if result.exit_code != 0:
            output = result.stdout + result.stderr
            raise SetupError(_failure(self.plan, step, result.exit_code, output, result.timed_out))

    def _clear_link_stubs(self) -> None:
        """The links bwrap makes on the unit's root (`/bin` -> `usr/bin`) are made again by each step's bwrap,
        which will not replace one that is there."""
        args = self._base_mounts()
        for i, flag in enumerate(args):
            if flag == "--symlink":
                stub = self.root_dir / args[i + 2].lstrip("/")
                if stub.is_symlink():
                    stub.unlink()

    def _replay_argv(self, tmp: Path) -> list[str]:
        """A set-up namespace whose root is the unit's own `root/` (so steps may create top-level directories),
        with the system and the harness's directories mounted over it, `/tmp` kept between steps, no network."""
        base = self._base_mounts()
        at = base.index("--tmpfs")
        while at > 0 and base[at - 2] in ("--size", "--perms"):
            at -= 2
        end = base.index("--tmpfs") + 2
        mounts = [*base[:at], "--bind", str(tmp), "/tmp", *base[end:]]
        if self.workdir is not None:
            mounts += ["--bind", str(self._shown_workspace), self.workdir]
        flags = ["--unshare-all", "--die-with-parent", "--new-session", *set_up_flags(self.unit_user)]
        return [self._binary, *flags, "--bind", str(self.root_dir), "/", *mounts, "--chdir", "/"]

    def _step_env(self, step: ReplayStep) -> dict[str, str]:
        env = {**self.base_env(), **step.env}
        image = step.env.get("PATH", IMAGE_PATH).split(":")
        host = self.base_env().get("PATH", "").split(":")
        env["PATH"] = ":".join(dict.fromkeys(p for p in (*image, *host) if p))
        return env

    def _step_body(self, step: ReplayStep, index: int) -> list[str]:
        """What the step runs after `cd` into its WORKDIR (an argv)."""
        if step.kind == "workdir":
            return [inside_tool("true")]
        if step.kind == "run":
            return list(step.argv or (*step.shell, step.script))
        return [inside_tool("sh"), "-c", self._copy_script(step, index)]

    def _copy_script(self, step: ReplayStep, index: int) -> str:
        """Stage the sources read-only for this unit, then copy them inside as Docker's COPY/ADD would."""
        staged = self.share_dir / STAGE / str(index)
        inner = SHARE_INNER / STAGE / str(index)
        staged.mkdir(parents=True)
        lines = ["set -e"]
        dest = shlex.quote(step.dest)
        targets: list[tuple[str, bool]] = []
        for i, source in enumerate(step.sources):
            copy = staged / str(i) / source.name
            copy.parent.mkdir()
            if source.is_dir():
                shutil.copytree(source, copy, symlinks=True)
            else:
                shutil.copy2(source, copy)
            targets.append((shlex.quote(str(inner / str(i) / source.name)), source.is_dir()))
        for i, (doc, content) in enumerate(step.heredocs, start=len(step.sources)):
            (staged / str(i)).mkdir()
            (staged / str(i) / doc).write_text(content, encoding="utf-8")
            targets.append((shlex.quote(str(inner / str(i) / doc)), False))
        for src, is_dir in targets:
            if step.extract and not is_dir:
                lines.append(f"mkdir -p {dest} && tar -xf {src} -C {dest}")
            elif is_dir:
                lines.append(f"mkdir -p {dest} && cp -R {src}/. {dest}/")
            elif step.into_dir:
                lines.append(f"mkdir -p {dest} && cp {src} {dest}/")
            else:
                lines.append(f'mkdir -p "$(dirname {dest})" && cp {src} {dest}')
        if step.chmod:
            lines.append(f"chmod -R {shlex.quote(step.chmod)} {dest}")
        return "\n".join(lines)

    def _refuse_hidden_writes(self) -> None:
        """A step that wrote beside a directory the harness mounts (under /root, say) would lose it: refuse."""
        base = self._base_mounts()
        stubs = {"/"}
        for target in [*mount_targets(base), *([self.workdir] if self.workdir else [])]:
            parts = PurePosixPath(target).parts
            stubs |= {str(PurePosixPath(*parts[:i])) for i in range(1, len(parts) + 1)}
        reserved = {_top(t) for t in mount_targets(base)} | SYSTEM_TOPS | {"tmp"}
        hidden = [p for p in _walk(self.root_dir, reserved) if str(p) not in stubs]
        if hidden:
            shown = ", ".join(str(p) for p in hidden[:5])
            raise SetupError(
                f"rehearsal: the Dockerfile's steps wrote {shown}, beside directories the harness itself mounts "
                "there, where a rehearsal cannot show them to the unit; run this task under docker"
            )


def _walk(root: Path, tops: Iterable[str]) -> list[PurePosixPath]:
    """Inner paths of everything under root/<top> for the given tops (not following links)."""
    found: list[PurePosixPath] = []
    for top in sorted(tops):
        start = root / top
        if not start.exists() or start.is_symlink():
            continue
        for here, dirs, files in os.walk(start):
            rel = PurePosixPath("/") / Path(here).relative_to(root).as_posix()
            found += [rel / name for name in [*dirs, *files]]
    return found


def _failure(plan: ReplayPlan, step: ReplayStep, code: int | None, output: str, timed_out: bool) -> str:
    where = f"{plan.dockerfile or 'the Dockerfile'}, line {step.line}"
    what = "timed out" if timed_out else f"failed (exit {code})"
    text = output.strip()[-OUTPUT_SHOWN:]
    hint = ""
    if any(sign in output for sign in NETWORK_SIGNS):
        hint = " It looks like it needs the network, which a rehearsal does not have: do it on the host and add "
        hint += "it to sandbox.rehearsal.assume_done, or run under docker."
    elif "Read-only file system" in output:
        hint = " It writes into the host's system directories, which a rehearsal shows read-only."
    return f"rehearsal: {where}: `{step.text}` {what}.{hint} Its output ends: {text or '(nothing)'}"


def rehearse(
    workspace: Path, request: SandboxRequest, finisher: Finisher | None, *, existing: bool = False
) -> RehearsalEnvironment:
    """A unit with its docker settings replayed; a plan problem or a failed step is a SetupError (and
    nothing of the unit is left behind). Over an existing workspace (a re-grade), the steps replay
    against a throwaway working directory, so the graded work is never touched."""
    from coder_eval.sandbox.dockerfile_plan import plan_replay

    config = request.config
    assert config.docker is not None and config.rehearsal is not None
    plan = plan_replay(config.docker, config.rehearsal, request.task_dir or Path.cwd())
    if plan.problems:
        raise SetupError("rehearsal: " + "; ".join(p.render(plan.dockerfile) for p in plan.problems))
    env = RehearsalEnvironment(workspace, request, finisher, plan, existing=existing)
    scratch = env.unit_dir / "replay-workspace" if existing else None
    try:
        if scratch is not None:
            scratch.mkdir()
        env.replay(timeout=config.limits.timeout, scratch_workspace=scratch)
    except BaseException:
        env.finish()
        raise
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    request.notes.extend(plan.notes)
    return env
