"""import harbor: settings converted or listed as lost, names from the full path, best effort over a pack."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from coder_eval.harbor.importer import import_harbor
from coder_eval.harbor.task_toml import size_mb

BASIC_TOML = "[agent]\ntimeout_sec = 100.0\n[verifier]\ntimeout_sec = 50.0\n[environment]\nallow_internet = true\n"


def harbor_task(root: Path, rel: str, toml: str = BASIC_TOML, *, instruction: bytes = b"Do it.\n") -> Path:
    src = root / rel
    for part in ("environment", "tests", "solution"):
        (src / part).mkdir(parents=True)
    (src / "task.toml").write_text(toml, encoding="utf-8")
    (src / "instruction.md").write_bytes(instruction)
    (src / "environment" / "Dockerfile").write_text("FROM debian:bookworm-slim\nWORKDIR /app\n", encoding="utf-8")
    (src / "tests" / "test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n", encoding="utf-8")
    (src / "solution" / "solve.sh").write_text("touch done\n", encoding="utf-8")
    return src


def load(out: Path, name: str) -> dict[str, object]:
    return dict(yaml.safe_load((out / name / "task.yaml").read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    ("value", "mb"),
    [("4G", 4096), ("512M", 512), ("2Gi", 2048), ("1.5GB", 1536), ("1T", 1048576), (2048, 2048), ("256", 256)],
)
def test_sizes_convert_to_mb(value: object, mb: int) -> None:
    assert size_mb(value) == mb


@pytest.mark.parametrize("value", ["lots", "", "-1G", True, 0])
def test_what_is_not_a_size_is_none(value: object) -> None:
    assert size_mb(value) is None


FULL_TOML = """version = "1.0"
[task]
name = "acme/web-service"
[metadata]
author_name = "A. Author"
tags = ["web"]
[agent]
timeout_sec = 900.0
user = "agent"
[verifier]
timeout_sec = 120.0
[verifier.env]
MODE = "strict"
OPENAI_API_KEY = "${OPENAI_API_KEY}"
[environment]
memory = "4G"
storage_mb = 10240
cpus = 2
gpus = 1
workdir = "/srv/app"
build_timeout_sec = 300.0
[environment.env]
PORT = "8080"
QUOTED = 'say "hi" for $5'
[environment.healthcheck]
command = "curl -f localhost:8080"
[solution.env]
SEED = "7"
[extras]
thing = 1
"""


def test_settings_are_converted_and_every_loss_is_listed(tmp_path: Path) -> None:
    harbor_task(tmp_path / "pack", "acme/web", FULL_TOML)
    (tmp_path / "pack" / "acme" / "web" / "steps" / "one").mkdir(parents=True)
    report = import_harbor(tmp_path / "pack", tmp_path / "out")
    assert report.refused == []
    (item,) = report.imported
    doc = load(tmp_path / "out", "acme-web-service")
    assert doc["task_id"] == "acme-web-service"
    sandbox = doc["sandbox"]
    assert isinstance(sandbox, dict)
    assert sandbox["docker"] == {"dockerfile_path": "environment/Dockerfile", "working_dir": "/srv/app"}
    assert sandbox["limits"] == {"max_cpus": 2.0, "max_memory_mb": 4096, "max_disk_mb": 10240}
    assert doc["run_limits"] == {"turn_timeout": 900.0, "task_timeout": 900.0 + 120.0 + 300.0}
    (criterion,) = doc["success_criteria"]  # type: ignore[misc]
    assert criterion["env"] == {"MODE": "strict"} and criterion["timeout"] == 120.0
    assert doc["reference"]["solve"]["env"] == {"SEED": "7"}  # type: ignore[index]
    dockerfile = (tmp_path / "out" / "acme-web-service" / "environment" / "Dockerfile").read_text(encoding="utf-8")
    assert dockerfile.startswith("FROM debian:bookworm-slim\nWORKDIR /app\n")
    assert "RUN mkdir -p /logs/verifier /logs/agent /tests /solution" in dockerfile
    assert 'ENV PORT="8080"' in dockerfile and 'ENV QUOTED="say \\"hi\\" for \\$5"' in dockerfile
    losses = "\n".join(item.losses)
    for lost in (
        "[verifier] env OPENAI_API_KEY",
        "[agent] user is not imported",
        "[environment] gpus is not imported",
        "[environment] healthcheck is not imported",
        "[extras] is not imported (thing)",
        "[metadata] author_name: informational",
        "steps/ without [[steps]] in task.toml is not imported",
    ):
        assert lost in losses, losses
    assert "memory" not in losses and "storage" not in losses and "workdir" not in losses


def test_a_prebuilt_image_gets_a_dockerfile_on_it(tmp_path: Path) -> None:
    src = harbor_task(tmp_path / "pack", "img", BASIC_TOML + 'docker_image = "ghcr.io/acme/env:1"\n')
    (src / "environment" / "Dockerfile").unlink()
    report = import_harbor(src, tmp_path / "out")
    assert [i.task_file.parent.name for i in report.imported] == ["img"]
    dockerfile = (tmp_path / "out" / "img" / "environment" / "Dockerfile").read_text(encoding="utf-8")
    assert dockerfile.startswith("FROM ghcr.io/acme/env:1\n") and "chmod 1777" in dockerfile


def test_names_come_from_the_full_path_and_a_pack_imports_best_effort(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    harbor_task(pack, "orgA/x")
    harbor_task(pack, "orgB/x")
    harbor_task(pack, "deep/nested/layout/y")
    harbor_task(pack, "named-1", '[task]\nname = "same"\n')
    harbor_task(pack, "named-2", '[task]\nname = "same"\n')
    broken = harbor_task(pack, "broken")
    (broken / "tests" / "test.sh").unlink()
    latin = harbor_task(pack, "latin", instruction="Café crème\n".encode("latin-1"))
    (latin / "solution" / "solve.sh").write_text("true\n", encoding="utf-8")
    report = import_harbor(pack, tmp_path / "out")
    names = sorted(i.task_file.parent.name for i in report.imported)
    assert names == ["deep-nested-layout-y", "orga-x", "orgb-x", "same"]
    refused = {r.source.name: r.reason for r in report.refused}
    assert set(refused) == {"broken", "latin", "named-2"}
    assert "no tests/test.sh" in refused["broken"]
    assert "instruction.md" in refused["latin"] and "not UTF-8 text: byte 0xe9 at offset 3" in refused["latin"]
    assert "re-save instruction.md as UTF-8" in refused["latin"]
    assert "'same' is already taken" in refused["named-2"] and "set [task] name" in refused["named-2"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == names  # nothing left of the refused


def test_the_cli_reports_each_task_and_exits_1_when_one_was_refused(tmp_path: Path) -> None:
    harbor_task(tmp_path / "pack", "good")
    harbor_task(tmp_path / "pack", "bad", instruction=b"\xff\xfe oops")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "import", "harbor", "pack", "-o", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "imported pack/good -> out/good/task.yaml" in text and "refused pack/bad:" in text
    assert "not UTF-8 text" in text and "1 imported, 1 refused" in text
    assert "Internal error" not in proc.stdout + proc.stderr


STEPS_TOML = """[agent]
timeout_sec = 100.0
[verifier]
timeout_sec = 30.0
[environment]
allow_internet = true
[[steps]]
name = "make-a"
min_reward = 1.0
[[steps]]
name = "make-b"
[steps.verifier]
timeout_sec = 20.0
"""
STEP_TEST = 'L="$HARBOR_VERIFIER_LOGS"; . "$(dirname "$0")/lib.sh"; check {} > "$L/reward.txt"\n'


def test_a_multi_step_task_is_one_prompt_with_a_verifier_per_step(tmp_path: Path) -> None:
    src = harbor_task(tmp_path, "pack/two-steps", STEPS_TOML)
    (src / "instruction.md").unlink()
    (src / "tests" / "test.sh").unlink()
    (src / "tests" / "lib.sh").write_text(
        'check() { if [ -f "$1" ]; then echo 1; else echo 0; fi; }\n', encoding="utf-8"
    )
    for name, made, text in (
        ("make-a", "a.txt", "<!-- canary GUID 1234 -->\n\nCreate a.txt."),
        ("make-b", "b.txt", "Create b.txt."),
    ):
        (src / "steps" / name / "tests").mkdir(parents=True)
        (src / "steps" / name / "instruction.md").write_text(text, encoding="utf-8")
        (src / "steps" / name / "tests" / "test.sh").write_text(STEP_TEST.format(made), encoding="utf-8")
    report = import_harbor(src, tmp_path / "out")
    assert report.refused == [], report.refused
    (item,) = report.imported
    doc = load(tmp_path / "out", "two-steps")
    prompt = str(doc["initial_prompt"])
    assert "## Step 1 of 2: make-a\n\nCreate a.txt." in prompt and "## Step 2 of 2: make-b" in prompt
    assert "canary" not in prompt
    criteria = doc["success_criteria"]
    assert [(c["tests_dir"], c["timeout"]) for c in criteria] == [  # type: ignore[union-attr]
        ("steps/make-a/verifier", 30.0),
        ("steps/make-b/verifier", 20.0),
    ]
    assert doc["run_limits"] == {"turn_timeout": 100.0, "task_timeout": 100.0 + 30.0 + 20.0 + 600.0}
    merged = tmp_path / "out" / "two-steps" / "steps" / "make-a" / "verifier"
    assert sorted(p.name for p in merged.iterdir()) == ["lib.sh", "test.sh"]  # shared tests under the step's
    assert any("make-a: min_reward not imported" in loss for loss in item.losses), item.losses
    assert any("every step's verifier runs after the agent" in loss for loss in item.losses)

    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("", encoding="utf-8")
    for i, criterion in enumerate(criteria):  # type: ignore[arg-type]
        criterion.update(tests_path=str(tmp_path / f"t{i}"), logs_path=str(tmp_path / f"l{i}"))
    task_file = tmp_path / "out" / "two-steps" / "task.yaml"
    task_file.write_text(yaml.safe_dump(doc), encoding="utf-8")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    args = ["evaluate", str(task_file), str(work), "--run-dir", "ev", "--driver", "tempdir"]
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    graded = yaml.safe_load(next((tmp_path / "ev").rglob("task.json")).read_text(encoding="utf-8"))
    assert [r["score"] for r in graded["success_criteria_results"]] == [1.0, 0.0], proc.stdout + proc.stderr
    assert graded["weighted_score"] == 0.5  # Harbor's default strategy: the mean of the steps


def test_reward_strategy_final_scores_the_last_step_only(tmp_path: Path) -> None:
    src = harbor_task(
        tmp_path, "pack/final", STEPS_TOML.replace("[agent]", 'multi_step_reward_strategy = "final"\n[agent]')
    )
    for name in ("make-a", "make-b"):
        (src / "steps" / name).mkdir(parents=True)
        (src / "steps" / name / "instruction.md").write_text(f"Do {name}.", encoding="utf-8")
    report = import_harbor(src, tmp_path / "out")
    assert report.refused == [], report.refused
    criteria = load(tmp_path / "out", "final")["success_criteria"]
    assert [c.get("weight", 1) for c in criteria] == [0, 1]  # type: ignore[union-attr]
    assert (tmp_path / "out" / "final" / "steps" / "make-b" / "verifier" / "test.sh").is_file()  # the shared one


def test_a_step_without_a_test_is_refused(tmp_path: Path) -> None:
    src = harbor_task(tmp_path, "pack/broken-steps", STEPS_TOML)
    (src / "tests" / "test.sh").unlink()
    for name in ("make-a", "make-b"):
        (src / "steps" / name).mkdir(parents=True)
        (src / "steps" / name / "instruction.md").write_text("x", encoding="utf-8")
    report = import_harbor(src, tmp_path / "out")
    (refused,) = report.refused
    assert "step 'make-a' has no test.sh" in refused.reason and not (tmp_path / "out" / "broken-steps").exists()


def test_plan_refuses_an_imported_task_whose_verifier_is_gone(tmp_path: Path) -> None:
    harbor_task(tmp_path / "pack", "t")
    import_harbor(tmp_path / "pack", tmp_path / "out")
    (tmp_path / "out" / "t" / "tests" / "test.sh").unlink()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-m", "coder_eval", "plan", "out", "-T", "none"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = " ".join(proc.stdout.split())
    assert proc.returncode == 1 and "the verifier's directory 'tests' holds no test.sh" in text, proc.stdout
