"""The board's flaky view and trajectory diff over real scripted runs, in the API and in Chromium.

`10-answer`: three replicates of a task whose replicate 1 writes the wrong answer (a flip with
evidence), in a one-arm experiment that down-weights it (a quarantine); `11-coin`: one unit whose
grader tosses a coin on /dev/urandom, re-graded with `coder-eval flaky --regrade` until its
grades disagree (a grader defect).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from boardkit import CORPUS, Server, Tab, coder_eval, screenshot, start_board, stop_board

from coder_eval.board.api import BoardApi
from coder_eval.board.catalog import RunCatalog

pytestmark = pytest.mark.slow
REGRADE_ROUNDS = 6
"""Rounds of three re-grades: a fair coin agrees with itself over all 19 grades with probability 2 / 2^19."""


def regrade_until_a_defect(run_dir: Path, cwd: Path) -> dict[str, object]:
    """Re-grade in rounds (re-grades accumulate in regrades.json) until the coin's grades disagree."""
    for _ in range(REGRADE_ROUNDS):
        proc = coder_eval("flaky", run_dir, "--regrade", "3", "--allow-recorded-commands", "--json", cwd=cwd)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        listing: dict[str, object] = json.loads(proc.stdout)
        if any(c["defect"] for c in listing["grader_checks"]):  # type: ignore[attr-defined]
            return listing
    raise AssertionError("the coin's grades never disagreed")


@pytest.fixture(scope="module")
def flaky_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("flaky-board")
    shutil.copytree(CORPUS / "flaky", top / "flaky")
    root = top / "runs"
    for name, args in (
        ("10-answer", ["flaky/answer.yaml", "-e", "flaky/experiment.yaml", "--repeats", "3"]),
        ("11-coin", ["flaky/coin.yaml"]),
    ):
        proc = coder_eval("run", *args, "-b", "script", "-j", "3", "--run-dir", root / name, cwd=top)
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    regrade_until_a_defect(root / "11-coin", top)
    return root


@pytest.fixture(scope="module")
def flaky_board(flaky_root: Path) -> Iterator[Server]:
    server = start_board(flaky_root, cwd=flaky_root.parent)
    yield server
    stop_board(server)


def test_the_flaky_payload_has_the_evidence_and_the_grader_defect(flaky_root: Path) -> None:
    payload = BoardApi(RunCatalog([flaky_root])).get("flaky")
    [task] = payload["tasks"]
    assert task["task_id"] == "answer" and (task["succeeded"], task["graded"]) == (2, 3)
    assert task["stability"] == pytest.approx(1 / 3)  # 3 pairs, only (0, 2) agree
    [flip] = task["flips"]
    assert flip["title"] == "file_contains: right answer"
    assert [u["replicate_index"] for u in flip["failing"]["units"]] == [1]
    assert "missing: 'forty-two'" in flip["failing"]["reasons"][0]["text"]
    assert [u["replicate_index"] for u in flip["passing"]["units"]] == [0, 2]
    assert payload["grader_defects"] == ["coin (default · claude-code · script)"]
    assert payload["defects_not_flaky"] == payload["grader_defects"]  # one unit: nothing to flip between
    [check] = [c for c in payload["grader_checks"] if c["defect"]]
    assert check["flips"][0]["title"] == "run_command: coin toss" and check["regrades"] >= 3


def test_the_flaky_page_lists_the_task_its_evidence_and_the_grader_defect(browser: object, flaky_board: Server) -> None:
    tab = Tab(browser, flaky_board.url)
    page = tab.open("#/", "#runs tbody tr")
    page.click("nav >> text=Flaky")
    page.wait_for_selector("#flaky-tasks .flaky-task")
    text = page.inner_text("#flaky-tasks")
    assert "answer (only · claude-code · script)" in text and "stability 0.33" in text
    assert "right answer" in text and "missing: 'forty-two'" in text and "10-answer#1" in text
    defects = page.inner_text("#grader-defects")
    assert "coin toss" in defects and "recorded" in defects and "re-grade 1" in defects
    assert "did not flip (yet): coin" in defects
    screenshot(page, "flaky")
    page.click("#flaky-tasks a:has-text('10-answer#1') >> nth=0")
    page.wait_for_selector("#criteria")
    assert "#/runs/10-answer/task/only/answer/01" in page.url
    page.go_back()
    page.click("text=Compare a passing and a failing unit")
    page.wait_for_selector("#diff tbody tr")
    summary = page.inner_text("#diff-summary")
    assert "Diverged at row 1" in summary  # replicate 1 ran a command first
    assert page.locator("tr#diverged").count() == 1
    assert "echo thinking" in page.inner_text("#diff")
    assert page.locator("#diff tr.d-changed").count() == 1  # the same write, another answer
    assert "content:" in page.inner_text("#diff tr.diff-args")
    screenshot(page, "diff")
    tab.close()


def test_the_experiment_page_says_which_tasks_are_quarantined(browser: object, flaky_board: Server) -> None:
    tab = Tab(browser, flaky_board.url)
    page = tab.open("#/runs/10-answer/experiment", "#quarantine")
    card = page.inner_text("#quarantine")
    assert "answer counted at weight 0.5" in card and "replicate 1 writes the wrong answer" in card
    assert "quarantined: weight 0.5" in page.inner_text("#exp-tasks")
    tab.close()
