"""Sandbox: a unit's workspace set up through its driver's environment, then preserved or dropped."""

from __future__ import annotations

import stat
from pathlib import Path

from coder_eval.common.ignore import IgnoreRules
from coder_eval.common.process import ExecResult
from coder_eval.common.reaper import UNIT_TAG_VAR, kill_tagged, new_tag, reap
from coder_eval.errors import TaskConfigError
from coder_eval.models.network import NetworkRecord
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.cli_recorder import CliRecorder
from coder_eval.sandbox.deadline import BoundedEnvironment, Deadline, limit_breach, network_phase, network_record
from coder_eval.sandbox.drivers import PreservationMode, SandboxRequest, get_driver
from coder_eval.sandbox.environment import Command, SandboxEnvironment
from coder_eval.sandbox.environments import install_node_packages, npm_prefix
from coder_eval.sandbox.record_cli import Recording, seed_copy, write_copy
from coder_eval.sandbox.templates import apply_sources
from coder_eval.sandbox.unit_python import UnitPython


class Sandbox:
    """One unit's workspace. `setup` materialises it; `adopt` reuses an existing one for re-grading."""

    def __init__(
        self,
        config: SandboxConfig,
        *,
        task_dir: Path,
        task_file: Path,
        artifacts_dir: Path,
        mode: PreservationMode | None = None,
        base_env: dict[str, str] | None = None,
        scratch: Path | None = None,
        deadline: Deadline | None = None,
        tools: tuple[str, ...] = (),
        runs_agent: bool = True,
        cli_log: Path | None = None,
    ) -> None:
        self.config = config
        self.cli_log_path = cli_log
        """Where the record_cli recorder keeps its log (the unit's record directory), if the task has one."""
        self.recording: Recording | None = None
        self.notes: list[str] = []
        """What the sandbox found worth a line in task.log (a changed workspace copy of the call log)."""
        self.deadline = deadline
        self.tag = new_tag()
        """Every process started for this unit carries it in its environment (see common/reaper)."""
        self._killed: set[int] = set()
        self.task_dir = task_dir
        self.task_file = task_file
        self.driver = get_driver(config.driver)
        self.mode = mode or self.driver.default_preservation
        self.ignore = IgnoreRules.with_overrides(config.ignore_patterns)
        self.request = SandboxRequest(
            config=config,
            artifacts_dir=artifacts_dir,
            mode=self.mode,
            scratch=scratch,
            task_dir=task_dir,
            base_env=base_env,
            tools=tools,
            runs_agent=runs_agent,
        )
        self.python = UnitPython(config.python, self.driver)
        """The unit's Python environment; its `info` goes into the unit's record."""
        self.environment: SandboxEnvironment | None = None
        self._raw: SandboxEnvironment | None = None
        self.was_adopted = False
        self.kept: Path | None = None

    @property
    def live(self) -> SandboxEnvironment:
        if self.environment is None:
            raise RuntimeError("sandbox is not set up")
        return self.environment

    @property
    def workspace(self) -> Path:
        return self.live.workspace

    @property
    def root(self) -> Path | None:
        return self.environment.workspace if self.environment is not None else None

    @property
    def bin_dirs(self) -> list[Path]:
        return [Path(p) for p in self.live.path_entries()]

    def setup(self) -> Path:
        """Create the workspace and apply templates, environments, recorders and mock dirs."""
        if self.request.scratch is not None:
            self.request.scratch.mkdir(parents=True, exist_ok=True)
        timeout = self.config.limits.timeout
        request = self.python.prepare(
            self.request, task_file=self.task_file, templates=self._templates, timeout=timeout
        )
        self._raw = self.driver.create(request)
        env = self.environment = self._bounded(self._raw)
        self._templates(env.workspace)
        tools: list[Path] = []
        python_bin = self.python.provide(env, timeout=timeout)
        if python_bin is not None:
            tools.append(python_bin)
        if self.config.node is not None:
            node_bin = install_node_packages(self.config.node, env, timeout=timeout)
            if node_bin is not None:
                tools.append(node_bin)
        tools.append(npm_prefix(env))
        mock_dirs = self._mock_dirs()
        self._refuse_collisions(mock_dirs)
        shims = self._start_recording(env, self.cli_log_path)
        if shims is not None:
            seed_copy(env.workspace)
        env.add_path_entries(([shims] if shims else []) + mock_dirs + tools)
        env.seal()
        return env.workspace

    def _templates(self, workspace: Path) -> None:
        apply_sources(
            self.config.template_sources,
            workspace,
            task_dir=self.task_dir,
            task_file=self.task_file,
            ignore=self.ignore,
            allow_host=self.config.allow_host_paths,
        )

    def _start_recording(self, env: SandboxEnvironment, log: Path | None) -> Path | None:
        """Start the record_cli recorder and write its shims; the shims' directory as the unit sees it."""
        if not self.config.record_cli:
            return None
        self.recording = Recording(self.config.record_cli, env, log)
        return Path(str(self.recording.shims))

    @property
    def cli_log(self) -> CliRecorder | None:
        """The harness-owned log of the unit's record_cli calls (None without record_cli)."""
        return self.recording.recorder if self.recording is not None else None

    def sync_cli_copy(self, workspace: Path | None = None) -> None:
        """Rewrite the workspace copy of the call log from the harness's record (no unit process may run)."""
        if self.recording is None or self.was_adopted:
            return
        note = write_copy(workspace or self.workspace, self.recording.recorder.persisted())
        if note is not None:
            self.notes.append(note)

    def adopt(self, workspace: Path) -> Path:
        """Grade an existing workspace in place: derive PATH, create nothing."""
        request = self.python.prepare_adopted(
            workspace, self.request, task_file=self.task_file, templates=self._templates
        )
        self._raw = self.driver.adopt(workspace, request)
        env = self.environment = self._bounded(self._raw)
        self.was_adopted = True
        root = env.workspace
        venv_bin = root / ".venv" / "bin"
        # setup put node_modules/.bin on PATH for sandbox.node; a re-grade must see the same tools
        node_bin = root / "node_modules" / ".bin" if self.config.node and self.config.node.specifiers else None
        # a graded directory need not hold every mock directory (nor may one lead out of it)
        mocks = [root / rel for rel in self.config.mock_path_dirs]
        mocks = [d for d in mocks if d.is_dir() and d.resolve().is_relative_to(root.resolve())]
        dirs = [d for d in [*mocks, venv_bin, node_bin] if d is not None and d.is_dir()]
        # commands of a re-grade reach a recorder of their own (the unit's record is already kept)
        shims = self._start_recording(env, None)
        env.add_path_entries(([shims] if shims else []) + dirs)
        if self.config.python is not None:
            self.python.readopt(env)
        return root

    def _bounded(self, env: SandboxEnvironment) -> SandboxEnvironment:
        env.add_env({UNIT_TAG_VAR: self.tag})
        return env if self.deadline is None else BoundedEnvironment(env, self.deadline)

    def shared_env_changed(self) -> str | None:
        """Why the shared Python environment this unit was shown can no longer be trusted, if a unit changed it."""
        return self.python.changed(self._raw)

    def limit_breach(self) -> str | None:
        """Why the unit went over one of its limits (disk), if it did; its processes were killed then."""
        return limit_breach(self.environment) if self.environment is not None else None

    def network_phase(self, phase: str) -> None:
        """What the unit does now (pre_run, agent, grading, post_run), for its egress record."""
        if self.environment is not None:
            network_phase(self.environment, phase)

    def network_record(self) -> NetworkRecord | None:
        """The unit's network policy as it held and its egress attempts (None when the driver keeps none)."""
        return network_record(self.environment) if self.environment is not None else None

    def kill_processes(self) -> None:
        """End every process of the unit now, detached ones too (safe from any thread)."""
        if self.environment is not None:
            self.environment.kill_all()
        self._killed |= kill_tagged(self.tag)

    def _mock_dirs(self) -> list[Path]:
        dirs = []
        for rel in self.config.mock_path_dirs:
            path = (self.workspace / rel).resolve()
            if not path.is_relative_to(self.workspace.resolve()):
                raise TaskConfigError.single(
                    self.task_file,
                    f"mock_path_dirs entry {rel!r} leads out of the sandbox (to {path}) through a symlink",
                    "sandbox.mock_path_dirs",
                    "ship the directory itself, not a link to it",
                )
            if not path.is_dir():
                raise TaskConfigError.single(
                    self.task_file,
                    f"mock_path_dirs entry {rel!r} is not a directory in the sandbox",
                    "sandbox.mock_path_dirs",
                    "ship it with a template source",
                )
            for item in path.iterdir():
                if item.is_file():
                    item.chmod(item.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            dirs.append(path)
        return dirs

    def _refuse_collisions(self, mock_dirs: list[Path]) -> None:
        for spec in self.config.record_cli:
            for d in mock_dirs:
                if (d / spec.tool).exists():
                    raise TaskConfigError.single(
                        self.task_file,
                        f"record_cli tool {spec.tool!r} collides with {d / spec.tool}",
                        "sandbox.record_cli",
                        "remove one of them; PATH order must not decide which runs",
                    )

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """Environment for anything run in the sandbox: credentials removed, shims and envs on PATH."""
        return {**self.live.base_env(), **(extra or {})}

    def run(
        self, command: str, *, timeout: float, kill_leftovers: bool = True, extra_env: dict[str, str] | None = None
    ) -> ExecResult:
        cmd = Command(shell=command, env=dict(extra_env or {}), keep_background=not kill_leftovers)
        return self.live.exec(cmd, timeout=timeout)

    def finish(self) -> Path | None:
        """End the unit's processes, then preserve or drop the workspace according to the mode.

        An adopted workspace (re-grading) stays where it is: its environment has nothing to move.
        """
        if self.environment is None:
            return None
        self._killed |= kill_tagged(self.tag)
        if not self.was_adopted:  # what the unit installed itself, read before its workspace goes
            self.python.note_installed(self.environment.workspace)
        try:
            kept = self.kept = self.environment.finish()  # finishing an environment ends its processes first
        finally:
            problem = self.recording.close() if self.recording is not None else None
            if problem is not None:  # nothing of the unit runs any more: the log is final, or says why not
                self.notes.append(f"record_cli: {problem}; the record kept beside task.json may be incomplete")
        if kept is not None:
            self.sync_cli_copy(kept)  # the preserved copy says what the record says
        reap(self._killed)  # the unit's commands and agent have returned: no one else waits for these
        return kept
