"""Sandbox: create the workspace, fill it, run commands in it, then preserve or drop it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coder_eval.common.ignore import IgnoreRules
from coder_eval.common.process import ShellResult, run_shell
from coder_eval.common.secrets import scrub_env
from coder_eval.errors import TaskConfigError
from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode, get_driver
from coder_eval.sandbox.environments import create_python_env, install_node_packages
from coder_eval.sandbox.record_cli import write_shims
from coder_eval.sandbox.templates import apply_sources


class Sandbox:
    """One task replicate's workspace. `setup` materialises it; `adopt` reuses an existing one."""

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
    ) -> None:
        self.config = config
        self.task_dir = task_dir
        self.task_file = task_file
        self.artifacts_dir = artifacts_dir
        self.driver = get_driver(config.driver)
        self.mode = mode or self.driver.default_preservation
        self.ignore = IgnoreRules.with_overrides(config.ignore_patterns)
        self.base_env = scrub_env(dict(os.environ if base_env is None else base_env))
        self.scratch = scratch
        self.root: Path | None = None
        self.bin_dirs: list[Path] = []
        self.was_adopted = False

    @property
    def workspace(self) -> Path:
        if self.root is None:
            raise RuntimeError("sandbox is not set up")
        return self.root

    def setup(self) -> Path:
        """Create the workspace and apply templates, environments, recorders and mock dirs."""
        self.root = self.driver.create(self.artifacts_dir, self.mode, self.scratch).resolve()
        apply_sources(
            self.config.template_sources,
            self.root,
            task_dir=self.task_dir,
            task_file=self.task_file,
            ignore=self.ignore,
        )
        timeout = self.config.limits.timeout
        if self.config.python is not None:
            self.bin_dirs.append(create_python_env(self.config.python, self.root, timeout=timeout, env=self.base_env))
        if self.config.node is not None:
            node_bin = install_node_packages(self.config.node, self.root, timeout=timeout, env=self.base_env)
            if node_bin is not None:
                self.bin_dirs.append(node_bin)
        mock_dirs = self._mock_dirs()
        shims = write_shims(self.config.record_cli, self.root)
        self._refuse_collisions(mock_dirs)
        self.bin_dirs = ([shims] if shims else []) + mock_dirs + self.bin_dirs
        return self.root

    def adopt(self, workspace: Path) -> Path:
        """Grade an existing workspace in place: derive PATH, create nothing."""
        self.root = workspace.resolve()
        self.was_adopted = True
        shims = self.root / "cli_mocks"
        venv_bin = self.root / ".venv" / "bin"
        # setup put node_modules/.bin on PATH for sandbox.node; a re-grade must see the same tools
        node_bin = self.root / "node_modules" / ".bin" if self.config.node and self.config.node.packages else None
        self.bin_dirs = [d for d in [shims, *self._mock_dirs(), venv_bin, node_bin] if d is not None and d.is_dir()]
        return self.root

    def _mock_dirs(self) -> list[Path]:
        dirs = []
        for rel in self.config.mock_path_dirs:
            path = (self.workspace / rel).resolve()
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
        env = dict(self.base_env)
        if self.bin_dirs:
            env["PATH"] = os.pathsep.join([*map(str, self.bin_dirs), env.get("PATH", "")])
        venv = self.workspace / ".venv"
        if self.config.python is not None and venv.is_dir():
            env["VIRTUAL_ENV"] = str(venv)
        env.update(extra or {})
        return env

    def run(
        self, command: str, *, timeout: float, kill_leftovers: bool = True, extra_env: dict[str, str] | None = None
    ) -> ShellResult:
        return run_shell(
            command, cwd=self.workspace, env=self.env(extra_env), timeout=timeout, kill_leftovers=kill_leftovers
        )

    def finish(self) -> Path | None:
        """Preserve or drop the workspace according to the preservation mode."""
        if self.root is None or self.was_adopted:
            return self.root
        kept = self.driver.finish(self.root, self.artifacts_dir, self.mode)
        self.root = kept
        return kept
