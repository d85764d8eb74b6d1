"""Table-driven tests for staging a task's reference directory and detecting tampering."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from coder_eval.engine.reference import ReferenceTamperedError, staged_reference, tree_digest, verify_unchanged
from coder_eval.errors import TaskConfigError

TASK_FILE = Path("tasks/demo/task.yaml")


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def listing(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() or p.is_symlink()}


@pytest.fixture
def reference(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "ref",
        {
            "solution.py": "print('ok')\n",
            "pkg/__init__.py": "",
            "pkg/deep/nested/data.json": '{"a": 1}',
            "bin.dat": bytes(range(256)),
        },
    )


# --- what the staged copy holds -------------------------------------------------------------------


def _file_link(ref: Path, outside: Path) -> None:
    (ref / "link.txt").symlink_to(outside / "secret.txt")


def _dir_link(ref: Path, outside: Path) -> None:
    (ref / "linked_dir").symlink_to(outside, target_is_directory=True)


def _internal_link(ref: Path, outside: Path) -> None:
    (ref / "alias.py").symlink_to(ref / "solution.py")


def _dangling_link(ref: Path, outside: Path) -> None:
    (ref / "dangling").symlink_to(outside / "missing")


def _nested_link(ref: Path, outside: Path) -> None:
    (ref / "pkg" / "deep" / "up").symlink_to(outside, target_is_directory=True)


def _git_dir(ref: Path, outside: Path) -> None:
    write_tree(ref, {".git/HEAD": "ref: refs/heads/main\n", ".git/objects/ab/cd": "x"})


def _nested_git_dir(ref: Path, outside: Path) -> None:
    write_tree(ref, {"pkg/.git/config": "[core]\n"})


def _git_file(ref: Path, outside: Path) -> None:
    write_tree(ref, {"pkg/.git": "gitdir: ../../.git/modules/pkg\n"})


def _lookalikes(ref: Path, outside: Path) -> None:
    write_tree(ref, {".gitignore": "*.pyc\n", ".github/ci.yml": "on: push\n", "x.git/f": "kept"})


DROP_CASES = [
    pytest.param(_file_link, set(), id="symlink-to-file"),
    pytest.param(_dir_link, set(), id="symlink-to-directory"),
    pytest.param(_internal_link, set(), id="symlink-inside-tree"),
    pytest.param(_dangling_link, set(), id="dangling-symlink"),
    pytest.param(_nested_link, set(), id="nested-symlink-to-directory"),
    pytest.param(_git_dir, set(), id="dot-git-directory"),
    pytest.param(_nested_git_dir, set(), id="nested-dot-git"),
    pytest.param(_git_file, set(), id="dot-git-file"),
    pytest.param(_lookalikes, {".gitignore", ".github/ci.yml", "x.git/f"}, id="git-lookalikes-kept"),
]


@pytest.mark.parametrize(("add", "extra"), DROP_CASES)
def test_staged_copy_contents(
    tmp_path: Path, reference: Path, add: Callable[[Path, Path], None], extra: set[str]
) -> None:
    outside = write_tree(tmp_path / "outside", {"secret.txt": "host secret", "more/key.pem": "KEY"})
    base = listing(reference)
    add(reference, outside)
    with staged_reference(reference, task_file=TASK_FILE) as (staged, digest):
        assert staged is not None and digest is not None
        assert staged != reference and not staged.is_relative_to(reference)
        assert listing(staged) == base | extra
        assert not any(p.is_symlink() for p in staged.rglob("*"))
        assert (staged / "pkg/deep/nested/data.json").read_text() == '{"a": 1}'
        assert (staged / "bin.dat").read_bytes() == bytes(range(256))
        assert "host secret" not in "".join(p.read_text(errors="replace") for p in staged.rglob("*") if p.is_file())


def test_empty_directories_are_kept(tmp_path: Path, reference: Path) -> None:
    (reference / "empty" / "inner").mkdir(parents=True)
    with staged_reference(reference, task_file=TASK_FILE) as (staged, _):
        assert staged is not None and (staged / "empty" / "inner").is_dir()


def test_source_is_untouched(reference: Path) -> None:
    before = tree_digest(reference)
    with staged_reference(reference, task_file=TASK_FILE) as (staged, _):
        assert staged is not None
        (staged / "solution.py").write_text("changed")
    assert tree_digest(reference) == before


def test_no_reference_yields_nothing() -> None:
    with staged_reference(None, task_file=TASK_FILE) as (staged, digest):
        assert (staged, digest) == (None, None)
    verify_unchanged(None, None)


# --- the digest -----------------------------------------------------------------------------------


def test_digest_stable_across_stagings(reference: Path) -> None:
    with staged_reference(reference, task_file=TASK_FILE) as (first, d1):
        assert first is not None
        assert d1 == tree_digest(first)
    with staged_reference(reference, task_file=TASK_FILE) as (second, d2):
        assert second is not None and second != first
        assert d2 == d1


def test_digest_ignores_dropped_entries(tmp_path: Path, reference: Path) -> None:
    with staged_reference(reference, task_file=TASK_FILE) as (_, clean):
        pass
    _git_dir(reference, tmp_path)
    _dir_link(reference, write_tree(tmp_path / "o", {"f": "x"}))
    with staged_reference(reference, task_file=TASK_FILE) as (_, dirty):
        pass
    assert dirty == clean


DIGEST_CASES = [
    pytest.param({"a": "1"}, {"a": "2"}, id="content"),
    pytest.param({"a": "1"}, {"b": "1"}, id="name"),
    pytest.param({"d/a": "1"}, {"a": "1"}, id="directory"),
    pytest.param({"a": "1"}, {"a": "1", "b": ""}, id="extra-empty-file"),
    pytest.param({"ab": "c"}, {"a": "bc"}, id="boundary-between-name-and-content"),
    pytest.param({"a": "1", "b": "2"}, {"a": "12", "b": ""}, id="boundary-between-files"),
]


@pytest.mark.parametrize(("left", "right"), DIGEST_CASES)
def test_digest_distinguishes(tmp_path: Path, left: dict[str, str], right: dict[str, str]) -> None:
    assert tree_digest(write_tree(tmp_path / "l", left)) != tree_digest(write_tree(tmp_path / "r", right))  # type: ignore[arg-type]


def test_digest_ignores_metadata(tmp_path: Path) -> None:
    one = write_tree(tmp_path / "one", {"a": "x", "d/b": "y"})
    two = write_tree(tmp_path / "two", {"d/b": "y", "a": "x"})
    os.utime(two / "a", (0, 0))
    (two / "d" / "b").chmod(0o600)
    assert tree_digest(one) == tree_digest(two)


# --- tampering ------------------------------------------------------------------------------------


def _modify(root: Path) -> None:
    (root / "solution.py").write_text("print('hacked')\n")


def _modify_nested(root: Path) -> None:
    (root / "pkg/deep/nested/data.json").write_text('{"a": 2}')


def _truncate(root: Path) -> None:
    (root / "bin.dat").write_bytes(b"")


def _add(root: Path) -> None:
    (root / "answers.txt").write_text("42")


def _add_empty_nested(root: Path) -> None:
    write_tree(root, {"pkg/new/empty.py": ""})


def _remove(root: Path) -> None:
    (root / "solution.py").unlink()


def _rename(root: Path) -> None:
    (root / "solution.py").rename(root / "solution2.py")


def _replace_with_symlink(root: Path) -> None:
    (root / "solution.py").unlink()
    (root / "solution.py").symlink_to(root / "pkg" / "__init__.py")


TAMPER_CASES = [
    pytest.param(_modify, id="modified"),
    pytest.param(_modify_nested, id="nested-modified"),
    pytest.param(_truncate, id="truncated"),
    pytest.param(_add, id="file-added"),
    pytest.param(_add_empty_nested, id="empty-file-added"),
    pytest.param(_remove, id="file-removed"),
    pytest.param(_rename, id="file-renamed"),
    pytest.param(_replace_with_symlink, id="replaced-by-symlink"),
]


@pytest.mark.parametrize("tamper", TAMPER_CASES)
def test_tampering_detected(reference: Path, tamper: Callable[[Path], None]) -> None:
    with staged_reference(reference, task_file=TASK_FILE) as (staged, digest):
        assert staged is not None
        verify_unchanged(staged, digest)
        tamper(staged)
        with pytest.raises(ReferenceTamperedError):
            verify_unchanged(staged, digest)


def test_rewrite_with_same_bytes_is_not_tampering(reference: Path) -> None:
    with staged_reference(reference, task_file=TASK_FILE) as (staged, digest):
        assert staged is not None
        data = (staged / "solution.py").read_bytes()
        (staged / "solution.py").write_bytes(data)
        verify_unchanged(staged, digest)


# --- errors and cleanup ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make_target",
    [
        pytest.param(lambda tmp: tmp / "missing", id="missing"),
        pytest.param(lambda tmp: write_tree(tmp, {"ref.py": "x"}) / "ref.py", id="a-file"),
    ],
)
def test_not_a_directory_is_a_task_config_error(tmp_path: Path, make_target: Callable[[Path], Path]) -> None:
    target = make_target(tmp_path)
    with pytest.raises(TaskConfigError) as info, staged_reference(target, task_file=TASK_FILE):
        pytest.fail("must not enter the block")
    message = str(info.value)
    assert "reference.directory" in message
    assert str(TASK_FILE) in message and str(target) in message


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a non-root POSIX user")
def test_unreadable_file_is_a_task_config_error(reference: Path) -> None:
    locked = reference / "locked.txt"
    locked.write_text("x")
    locked.chmod(0)
    try:
        with (
            pytest.raises(TaskConfigError, match=r"reference\.directory"),
            staged_reference(reference, task_file=TASK_FILE),
        ):
            pytest.fail("must not enter the block")
    finally:
        locked.chmod(0o600)


class _BoomError(Exception):
    pass


@pytest.mark.parametrize(
    "raise_inside",
    [
        pytest.param(None, id="normal-exit"),
        pytest.param(_BoomError, id="exception"),
        pytest.param(ReferenceTamperedError, id="tampered"),
        pytest.param(KeyboardInterrupt, id="keyboard-interrupt"),
    ],
)
def test_staged_copy_removed_on_exit(reference: Path, raise_inside: type[BaseException] | None) -> None:
    seen: list[Path] = []

    def body() -> None:
        with staged_reference(reference, task_file=TASK_FILE) as (staged, _):
            assert staged is not None and staged.is_dir()
            seen.append(staged)
            if raise_inside is not None:
                raise raise_inside("inside the block")

    if raise_inside is None:
        body()
    else:
        with pytest.raises(raise_inside):
            body()
    (staged,) = seen
    assert not staged.exists()
    assert not staged.parent.exists()
    assert reference.is_dir() and (reference / "solution.py").is_file()


@pytest.mark.parametrize(
    ("dir_mode", "file_mode"),
    [
        pytest.param(0o500, 0o400, id="read-only"),
        pytest.param(0o000, 0o000, id="no-access"),
    ],
)
def test_locked_down_staged_tree_is_still_removed(reference: Path, dir_mode: int, file_mode: int) -> None:
    """An agent that chmods the staged copy must not make it outlive the run."""
    with staged_reference(reference, task_file=TASK_FILE) as (staged, _):
        assert staged is not None
        holder = staged.parent
        for p in sorted(staged.rglob("*"), key=lambda p: len(p.parts), reverse=True):
            p.chmod(dir_mode if p.is_dir() else file_mode)
        staged.chmod(dir_mode)
    if holder.exists():
        for p in [holder, staged]:
            p.chmod(0o700)
        pytest.fail("a locked-down staged copy was left behind")
