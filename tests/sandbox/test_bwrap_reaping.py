"""Under bubblewrap, a finished unit leaves no zombie behind in a harness that is a subreaper.

bwrap's outer process exits without waiting for the namespace's init it forked, so the harness
(a child subreaper, as `run` makes it) adopts that init. Before the fix every unit left one
zombie for the rest of the run: a 10,000-row run held 10,000 of them, and every /proc walk of
the reaper grew with them. Run in a child process so the subreaper flag stays out of pytest.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from coder_eval.common.reaper import become_subreaper
    from coder_eval.models.sandbox import SandboxConfig
    from coder_eval.sandbox.bwrap import bwrap_works
    from coder_eval.sandbox.sandbox import Sandbox

    assert become_subreaper()
    assert bwrap_works()

    def zombies():
        found = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] == "Z" and int(fields[1]) == os.getpid():
                found.append(int(name))
        return found

    root = Path(sys.argv[1])
    before = len(zombies())  # the availability probe's own init, at most
    for i in range(4):
        box = Sandbox(SandboxConfig(driver="bubblewrap"), task_dir=root, task_file=root / "task.yaml",
                      artifacts_dir=root / f"artifacts{i}", scratch=root / "scratch")
        box.setup()
        assert box.run("printf ok > out.txt", timeout=30).exit_code == 0
        box.finish()
    print(len(zombies()) - before)
    """
)


def _bwrap_usable() -> bool:
    if shutil.which("bwrap") is None:
        return False
    probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "--", "/bin/true"]
    return subprocess.run(probe, env={}, capture_output=True, timeout=30).returncode == 0


@pytest.mark.skipif(not _bwrap_usable(), reason="bubblewrap cannot create namespaces here")
def test_units_leave_no_zombies(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # The availability probe's init may still be a zombie when counting starts and be collected by
    # the units' reaping, so fewer zombies than before is fine; more is the leak this guards against.
    assert int(proc.stdout.strip()) <= 0
