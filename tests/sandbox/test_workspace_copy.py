"""The judge's copy of a workspace: real copies, the floor left out, links kept inside the copy."""

from __future__ import annotations

import os
from pathlib import Path

from coder_eval.sandbox.workspace_copy import copy_rules, copy_tree, stage_reference


def _tree(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('hi')\n")
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text("{}")
    (root / ".mcp.json").write_text("{}")
    (root / "_reference").mkdir()
    (root / "_reference" / "planted.txt").write_text("not the reference")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "big.js").write_text("x")
    os.symlink("src/main.py", root / "inside_rel")
    os.symlink(root / "src" / "main.py", root / "inside_abs")
    os.symlink("/etc/hostname", root / "outside")
    os.symlink(root / ".claude" / "settings.json", root / "sneaky")


def test_floor_and_ignores_are_left_out_and_files_are_real_copies(tmp_path: Path) -> None:
    src, dst = tmp_path / "src_ws", tmp_path / "copy"
    _tree(src)
    skipped = copy_tree(src, dst, copy_rules(None, ["!node_modules"]))
    assert (dst / "src" / "main.py").read_text() == "print('hi')\n"
    assert not (dst / ".claude").exists() and not (dst / ".mcp.json").exists()
    assert not (dst / "_reference").exists() and not (dst / "sneaky").is_symlink()
    assert (dst / "node_modules" / "big.js").is_file()  # `!node_modules` lifts a default
    assert {".claude", ".mcp.json", "_reference", "sneaky"} <= set(skipped)
    # a write in the copy never reaches the original (no hard links)
    (dst / "src" / "main.py").write_text("changed")
    assert (src / "src" / "main.py").read_text() == "print('hi')\n"
    assert os.stat(dst / "src" / "main.py").st_ino != os.stat(src / "src" / "main.py").st_ino


def test_links_into_the_tree_point_into_the_copy(tmp_path: Path) -> None:
    src, dst = tmp_path / "src_ws", tmp_path / "copy"
    _tree(src)
    copy_tree(src, dst, copy_rules(None, None))
    for name in ("inside_rel", "inside_abs"):
        assert (dst / name).resolve() == (dst / "src" / "main.py").resolve()
    assert os.readlink(dst / "outside") == "/etc/hostname"


def test_the_floor_cannot_be_lifted(tmp_path: Path) -> None:
    rules = copy_rules(["!.claude"], ["!.mcp.json", "!_reference"])
    assert all(rules.matches(name) for name in (".claude", ".mcp.json", "_reference"))


def test_reference_is_staged_read_only(tmp_path: Path) -> None:
    ref, ws = tmp_path / "ref", tmp_path / "ws"
    (ref / "pkg").mkdir(parents=True)
    (ref / "pkg" / "answer.py").write_text("ANSWER = 42\n")
    ws.mkdir()
    target = stage_reference(ref, ws)
    staged = target / "pkg" / "answer.py"
    assert staged.read_text() == "ANSWER = 42\n"
    assert not staged.stat().st_mode & 0o222


def test_sparse_files_stay_sparse_and_files_over_the_cap_are_left_out_with_the_reason(tmp_path: Path) -> None:
    from coder_eval.common.bounded_copy import CopyBudget

    src, dst = tmp_path / "src_ws", tmp_path / "copy"
    src.mkdir()
    with open(src / "sparse.log", "wb") as fh:
        fh.truncate(200 * 1024**3)
    (src / "dense.bin").write_bytes(b"d" * 50_000)
    (src / "small.txt").write_text("kept")
    skipped = copy_tree(src, dst, copy_rules(None, None), CopyBudget(per_file=10_000))
    assert os.stat(dst / "sparse.log").st_size == 200 * 1024**3 and os.stat(dst / "sparse.log").st_blocks < 2048
    assert (dst / "small.txt").read_text() == "kept" and not (dst / "dense.bin").exists()
    assert skipped == ["dense.bin: 48.8 KiB of data, over the 9.8 KiB a copied file may hold"]


def test_a_judges_copy_starts_from_the_allowlist_without_credentials(tmp_path: Path, monkeypatch) -> None:
    """The copy is a fresh environment of the unit's driver, so its commands get the clean settings."""
    from coder_eval.models.sandbox import SandboxConfig
    from coder_eval.sandbox.environment import Command
    from coder_eval.sandbox.sandbox import Sandbox
    from coder_eval.sandbox.workspace_copy import open_copy

    monkeypatch.setenv("PIP_INDEX_URL", "https://judgeuser:judgesecret42@index.example/simple")
    monkeypatch.setenv("HTTPS_PROXY", "http://u:proxysecret42@proxy.example:3128")
    (tmp_path / "task").mkdir()
    sandbox = Sandbox(
        SandboxConfig.model_validate({"driver": "tempdir"}),
        task_dir=tmp_path / "task",
        task_file=tmp_path / "task" / "task.yaml",
        artifacts_dir=tmp_path / "out" / "artifacts",
        scratch=tmp_path / "scratch",
    )
    sandbox.setup()
    copy = open_copy(sandbox)
    try:
        seen = copy.environment.exec(Command(shell="env"), timeout=30).stdout
    finally:
        copy.close()
        sandbox.finish()
    assert "PIP_INDEX_URL=https://index.example/simple" in seen
    assert "HTTPS_PROXY=http://proxy.example:3128" in seen
    assert "secret42" not in seen
