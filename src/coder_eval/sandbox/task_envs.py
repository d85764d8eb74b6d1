"""Shared Python environments: one per task (or per identical `sandbox.python`), built once per process.

The first unit that needs one builds it through a set-up environment of the unit's own driver, so
it has the interpreter that driver's units run (the host's under tempdir and bubblewrap, the
image's under docker): `uv venv --relocatable` and `uv pip install` of pip (the wheel that comes
with the harness's interpreter, so no index is needed) and the task's `env_packages`, from the
operator's uv cache in copy mode, bytecode compiled. The build happens in place, in a private
directory of the harness, so every path in it is final; then every file is made read-only and
the environment is shown to units read-only at that same path (a read-only mount under
bubblewrap and docker). Each unit gets its own small venv cloned from it (`venv_clone.py`).

Under tempdir a unit runs as the harness's user and could make the files writable again, so the
state of every entry (inode, size, mode, modification and change times) is kept when the build
ends, and `changed()` compares after each such unit: a changed environment ends that unit ERROR
and is dropped, and the next unit builds a fresh one. An inotify watch over the tree
(`common/tree_watch.py`) lets that check skip the walk of a thousand entries when nothing was
written, which is every honest unit.

Which units share one environment: those whose driver (as resolved), `sandbox.python`, docker
image settings and uv are the same; when the packages name local files (a wheel shipped in a
template), also the task file and its template sources, which are then copied into the build.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from coder_eval.common.tree_watch import TreeWatch
from coder_eval.models.sandbox import PythonEnv
from coder_eval.sandbox.drivers import Driver, PreservationMode, SandboxRequest
from coder_eval.sandbox.environments import VENV_DIR, create_python_env, find_uv, installed_interpreter, stage_pip
from coder_eval.sandbox.templates import SetupError
from coder_eval.sandbox.venv_clone import VenvTemplate, read_template

PYTHON_DIR = ".python"
"""Where uv puts an interpreter it downloads for `version`, inside the shared environment."""
KEEP = frozenset({VENV_DIR, PYTHON_DIR})
Signature = list[tuple[str, int, int, int, int, int]]
Prepare = Callable[[Path], None]
"""Fills a build directory before the install (copies the task's templates into it)."""


@dataclass
class SharedPythonEnv:
    """A built, read-only environment and what its clones are made of."""

    key: str
    root: Path
    """The directory units are shown read-only (it holds the venv and any downloaded interpreter)."""
    template: VenvTemplate
    interpreter: str
    version: str
    packages: tuple[str, ...]
    build_seconds: float
    signature: Signature = field(repr=False)
    watch: TreeWatch | None = field(default=None, repr=False)
    tainted: str | None = None
    """What a unit changed, once a change was found (the environment is then never shown again)."""

    @property
    def venv(self) -> Path:
        return self.root / VENV_DIR

    def info(self) -> dict[str, Any]:
        """What a unit's record says about the environment it was cloned from."""
        return {
            "interpreter": self.interpreter,
            "python_version": self.version,
            "packages": list(self.packages),
            "shared_environment": self.key,
        }

    def changed(self) -> str | None:
        """What changed in the environment since it was built (None when nothing did).

        The inotify watch answers "nothing" in microseconds; only when it saw an event (or where
        there is none) is every entry compared. A change found once is kept: every later unit
        that was shown this environment is told too."""
        if self.tainted is None and self.watch is not None and not self.watch.take():
            return None
        if self.tainted is None:
            self.tainted = self._compare()
            if self.tainted is not None:
                _drop(self)
        return self.tainted

    def _compare(self) -> str | None:
        try:
            found = _signature(self.root)
        except OSError as exc:
            return f"it can no longer be read ({exc})"
        if found == self.signature:
            return None
        differ = {entry[0] for entry in set(found) ^ set(self.signature)}
        names = sorted(os.path.relpath(k, self.root) for k in differ)
        return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


_lock = threading.Lock()
_store: Path | None = None
_built: dict[str, SharedPythonEnv] = {}
_failed: dict[str, SetupError] = {}
_building: dict[str, threading.Lock] = {}
_cleans_at_exit = False
_outlives_runs = False


def keep_across_runs(keep: bool = True) -> None:
    """Keep this process's shared environments in the temporary directory, not in a run's scratch.

    For a process that serves many short runs (a Ray worker runs each unit in a run directory of its
    own, removed when the unit ends): in the unit's scratch, the environment would go with the unit
    and every unit would build it again. The store is removed when the process exits."""
    global _outlives_runs
    with _lock:
        _outlives_runs = keep


def shared_python_env(
    spec: PythonEnv,
    driver: Driver,
    request: SandboxRequest,
    *,
    task_file: Path,
    prepare: Prepare,
    timeout: float,
) -> SharedPythonEnv:
    """The shared environment for `spec` under `driver`, built by the first unit that asks."""
    local = names_local_files(spec.env_packages)
    key = _key(spec, driver, request, task_file if local else None)
    with _lock:
        ready = _usable(_built.get(key))
        gate = _building.setdefault(key, threading.Lock())
    if ready is not None:
        return ready
    with gate:  # one build per key; the other units of the task wait for it
        with _lock:
            ready, failure = _usable(_built.get(key)), _failed.get(key)
        if ready is not None:
            return ready
        if failure is not None:
            raise failure
        try:
            built = _build(key, spec, driver, request, prepare if local else None, timeout)
        except SetupError as exc:  # every later unit gets the same answer at once (a subclass keeps its kind)
            failed = SetupError(
                f"the task's Python environment could not be built: {exc} (every unit gets one unless "
                "the task sets sandbox.python: null)"
            )
            with _lock:
                _failed[key] = exc if type(exc) is not SetupError else failed
            raise _failed[key] from None
        with _lock:
            _built[key] = built
        return built


def _usable(env: SharedPythonEnv | None) -> SharedPythonEnv | None:
    """`env` unless its directory is gone (a re-grade's scratch directory removed with it); called under the lock."""
    if env is None or env.root.is_dir():
        return env
    del _built[env.key]
    if env.watch is not None:
        env.watch.close()
    return None


def names_local_files(packages: list[str]) -> bool:
    """Whether requirements name files (a wheel, a directory, a requirements file) rather than packages."""
    for entry in packages:
        text = entry.strip()
        if text.startswith((".", "/", "~", "-r", "-c", "--requirement", "--constraint", "file:")):
            return True
        if "://" not in text and ("/" in text or text.endswith((".whl", ".tar.gz", ".zip"))):
            return True
    return False


def editable(packages: list[str]) -> bool:
    """Whether requirements ask for an editable install (it must point into each unit's own workspace)."""
    return any(p.strip().startswith(("-e", "--editable")) for p in packages)


def _key(spec: PythonEnv, driver: Driver, request: SandboxRequest, task_file: Path | None) -> str:
    config = request.config
    material: dict[str, Any] = {
        "driver": concrete_driver_name(driver),
        "python": spec.model_dump(mode="json"),
        "uv": find_uv(),
    }
    if material["driver"] == "docker" and config.docker is not None:
        material["docker"] = config.docker.model_dump(mode="json")
        material["task_dir"] = str(request.task_dir)
    if task_file is not None:
        material["task_file"] = str(task_file.resolve())
        material["templates"] = [s.model_dump(mode="json") for s in config.template_sources]
    digest = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()
    return digest[:16]


def concrete_driver_name(driver: Driver) -> str:
    """The driver that really runs units: `auto` stands for another one."""
    resolved = getattr(driver, "resolved", None)
    return concrete_driver_name(resolved()) if callable(resolved) else driver.name


def _build(
    key: str, spec: PythonEnv, driver: Driver, request: SandboxRequest, prepare: Prepare | None, timeout: float
) -> SharedPythonEnv:
    import time

    clock = time.monotonic()
    root = _fresh_root(key, request.scratch)
    builder = replace(
        request,
        mode=PreservationMode.DIRECT_WRITE,
        artifacts_dir=root,
        scratch=_store_dir(request.scratch) / "scratch",
        runs_agent=False,
        shared=(),
        # a rehearsal's replayed image adds nothing a Python environment is built from (the host's Python)
        config=request.config.model_copy(update={"rehearsal": None}),
    )
    create = getattr(driver, "resolved", lambda: driver)()
    env = create.create(builder)
    try:
        if prepare is not None:
            prepare(env.workspace)
        also = stage_pip(spec, env.workspace)
        extra = {"UV_PYTHON_INSTALL_DIR": str(env.inner_workspace / PYTHON_DIR)}
        if spec.version:  # an installed one by its own path; else uv downloads one into the environment
            found = installed_interpreter(spec.version, env, timeout=timeout, extra=extra)
            spec = spec.model_copy(update={"version": found or spec.version})
        create_python_env(spec, env, timeout=timeout, relocatable=True, also=also, extra_env=extra)
    finally:
        env.finish()
    for item in root.iterdir():
        if item.name not in KEEP:
            shutil.rmtree(item) if item.is_dir() and not item.is_symlink() else item.unlink()
    return _seal(key, root, time.monotonic() - clock)


def _seal(key: str, root: Path, seconds: float) -> SharedPythonEnv:
    venv = root / VENV_DIR
    try:
        template = read_template(venv)
    except (OSError, ValueError) as exc:
        raise SetupError(f"uv made no usable virtual environment: {exc}") from None
    interpreter = os.readlink(venv / "bin" / "python") if (venv / "bin" / "python").is_symlink() else ""
    version = _cfg_value(venv / "pyvenv.cfg", ("version_info", "version"))
    packages = _distributions(venv / template.site)
    _read_only(root)
    signature = _signature(root)
    watch = TreeWatch.start(root)
    return SharedPythonEnv(key, root, template, interpreter, version, packages, seconds, signature, watch)


def _cfg_value(cfg: Path, names: tuple[str, ...]) -> str:
    values = {}
    for line in cfg.read_text(encoding="utf-8", errors="replace").splitlines():
        name, sep, value = line.partition("=")
        if sep:
            values[name.strip()] = value.strip()
    return next((values[n] for n in names if n in values), "")


def _distributions(site: Path) -> tuple[str, ...]:
    """`name==version` of every distribution installed in `site`."""
    found = []
    for info in site.glob("*.dist-info"):
        name, _, version = info.name[: -len(".dist-info")].partition("-")
        found.append(f"{name.replace('_', '-').lower()}=={version}")
    return tuple(sorted(found))


def _read_only(root: Path) -> None:
    for here, dirs, files in os.walk(root, topdown=False):
        for name in files:
            path = os.path.join(here, name)
            if not os.path.islink(path):
                mode = os.lstat(path).st_mode
                os.chmod(path, 0o555 if mode & stat.S_IXUSR else 0o444)
        for name in dirs:
            path = os.path.join(here, name)
            if not os.path.islink(path):
                os.chmod(path, 0o555)
    os.chmod(root, 0o555)


def _signature(root: Path) -> Signature:
    """(path, inode, size, mode, modification and change time) of every entry, in directory order.

    A flat list compared as a whole: this runs after every tempdir unit, over a thousand entries."""
    out: Signature = []
    stack = [str(root)]
    while stack:
        here = stack.pop()
        info = os.lstat(here)
        out.append((here, info.st_ino, info.st_size, info.st_mode, info.st_mtime_ns, info.st_ctime_ns))
        with os.scandir(here) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    continue
                info = entry.stat(follow_symlinks=False)
                out.append((entry.path, info.st_ino, info.st_size, info.st_mode, info.st_mtime_ns, info.st_ctime_ns))
    return out


def _store_dir(near: Path | None = None) -> Path:
    """Where this process keeps its shared environments: in the run's scratch directory when there is
    one (removed with it when the run ends), else in the temporary directory."""
    global _store, _cleans_at_exit
    with _lock:
        if _outlives_runs:
            near = None
        if _store is None or not _store.is_dir():
            if not _cleans_at_exit:  # a process that never reaches a run's own clean-up (a Ray worker) still cleans
                _cleans_at_exit = True
                atexit.register(remove_shared_envs)
            if near is not None:
                near.mkdir(parents=True, exist_ok=True)
                near = near.resolve()  # absolute: sandboxes mount it, from whatever directory they start in
            _store = Path(tempfile.mkdtemp(prefix="coder-eval-envs-", dir=near))
        return _store


def _fresh_root(key: str, near: Path | None) -> Path:
    store = _store_dir(near)
    for n in range(1, 1000):
        root = store / (key if n == 1 else f"{key}-{n}")
        if not root.exists():
            return root
    raise SetupError(f"too many rebuilt environments in {store}")


def _drop(env: SharedPythonEnv) -> None:
    """Forget a changed environment (units still running keep reading it); the next unit builds anew."""
    with _lock:
        if _built.get(env.key) is env:
            del _built[env.key]
    if env.watch is not None:
        env.watch.close()


def remove_shared_envs() -> None:
    """Delete every shared environment of this process (their files are read-only: made writable first)."""
    global _store
    with _lock:
        store, _store = _store, None
        for env in _built.values():
            if env.watch is not None:
                env.watch.close()
        _built.clear()
        _failed.clear()
        _building.clear()
    if store is None or not store.exists():
        return
    for here, dirs, _files in os.walk(store):
        for name in dirs:
            with contextlib.suppress(OSError):
                path = os.path.join(here, name)
                if not os.path.islink(path):
                    os.chmod(path, 0o755)
    with contextlib.suppress(OSError):
        os.chmod(store, 0o700)
    shutil.rmtree(store, ignore_errors=True)
