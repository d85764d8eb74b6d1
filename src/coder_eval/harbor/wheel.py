"""A wheel of the running Coder Eval, for an exported Harbor task's verifier to install.

On the package registry the name `coder-eval` belongs to another project, so a verifier that
ran `pip install coder-eval` would grade with someone else's program. The export carries this
installation instead: the `coder_eval` package's files and its own distribution metadata
(METADATA, entry points), packed as a pure-Python wheel. Its dependencies are ordinary
registry packages and install as usual.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from importlib import metadata
from pathlib import Path

import coder_eval

DIST = "coder-eval"
SKIPPED = frozenset({"__pycache__"})


def wheel_name(version: str) -> str:
    return f"coder_eval-{version}-py3-none-any.whl"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _package_files(root: Path) -> list[Path]:
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not SKIPPED & set(p.relative_to(root).parts) and p.suffix != ".pyc"
    )


def build_wheel(target_dir: Path) -> Path:
    """Write the wheel of this installation into `target_dir` and return its path."""
    dist = metadata.distribution(DIST)
    version = dist.version
    info = f"coder_eval-{version}.dist-info"
    package = Path(coder_eval.__file__).resolve().parent
    target_dir.mkdir(parents=True, exist_ok=True)
    path = target_dir / wheel_name(version)
    records: list[str] = []
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:

        def add(name: str, data: bytes) -> None:
            zf.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data)
            records.append(f"{name},{_digest(data)},{len(data)}")

        for file in _package_files(package):
            add("coder_eval/" + file.relative_to(package).as_posix(), file.read_bytes())
        add(f"{info}/METADATA", (dist.read_text("METADATA") or f"Metadata-Version: 2.1\nName: {DIST}\n").encode())
        entry_points = dist.read_text("entry_points.txt")
        if entry_points:
            add(f"{info}/entry_points.txt", entry_points.encode())
        add(
            f"{info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: coder-eval export\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        records.append(f"{info}/RECORD,,")
        zf.writestr(zipfile.ZipInfo(f"{info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)), "\n".join(records) + "\n")
    return path
