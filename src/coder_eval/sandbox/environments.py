"""Per-sandbox Python (uv) and Node (npm) environments, created through the sandbox's environment."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
from pathlib import Path, PurePosixPath

from coder_eval.common.host_tools import find_host_tool
from coder_eval.models.sandbox import NodeEnv, PythonEnv
from coder_eval.sandbox.environment import Command, SandboxEnvironment
from coder_eval.sandbox.templates import SetupError

VENV_DIR = ".venv"


def base_interpreter() -> str:
    """The harness's Python itself, never its virtual environment's: units may run the one, not see the other."""
    return os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)


def find_uv() -> str:
    """The uv binary: beside the harness's interpreter, where the `uv` package the harness depends on
    installed it (a harness run from another venv that sees this one's packages), or on the host."""
    beside = Path(sys.executable).with_name("uv")
    if beside.is_file():
        return str(beside)
    with contextlib.suppress(ImportError, OSError):
        from uv import find_uv_bin

        return str(find_uv_bin())
    found = find_host_tool("uv")
    if found is None:
        raise SetupError("uv is needed for sandbox.python environments but is not installed (pip install uv)")
    return found


def link_uv(bin_dir: Path) -> None:
    """`bin_dir/uv`, a link to the harness's uv (which the isolating drivers show read-only at its own
    path): units have uv on PATH although the harness's virtual environment never is."""
    with contextlib.suppress(SetupError, OSError):
        (bin_dir / "uv").symlink_to(os.path.realpath(find_uv()))


def uv_cache_dir() -> Path:
    """The harness's uv cache: set-up installs share it (sandboxes have private HOMEs)."""
    if os.environ.get("UV_CACHE_DIR"):
        return Path(os.environ["UV_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(base) / "uv"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _run(
    env: SandboxEnvironment,
    argv: list[str],
    *,
    timeout: float,
    what: str,
    extra: dict[str, str],
    cache: Path | None = None,
) -> None:
    try:
        out = env.exec(Command(argv=argv, env=extra, cache_dirs=(cache,) if cache else ()), timeout=timeout)
    except FileNotFoundError as exc:
        raise SetupError(f"{what} failed: {exc}") from None
    if out.timed_out:
        raise SetupError(f"{what} timed out after {timeout:g}s")
    if out.exit_code != 0:
        raise SetupError(f"{what} failed: {(out.stderr or out.stdout).strip()[-800:]}")


def uv_env(cache: Path, **extra: str) -> dict[str, str]:
    """What every uv set-up command gets: quiet, the harness's cache, and copy mode.

    Copy mode: a file hard-linked from the harness's cache would let the unit edit the cache itself.
    """
    return {"UV_NO_PROGRESS": "1", "UV_CACHE_DIR": str(cache), "UV_LINK_MODE": "copy", **extra}


def create_python_env(
    spec: PythonEnv,
    env: SandboxEnvironment,
    *,
    timeout: float,
    relocatable: bool = False,
    also: tuple[str, ...] = (),
    extra_env: dict[str, str] | None = None,
) -> Path:
    """`uv venv` in <workspace>/.venv and `uv pip install` the packages; returns the venv's bin dir (host path).

    `relocatable` makes scripts that work from any path (and compiles the packages' bytecode, for
    an environment that will be read-only); `also` names further requirements (a pip wheel).
    """
    uv = find_uv()
    python = spec.version or env.python
    cache: Path | None = None
    if not spec.env_packages and not spec.version and all(os.path.isabs(a) for a in also):
        # only local files (pip's wheel): nothing to download, so the operator's cache is left alone
        quiet = {"UV_NO_PROGRESS": "1", "UV_LINK_MODE": "copy", "UV_NO_CACHE": "1", **(extra_env or {})}
    else:
        cache = uv_cache_dir()
        quiet = uv_env(cache, **(extra_env or {}))
    flags = ["--relocatable"] if relocatable else []
    _run(
        env,
        [uv, "venv", "--quiet", *flags, "--python", python, VENV_DIR],
        timeout=timeout,
        what="uv venv",
        extra=quiet,
        cache=cache,
    )
    bin_name = "Scripts" if os.name == "nt" else "bin"
    inner_python = str(env.inner_workspace / VENV_DIR / bin_name / "python")
    packages = [*also, *spec.env_packages]
    if packages:
        compiled = ["--compile-bytecode"] if relocatable else []
        _run(
            env,
            [uv, "pip", "install", "--quiet", *compiled, "--python", inner_python, *packages],
            timeout=timeout,
            what=f"installing {', '.join(spec.env_packages) or 'pip'}",
            extra=quiet,
            cache=cache,
        )
    return env.host_path(PurePosixPath(VENV_DIR) / bin_name)


FIND_PYTHON = (
    'found=$("$CE_UV" python find "$CE_VERSION") && '
    "\"$found\" -c 'import os, sys; print(os.path.realpath(sys.executable))'"
)


def installed_interpreter(
    version: str, env: SandboxEnvironment, *, timeout: float, extra: dict[str, str]
) -> str | None:
    """The real path inside `env` of an installed interpreter uv finds for `version` (None: none is installed).

    uv may find one through a link that lives only as long as the set-up environment (a sandbox's
    fallback `python3`); an environment that outlives it must name the interpreter itself."""
    command = Command(shell=FIND_PYTHON, env={**extra, "CE_UV": find_uv(), "CE_VERSION": version})
    out = env.exec(command, timeout=timeout)
    found = out.stdout.strip().splitlines()[-1:] if out.exit_code == 0 else []
    return found[0] if found and found[0].startswith("/") else None


def pip_wheel() -> Path | None:
    """The newest pip wheel that comes with the harness's interpreter (ensurepip's, or the system's)."""
    places = [Path("/usr/share/python-wheels")]
    with contextlib.suppress(ImportError):
        import ensurepip

        places.insert(0, Path(ensurepip.__file__).parent / "_bundled")
    found = [w for place in places if place.is_dir() for w in place.glob("pip-*-none-any.whl")]
    return max(found, key=lambda w: tuple(int(n) for n in re.findall(r"\d+", w.name.split("-")[1])), default=None)


def stage_pip(spec: PythonEnv, into: Path) -> tuple[str, ...]:
    """The requirement that gives an environment pip: the local wheel, copied into `into` (a directory
    the set-up command sees at the same path), so no index is asked; pip by name when there is none."""
    if any(re.match(r"pip(?![-_.\w])", p.strip(), re.IGNORECASE) for p in spec.env_packages):
        return ()  # the task names its own pip
    wheel = pip_wheel()
    if wheel is None:
        return ("pip",)
    shutil.copyfile(wheel, into / wheel.name)
    return (str(into / wheel.name),)


NPM_PREFIX = ".npm-global"


def npm_prefix(env: SandboxEnvironment) -> Path:
    """npm's global prefix for the unit, in its own HOME, so `npm install -g` stays in the unit; returns its bin."""
    prefix = env.home_dir / NPM_PREFIX
    env.add_env({"npm_config_prefix": str(prefix)})
    return prefix / "bin"


def install_node_packages(spec: NodeEnv, env: SandboxEnvironment, *, timeout: float) -> Path | None:
    """npm install the packages into the sandbox; returns node_modules/.bin (host path)."""
    packages = spec.specifiers
    if not packages:
        return None
    npm = find_host_tool("npm")
    if npm is None:
        raise SetupError("npm is needed for sandbox.node packages but is not installed")
    argv = [npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(env.inner_workspace), *packages]
    _run(env, argv, timeout=timeout, what=f"npm install {' '.join(packages)}", extra={})
    return env.host_path(PurePosixPath("node_modules/.bin"))
