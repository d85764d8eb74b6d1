"""A unit's venv clone: its own small files, the shared environment only named, never copied or linked."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from coder_eval.sandbox.environments import base_interpreter, find_uv
from coder_eval.sandbox.venv_clone import TASK_ENV_PTH, clone_site, clone_venv, read_template, relink

SCRIPT = b"#!/bin/sh\n'''exec' \"$(dirname -- \"$(realpath -- \"$0\")\")\"/'python' \"$0\" \"$@\"\n' '''\nprint(1)\n"


def fake_venv(root: Path) -> Path:
    venv = root / "shared" / ".venv"
    site = venv / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (venv / "bin").mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.2\nrelocatable = true\n")
    (venv / ".lock").write_text("")
    (venv / "lib64").symlink_to("lib")
    (venv / "bin" / "python").symlink_to("/usr/bin/python3")
    (venv / "bin" / "python3").symlink_to("python")
    (venv / "bin" / "pytest").write_bytes(SCRIPT)
    (venv / "bin" / "pytest").chmod(0o755)
    (venv / "bin" / "activate").write_text("# activate\n")
    (venv / "bin" / "tool").write_bytes(b"\x7fELF\0\0binary")
    (venv / "bin" / "tool").chmod(0o755)
    (site / "shared_mod.py").write_text("X = 1\n")
    return venv


def test_a_clone_has_its_own_small_files_and_names_the_shared_site(tmp_path: Path) -> None:
    venv = fake_venv(tmp_path)
    template = read_template(venv, extra_paths=("/opt/extra.zip",), extra_scripts=(("pip", SCRIPT), ("pytest", b"")))
    dest = tmp_path / "ws" / ".venv"
    dest.parent.mkdir()
    assert clone_venv(template, dest) == dest / "bin"
    assert (dest / "pyvenv.cfg").read_bytes() == (venv / "pyvenv.cfg").read_bytes()
    assert not (dest / ".lock").exists() and os.readlink(dest / "lib64") == "lib"
    assert (
        os.readlink(dest / "bin" / "python") == "/usr/bin/python3" and os.readlink(dest / "bin" / "python3") == "python"
    )
    assert (dest / "bin" / "pytest").read_bytes() == SCRIPT  # the venv's own script wins over an extra one
    assert (dest / "bin" / "pip").read_bytes() == SCRIPT and os.access(dest / "bin" / "pip", os.X_OK)
    assert os.readlink(dest / "bin" / "tool") == str(venv / "bin" / "tool")  # a compiled tool is linked, not copied
    site = dest / "lib" / "python3.11" / "site-packages"
    assert sorted(os.listdir(site)) == [TASK_ENV_PTH]
    shared_site = venv / "lib" / "python3.11" / "site-packages"
    assert (site / TASK_ENV_PTH).read_text() == f"import site; site.addsitedir({str(shared_site)!r})\n/opt/extra.zip\n"
    shared_inodes = {p.stat().st_ino for p in venv.rglob("*") if p.is_file() and not p.is_symlink()}
    for path in dest.rglob("*"):
        if path.is_file() and not path.is_symlink():
            info = path.stat()
            assert info.st_nlink == 1 and info.st_ino not in shared_inodes, path
            assert info.st_mode & 0o200, f"{path} is not the unit's to write"
    assert clone_site(dest) == site and clone_site(venv) is None


def test_relink_points_a_clone_at_another_shared_environment(tmp_path: Path) -> None:
    venv = fake_venv(tmp_path)
    dest = tmp_path / "clone"
    clone_venv(read_template(venv), dest)
    other = read_template(venv, extra_paths=("/elsewhere/pip.zip",))
    assert relink(other, dest)
    assert (dest / other.site / TASK_ENV_PTH).read_bytes() == other.pth()
    assert not relink(other, venv)  # the shared venv itself is no clone


def test_a_clone_of_a_real_venv_runs_with_its_own_prefix(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    subprocess.run(
        [find_uv(), "venv", "--quiet", "--relocatable", "--python", base_interpreter(), str(shared)],
        check=True,
        timeout=120,
        env={**os.environ, "UV_NO_PROGRESS": "1"},
    )
    (next(shared.glob("lib/python*/site-packages")) / "shared_mod.py").write_text("X = 'shared'\n")
    dest = tmp_path / "unit" / ".venv"
    dest.parent.mkdir()
    bin_dir = clone_venv(read_template(shared), dest)
    probe = "import sys, shared_mod; print(sys.prefix); print(shared_mod.X)"
    out = subprocess.run([str(bin_dir / "python"), "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == [str(dest), "shared"]
