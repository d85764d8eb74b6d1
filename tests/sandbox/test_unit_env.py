"""Each unit gets its own Python environment by default, and nothing it installs leaks (every driver).

A unit `pip install`s (and `uv pip install`s) a local wheel: it sees the package, the next unit of
the same task does not, and the site-packages of the harness's venv and of the host's interpreter
list the same files before and after. `python` and `pip` resolve inside the unit's environment.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from coder_eval.models.sandbox import SandboxConfig
from coder_eval.sandbox.drivers import PreservationMode
from coder_eval.sandbox.environments import base_interpreter, find_uv
from coder_eval.sandbox.sandbox import Sandbox
from coder_eval.sandbox.task_envs import remove_shared_envs


def _docker_ready() -> bool:
    from coder_eval.sandbox.docker import docker_available

    return docker_available()


def _bwrap_ready() -> bool:
    from coder_eval.sandbox.bwrap import bwrap_works

    return bwrap_works()


DRIVERS = [
    pytest.param("tempdir", id="tempdir"),
    pytest.param("bubblewrap", id="bubblewrap", marks=pytest.mark.skipif(not _bwrap_ready(), reason="no bwrap")),
    pytest.param(
        "docker", id="docker", marks=[pytest.mark.slow, pytest.mark.skipif(not _docker_ready(), reason="no docker")]
    ),
]


def wheel(directory: Path, module: str) -> Path:
    """A minimal pure-Python wheel of `module` (WHERE = the file it was imported from), built by hand."""
    dist = module.replace("_", "-")
    files = {
        f"{module}/__init__.py": b"import os\nWHERE = os.path.dirname(os.path.abspath(__file__))\n",
        f"{module}-0.1.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n".encode(),
        f"{module}-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{module}-0.1.dist-info/RECORD,,")
    path = directory / f"{module}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        zf.writestr(f"{module}-0.1.dist-info/RECORD", "\n".join(record) + "\n")
    return path


def listing(site: str) -> set[str]:
    """Every file of a site-packages directory, bytecode caches left out (an import may write those)."""
    found = set()
    for here, _dirs, files in os.walk(site):
        if "__pycache__" not in here:
            found.update(os.path.relpath(os.path.join(here, f), site) for f in files)
    return found


HARNESS_SITE = sysconfig.get_paths()["purelib"]
HOST_SITE = sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})["purelib"]


@pytest.fixture(autouse=True)
def _fresh_shared_envs() -> Iterator[None]:
    yield
    remove_shared_envs()


def make(tmp_path: Path, driver: str, **extra: Any) -> Sandbox:
    task_dir = tmp_path / "task"
    (task_dir / "tpl").mkdir(parents=True, exist_ok=True)
    for module in ("ce_unit_probe", "ce_unit_probe_uv"):
        if not (task_dir / "tpl" / f"{module}-0.1-py3-none-any.whl").exists():
            wheel(task_dir / "tpl", module)
    config = {"driver": driver, "template_sources": [{"type": "template_dir", "path": "tpl"}], **extra}
    return Sandbox(
        SandboxConfig.model_validate(config),
        task_dir=task_dir,
        task_file=task_dir / "task.yaml",
        artifacts_dir=tmp_path / "out" / os.urandom(4).hex(),
        mode=PreservationMode.NONE,
        scratch=tmp_path / "scratch",
    )


@pytest.mark.parametrize("driver", DRIVERS)
def test_python_and_pip_resolve_inside_the_units_own_environment(tmp_path: Path, driver: str) -> None:
    box = make(tmp_path, driver)
    try:
        box.setup()
        out = box.run(
            "python -c 'import sys; print(sys.prefix)'; command -v python; command -v pip; pip --version", timeout=120
        )
        assert out.exit_code == 0, out.stderr
        prefix, python, pip, version = out.stdout.strip().splitlines()
        venv = str(box.live.inner_workspace / ".venv")
        assert (prefix, python, pip) == (venv, f"{venv}/bin/python", f"{venv}/bin/pip")
        assert version.startswith("pip ")
        info = box.python.info
        assert (
            info["kind"] == "venv" and info["cloned"] is True and any(p.startswith("pip==") for p in info["packages"])
        )
        assert box.live.base_env()["VIRTUAL_ENV"] == venv
    finally:
        box.finish()


@pytest.mark.parametrize("driver", DRIVERS)
def test_what_a_unit_installs_stays_in_that_unit(tmp_path: Path, driver: str) -> None:
    harness, host = listing(HARNESS_SITE), listing(HOST_SITE)
    uv = {"UV": str(Path(find_uv()).resolve())}
    first = make(tmp_path, driver)
    try:
        first.setup()
        install = (
            "pip install --quiet --no-index --no-deps ./ce_unit_probe-0.1-py3-none-any.whl"
            ' && "$UV" pip install --quiet --no-index ./ce_unit_probe_uv-0.1-py3-none-any.whl'
            " && python -c 'import ce_unit_probe as a, ce_unit_probe_uv as b; print(a.WHERE); print(b.WHERE)'"
        )
        out = first.run(install, timeout=300, extra_env=uv)
        assert out.exit_code == 0, out.stdout + out.stderr
        own_site = str(first.live.inner_workspace / ".venv")
        assert all(line.startswith(own_site + "/lib/") for line in out.stdout.split()), out.stdout
    finally:
        first.finish()
    assert sorted(first.python.info["installed_by_unit"]) == ["ce_unit_probe==0.1", "ce_unit_probe_uv==0.1"]
    second = make(tmp_path, driver)
    try:
        second.setup()
        for module in ("ce_unit_probe", "ce_unit_probe_uv"):
            out = second.run(f"python -c 'import {module}'", timeout=60)
            assert out.exit_code != 0 and "ModuleNotFoundError" in out.stderr, (module, out.stdout, out.stderr)
    finally:
        second.finish()
    assert second.python.info["shared_environment"] == first.python.info["shared_environment"]
    assert listing(HARNESS_SITE) == harness, "a unit's install reached the harness's venv"
    assert listing(HOST_SITE) == host, "a unit's install reached the host's interpreter"


NODE = [
    pytest.param(None, id="no-sandbox-node"),
    pytest.param({"packages": ["./package"]}, id="sandbox-node-declared"),
]


@pytest.mark.parametrize("node", NODE)
@pytest.mark.parametrize("driver", DRIVERS[:2])
def test_npm_global_installs_stay_in_the_unit(tmp_path: Path, driver: str, node: dict[str, Any] | None) -> None:
    """`npm install -g` goes to the unit's own prefix in its HOME, whether or not the task declares sandbox.node
    (a declared package, here a directory of the template, is installed into the workspace as before)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    package = tmp_path / "task" / "tpl" / "package"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        '{"name": "ce-npm-probe", "version": "0.1.0", "bin": {"ce-npm-probe": "c.js"}}'
    )
    (package / "c.js").write_text("#!/usr/bin/env node\nconsole.log('probe');\n")
    global_root = subprocess.run(["npm", "root", "-g"], capture_output=True, text=True, timeout=60).stdout.strip()
    before = set(os.listdir(global_root)) if os.path.isdir(global_root) else set()
    first = make(tmp_path, driver, node=node)
    try:
        first.setup()
        if node is not None:  # the declared package, from the workspace's node_modules/.bin
            assert (
                first.run("command -v ce-npm-probe", timeout=60)
                .stdout.strip()
                .endswith("node_modules/.bin/ce-npm-probe")
            )
        prefix = first.run('printf %s "$npm_config_prefix"', timeout=60).stdout
        assert prefix == str(first.live.home_dir / ".npm-global"), prefix
        out = first.run(
            "npm install -g --offline --no-audit --no-fund ./package >/dev/null && hash -r && ce-npm-probe"
            ' && ls "$(npm root -g)"',
            timeout=300,
        )
        assert out.exit_code == 0 and out.stdout.split()[:2] == ["probe", "ce-npm-probe"], out.stdout + out.stderr
    finally:
        first.finish()
    second = make(tmp_path, driver)
    try:
        second.setup()
        assert second.run("command -v ce-npm-probe", timeout=60).exit_code != 0
    finally:
        second.finish()
    assert (set(os.listdir(global_root)) if os.path.isdir(global_root) else set()) == before


def test_user_installs_with_the_host_interpreter_stay_in_the_units_home(tmp_path: Path) -> None:
    """`python: null` runs the host's interpreter; its `pip install --user` lands in the unit's own HOME."""
    base = base_interpreter()
    if subprocess.run([base, "-m", "pip", "--version"], capture_output=True, timeout=60).returncode != 0:
        pytest.skip("the host's interpreter has no pip")
    host = listing(HOST_SITE)
    run = f'"{base}" -m pip install --quiet --user --no-index --no-deps --break-system-packages '
    first = make(tmp_path, "tempdir", python=None)
    try:
        first.setup()
        out = first.run(run + "./ce_unit_probe-0.1-py3-none-any.whl", timeout=300)
        assert out.exit_code == 0, out.stderr
        seen = first.run(f"\"{base}\" -c 'import ce_unit_probe; print(ce_unit_probe.WHERE)'", timeout=60)
        assert seen.stdout.startswith(str(first.live.home_dir)), seen.stdout + seen.stderr
    finally:
        first.finish()
    second = make(tmp_path, "tempdir", python=None)
    try:
        second.setup()
        assert second.run(f"\"{base}\" -c 'import ce_unit_probe'", timeout=60).exit_code != 0
    finally:
        second.finish()
    assert listing(HOST_SITE) == host


def test_python_null_is_the_hosts_interpreter(tmp_path: Path) -> None:
    box = make(tmp_path, "tempdir", python=None)
    try:
        box.setup()
        out = box.run(f"\"{base_interpreter()}\" -c 'import sys; print(sys.prefix)'", timeout=60)
        assert out.stdout.strip() == sys.base_prefix
        assert not (box.workspace / ".venv").exists() and "VIRTUAL_ENV" not in box.live.base_env()
        assert box.python.info == {"kind": "host", "interpreter": "python on the unit's PATH (the host's)"}
    finally:
        box.finish()


def test_the_harness_venv_is_never_on_a_units_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.prefix == sys.base_prefix:
        pytest.skip("the harness does not run in a virtual environment")
    harness_bin = str(Path(sys.prefix) / "bin")
    monkeypatch.setenv("PATH", os.pathsep.join([harness_bin, os.environ.get("PATH", "")]))
    for python in (None, {}):
        box = make(tmp_path, "tempdir", python=python)
        try:
            box.setup()
            entries = box.live.base_env()["PATH"].split(os.pathsep)
            assert harness_bin not in entries and str(Path(sys.prefix).resolve() / "bin") not in entries
        finally:
            box.finish()


def test_a_changed_shared_environment_is_detected_under_tempdir(tmp_path: Path) -> None:
    first = make(tmp_path, "tempdir")
    try:
        first.setup()
        shared = first.python.shared
        assert shared is not None and first.shared_env_changed() is None
        used = first.run("pip --version && python -c 'import pip._internal.cli.main'", timeout=120)
        assert used.exit_code == 0, used.stderr
        if sys.platform.startswith("linux"):  # using the environment is no event for its watch
            assert shared.watch is not None and not shared.watch.take()
        target = shared.template.shared_paths[0] + "/pip/__init__.py"
        out = first.run(f"chmod u+w '{target}' && echo '# changed' >> '{target}'", timeout=60)
        assert out.exit_code == 0, out.stderr
        why = first.shared_env_changed()
        assert why is not None and "pip/__init__.py" in why
    finally:
        first.finish()
    second = make(tmp_path, "tempdir")
    try:
        second.setup()
        assert second.python.shared is not None and second.python.shared.root != shared.root
        assert second.shared_env_changed() is None
    finally:
        second.finish()


@pytest.mark.parametrize("driver", DRIVERS[1:])
def test_the_shared_environment_is_read_only_inside_isolating_drivers(tmp_path: Path, driver: str) -> None:
    box = make(tmp_path, driver)
    try:
        box.setup()
        assert box.python.shared is not None
        target = box.python.shared.template.shared_paths[0] + "/pip/__init__.py"
        out = box.run(f"chmod u+w '{target}'; echo '# changed' >> '{target}' && echo WRITTEN", timeout=60)
        assert "WRITTEN" not in out.stdout
        assert box.shared_env_changed() is None and box.python.shared.changed() is None
    finally:
        box.finish()


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_python_version_names_an_interpreter_that_outlives_the_build(tmp_path: Path, driver: str) -> None:
    """uv may find the version through a link of the build's own set-up environment, which is gone later."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for _ in range(2):  # the second unit clones what the first built
        box = make(tmp_path, driver, python={"version": version})
        try:
            box.setup()
            out = box.run("python -c 'import sys; print(sys.version_info[:2])' && pip --version", timeout=120)
            assert out.exit_code == 0, out.stderr
            assert out.stdout.startswith(str(sys.version_info[:2]))
        finally:
            box.finish()
        shared = box.python.shared
        assert shared is not None and "/unit-" not in shared.interpreter  # not the build's fallback link


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_preserved_workspace_graded_again_sees_its_packages(tmp_path: Path, driver: str) -> None:
    """The run's shared environments are gone when it ends; `adopt` (re-grading, under the task's own
    driver) points the clone at a fresh one, which the adopting environment shows read-only."""
    packages = {"env_packages": ["./ce_unit_probe-0.1-py3-none-any.whl"]}
    box = make(tmp_path, driver, python=packages)
    box.request = replace(box.request, mode=PreservationMode.MOVE_ON_WRITE)
    box.setup()
    assert box.run("python -c 'import ce_unit_probe'", timeout=60).exit_code == 0
    kept = box.finish()
    assert kept is not None
    remove_shared_envs()
    again = make(tmp_path, driver, python=packages)
    try:
        again.adopt(kept)
        out = again.run("python -c 'import sys, ce_unit_probe; print(sys.prefix)'", timeout=60)
        assert out.exit_code == 0, out.stderr
        assert out.stdout.strip() == str(again.live.inner_workspace / ".venv") and again.python.info["relinked"]
    finally:
        again.finish()


def test_a_failed_build_is_one_clear_error_for_every_unit_of_the_task(tmp_path: Path) -> None:
    """A requirement that cannot be installed fails the first unit's set-up, names the opt-out, and the
    task's later units get the same answer without building again."""
    from coder_eval.sandbox.templates import SetupError

    broken = {"env_packages": ["./no-such-0.1-py3-none-any.whl"]}
    messages = []
    for _ in range(2):
        box = make(tmp_path, "tempdir", python=broken)
        with pytest.raises(SetupError) as caught:
            box.setup()
        box.finish()
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert "the task's Python environment could not be built" in messages[0] and "no-such" in messages[0]
    assert "sandbox.python: null" in messages[0]


def test_what_a_unit_installed_is_listed_within_bounds(tmp_path: Path) -> None:
    """The unit names the dist-info directories itself: the record lists at most MAX_INSTALLED_NAMES, cut short."""
    from coder_eval.sandbox.unit_python import MAX_INSTALLED_NAMES, MAX_NAME_CHARS

    box = make(tmp_path, "tempdir")
    try:
        box.setup()
        script = "import os, sysconfig; s = sysconfig.get_paths()['purelib']\n"
        script += f"[os.mkdir(os.path.join(s, f'p{{i}}-1.0.dist-info')) for i in range({MAX_INSTALLED_NAMES + 5})]\n"
        script += "os.mkdir(os.path.join(s, 'x' * 200 + '-1.0.dist-info'))\n"
        out = box.run(f'python -c "{script}"', timeout=60)
        assert out.exit_code == 0, out.stderr
    finally:
        box.finish()
    listed = box.python.info["installed_by_unit"]
    assert len(listed) == MAX_INSTALLED_NAMES and box.python.info["installed_by_unit_not_listed"] == 6
    assert all(len(name) <= MAX_NAME_CHARS + 1 for name in listed)


def test_a_worker_builds_the_task_environment_once_though_each_units_run_directory_goes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ray worker runs every unit in a run directory of its own and removes it afterwards; the
    shared environment must not live there, or each unit builds it again (1.8 s a unit here)."""
    from coder_eval.sandbox import task_envs

    builds: list[str] = []
    real = task_envs._build

    def counted(*args: Any) -> Any:
        builds.append(args[0])
        return real(*args)

    monkeypatch.setattr(task_envs, "_build", counted)

    def one_unit(name: str) -> None:
        box = make(tmp_path / name, "tempdir")
        try:
            box.setup()
            assert box.python.info["cloned"] is True
        finally:
            box.finish()
        shutil.rmtree(tmp_path / name)  # the unit's run directory, scratch and all, goes with it

    one_unit("a")
    one_unit("b")
    assert len(builds) == 2  # in a run's scratch: gone with the first unit
    remove_shared_envs()
    builds.clear()
    task_envs.keep_across_runs()
    try:
        one_unit("c")
        one_unit("d")
    finally:
        task_envs.keep_across_runs(False)
    assert len(builds) == 1
