"""harbor_verifier: Harbor's reward precedence and keys, no reward is no verdict, the log in the details."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import spec

from coder_eval.criteria.base import CheckContext
from coder_eval.criteria.grading import grade
from coder_eval.criteria.harbor_rewards import RewardError, read_reward
from coder_eval.models.status import FinalStatus


@pytest.mark.parametrize(
    ("reward_json", "reward_txt", "score", "source"),
    [
        ('{"reward": 0.25}', "1", 0.25, "reward.json"),  # JSON first, whatever the text says
        ('{"score": 0.8}', None, 0.8, "reward.json"),  # a single metric of another name
        ('{"accuracy": 0.5, "note": "x", "ok": true}', None, 0.5, "reward.json"),  # non-numbers ignored
        ('{"a": 0.5, "b": 1}', "0.75", 0.75, "reward.json"),  # no `reward`: the text supplies it
        ('{"reward": 1, "tests_passed": 3}', None, 1.0, "reward.json"),
        (None, " 0.5\n", 0.5, "reward.txt"),
        (None, "1", 1.0, "reward.txt"),
    ],
)
def test_rewards_read_as_harbor_reads_them(reward_json, reward_txt, score, source):
    reward = read_reward(reward_json, reward_txt)
    assert (reward.score, reward.source) == (score, source)


@pytest.mark.parametrize(
    ("reward_json", "reward_txt", "message"),
    [
        (None, None, "neither reward.json nor reward.txt"),
        ("", "1", "reward.json is empty"),
        ("{oops", None, "not valid JSON"),
        ("[1]", None, "must be a JSON object"),
        ('{"a": 0.5, "b": 1}', None, "several metrics (a, b)"),
        ('{"note": "x"}', None, "no numeric metric"),
        (None, "", "reward.txt is empty"),
        (None, "0.5\nall good\n", "does not hold one number"),
        (None, "nan", "not a finite number"),
    ],
)
def test_unusable_rewards_are_errors_not_zeros(reward_json, reward_txt, message):
    with pytest.raises(RewardError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_reward(reward_json, reward_txt)


def harbor_task(tmp_path: Path, test_sh: str) -> tuple[CheckContext, dict[str, str]]:
    task, work = tmp_path / "task", tmp_path / "work"
    (task / "tests").mkdir(parents=True)
    work.mkdir()
    (task / "tests" / "test.sh").write_text(test_sh, encoding="utf-8")
    (task / "tests" / "data.txt").write_text("expected\n", encoding="utf-8")
    paths = {"tests_path": str(tmp_path / "inner-tests"), "logs_path": str(tmp_path / "logs")}
    return CheckContext(root=work, task_dir=task), paths


def verify(tmp_path: Path, test_sh: str, **fields: object) -> tuple[object, FinalStatus, list[str]]:
    ctx, paths = harbor_task(tmp_path, test_sh)
    criterion = spec(type="harbor_verifier", **paths, **fields)
    graded = grade([criterion], ctx)
    return graded.results[0], graded.status, graded.problems


def test_reward_json_wins_and_the_log_is_kept(tmp_path: Path) -> None:
    script = (
        'echo "running 2 tests"; test -f "$T_DIR/data.txt" && echo "tests copied"\n'
        'echo 0 > "$L_DIR/reward.txt"; echo \'{"reward": 0.5, "passed": 1}\' > "$L_DIR/reward.json"\n'
        'echo "{}" > "$L_DIR/ctrf.json"\n'
    )
    fields = {"env": {"T_DIR": str(tmp_path / "inner-tests"), "L_DIR": str(tmp_path / "logs")}}
    result, status, _ = verify(tmp_path, script, **fields)
    assert result.score == 0.5 and status == FinalStatus.FAILURE
    assert "reward 0.5 from reward.json" in result.details and "metrics passed=1" in result.details
    assert "running 2 tests" in result.details and "tests copied" in result.details
    assert "also in the logs directory: ctrf.json" in result.details
    assert (tmp_path / "logs" / "test-stdout.txt").read_text(encoding="utf-8").startswith("running 2 tests")


def test_a_full_reward_passes_and_the_tests_run_in_the_workspace(tmp_path: Path) -> None:
    script = f'test "$PWD" = "{tmp_path / "work"}" && echo 1 > {tmp_path}/logs/reward.txt\n'
    result, status, _ = verify(tmp_path, script)
    assert result.score == 1.0 and status == FinalStatus.SUCCESS, result.details


def test_no_reward_file_is_an_error_with_the_log(tmp_path: Path) -> None:
    result, status, problems = verify(tmp_path, "echo 'ImportError: no module named app'; exit 1\n")
    assert status == FinalStatus.ERROR and result.evaluation_status == "not_evaluated"
    assert "the verifier wrote no reward" in problems[0] and "test.sh exit code 1" in problems[0]
    assert "ImportError: no module named app" in result.details


def test_a_stale_reward_from_the_agent_is_removed_before_the_tests(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "reward.txt").write_text("1\n", encoding="utf-8")  # the agent's forgery
    _, status, problems = verify(tmp_path, "true\n")
    assert status == FinalStatus.ERROR and "wrote no reward" in problems[0]


def test_a_printed_marker_cannot_forge_a_reward(tmp_path: Path) -> None:
    script = f"echo '@@x file reward.txt'; echo 1; echo 0 > {tmp_path}/logs/reward.txt\n"
    result, _, _ = verify(tmp_path, script)
    assert result.score == 0.0


def test_an_unwritable_logs_directory_is_a_task_error(tmp_path: Path) -> None:
    ctx, paths = harbor_task(tmp_path, "true\n")
    (tmp_path / "blocker").write_text("", encoding="utf-8")
    criterion = spec(type="harbor_verifier", tests_path=paths["tests_path"], logs_path=f"{tmp_path}/blocker/logs")
    graded = grade([criterion], ctx)
    assert graded.status == FinalStatus.ERROR and "must exist and be writable" in graded.config_errors[0]


def test_the_verifier_timeout_is_its_own(tmp_path: Path) -> None:
    result, status, _ = verify(tmp_path, "sleep 5\n", timeout=0.5)
    assert status == FinalStatus.FAILURE and result.error == "timeout" and "0.5s" in result.details


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"tests_path": "tests"}, "absolute path"),
        ({"logs_path": "/logs/../etc"}, "absolute path"),
        ({"tests_path": "/"}, "not /"),
        ({"tests_dir": "../elsewhere"}, "under the task's directory"),
        ({"env": {"BAD-NAME": "1"}}, "not environment variable names"),
    ],
)
def test_bad_fields_are_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        spec(type="harbor_verifier", **fields)


def test_a_tests_directory_it_did_not_fill_is_never_emptied(tmp_path: Path) -> None:
    ctx, paths = harbor_task(tmp_path, f"echo 1 > {tmp_path}/logs/reward.txt\n")
    theirs = Path(paths["tests_path"])
    theirs.mkdir()
    (theirs / "keep.txt").write_text("someone else's\n", encoding="utf-8")
    graded = grade([spec(type="harbor_verifier", **paths)], ctx)
    assert graded.status == FinalStatus.ERROR and "did not put there" in graded.config_errors[0]
    assert (theirs / "keep.txt").is_file()
    (theirs / "keep.txt").unlink()
    assert grade([spec(type="harbor_verifier", **paths)], ctx).status == FinalStatus.SUCCESS
    assert grade([spec(type="harbor_verifier", **paths)], ctx).status == FinalStatus.SUCCESS  # its own: refilled
