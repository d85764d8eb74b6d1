"""A Dockerfile read as a rehearsal's replay plan: what replays, what is refused and why, what is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder_eval.models.sandbox import DockerConfig, Rehearsal, SandboxConfig
from coder_eval.sandbox.dockerfile_plan import IMAGE_PATH, ReplayPlan, plan_replay
from coder_eval.sandbox.dockerfile_words import expand, fragments
from coder_eval.sandbox.network_steps import needs_network


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("apt-get update", "apt-get update"),
        ("DEBIAN_FRONTEND=noninteractive apt-get install -y curl", "apt-get install"),
        ("sudo apt install jq", "apt install"),
        ("apk add --no-cache git", "apk add"),
        ("python3 -m pip install flask==3.0", "pip install"),
        ("pip3.11 install x", "pip install"),
        ("/usr/bin/pip install x", "pip install"),
        ("uv pip install x", "uv pip install"),
        ("uv sync --frozen", "uv sync"),
        ("npm ci", "npm ci"),
        ("yarn", "yarn install"),
        ("curl -fsSL https://example.org/x.sh", "curl"),
        ("git clone https://example.org/r.git", "git clone"),
        ("go mod download", "go mod"),
        ("pacman -Syu --noconfirm", "pacman -S"),
        ("pip install --no-index ./wheels/x.whl", None),
        ("npm ci --offline", None),
        ("uv venv /opt/venv", None),
        ("yarn build", None),
        ("git status", None),
        ("echo curl is a word here", None),
        ("mkdir -p /logs/verifier", None),
    ],
)
def test_commands_that_need_the_network(command: str, verdict: str | None) -> None:
    assert needs_network(command) == verdict


def test_fragments_split_outside_quotes_and_substitutions() -> None:
    text = 'apt-get update && apt-get install -y "a && b"; echo $(date; true) | tee x || true'
    assert [text[a:b].strip() for a, b in fragments(text)] == [
        "apt-get update",
        'apt-get install -y "a && b"',
        "echo $(date; true)",
        "tee x",
        "true",
    ]


def test_expand_follows_dockers_word_rules() -> None:
    values = {"A": "1", "EMPTY": ""}
    assert expand("\"x $A\" ${B:-dflt} ${A:+alt} '$A' \\$A ${EMPTY:-e}", values) == "x 1 dflt alt $A $A e"


def _plan(tmp_path: Path, dockerfile: str, *, assume: tuple[str, ...] = (), working_dir: str | None = "auto",
          files: dict[str, str] | None = None) -> ReplayPlan:  # fmt: skip
    ctx = tmp_path / "env"
    ctx.mkdir(exist_ok=True)
    (ctx / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    for rel, text in (files or {}).items():
        (ctx / rel).parent.mkdir(parents=True, exist_ok=True)
        (ctx / rel).write_text(text, encoding="utf-8")
    docker = DockerConfig(dockerfile_path="env/Dockerfile", working_dir=working_dir)
    return plan_replay(docker, Rehearsal(assume_done=list(assume)), tmp_path)


def test_a_plan_replays_env_workdir_copy_and_run_in_order(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path,
        'FROM python:3.12-slim\nARG WHO=world\nENV GREETING="hello $WHO" PATH=/opt/tool/bin:$PATH\n'
        'WORKDIR /app\nCOPY data/ ./data/\nRUN <<EOF\necho "$GREETING" > out.txt\nEOF\n'
        'RUN python3 - <<PY\nprint("fed on stdin")\nPY\nRUN ["echo", "exec form"]\nUSER nobody\nCMD ["bash"]\n',
        files={"data/a.txt": "a\n"},
    )
    assert plan.problems == []
    assert plan.base == "python:3.12-slim" and plan.workdir == "/app"
    assert plan.env == {"GREETING": "hello world", "PATH": f"/opt/tool/bin:{IMAGE_PATH}"}
    kinds = [(s.kind, s.line) for s in plan.steps]
    assert kinds == [("workdir", 4), ("copy", 5), ("run", 6), ("run", 9), ("run", 12)]
    copy, heredoc, fed, exec_form = plan.steps[1:]
    assert copy.dest == "/app/data" and copy.into_dir and copy.sources == (tmp_path / "env" / "data",)
    assert heredoc.script == 'echo "$GREETING" > out.txt\n' and heredoc.cwd == "/app"
    assert fed.script.startswith("python3 - <<PY\nprint(") and fed.script.rstrip().endswith("PY")
    assert exec_form.argv == ("echo", "exec form")
    assert any("USER ignored" in n for n in plan.notes) and any("CMD has no part" in n for n in plan.notes)
    assert plan.notes[0] == "FROM python:3.12-slim: the host's system stands in for the base image"


def test_network_steps_are_refused_unless_assumed_done_and_each_skip_is_listed(tmp_path: Path) -> None:
    dockerfile = "FROM debian\nRUN apt-get update && apt-get install -y jq && mkdir -p /logs\n"
    refused = _plan(tmp_path, dockerfile)
    (problem,) = refused.problems
    assert problem.line == 2 and "`apt-get update` needs the network (apt-get update)" in problem.message
    assert "--rehearse-assume 'apt-get *'" in problem.fix
    assumed = _plan(tmp_path, dockerfile, assume=("apt-get *",))
    assert assumed.problems == []
    (step,) = assumed.steps
    assert "mkdir -p /logs" in step.script and "apt-get" not in step.script
    skipped = [n for n in assumed.notes if "skipped" in n]
    assert skipped == [
        "line 2: `apt-get update` skipped (assume_done 'apt-get *')",
        "line 2: `apt-get install -y jq` skipped (assume_done 'apt-get *')",
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("COPY --from=build /x /y\n", "copies from another build stage"),
        ("ADD https://example.org/a.tgz /opt/\n", "needs the network"),
        ("COPY missing.txt /app/\n", "missing.txt is not in the build context"),
        ("COPY ../outside /app/\n", "lies outside the build context"),
        ("COPY data/a.txt /usr/local/bin/a\n", "writes into /usr, which a rehearsal shows read-only"),
        ("RUN --mount=type=secret,id=tok cat /run/secrets/tok\n", "is not replayed"),
        ("BOGUS x\n", "BOGUS is not an instruction"),
        ("COPY ignored.txt /app/\n", "ignored.txt is not in the build context"),
    ],
)
def test_what_a_rehearsal_refuses(tmp_path: Path, body: str, expected: str) -> None:
    files = {"data/a.txt": "a\n", "ignored.txt": "x\n", ".dockerignore": "# comment\nignored.txt\n"}
    plan = _plan(tmp_path, "FROM debian AS build\nFROM debian\n" + body, files=files)
    assert any(expected in p.message for p in plan.problems), plan.problems


def test_a_working_directory_in_the_system_directories_is_refused_with_the_fix(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "FROM node:20\nWORKDIR /usr/src/app\n")
    (problem,) = plan.problems
    assert "/usr/src/app lies under /usr" in problem.message
    assert "-D sandbox.docker.working_dir=/app" in problem.fix


def test_the_final_stage_replays_the_stages_it_is_built_from(tmp_path: Path) -> None:
    stages = "FROM debian AS base\nRUN echo base\nFROM alpine AS other\nRUN echo other\n"
    plan = _plan(tmp_path, stages + "FROM base\nRUN echo final\n")
    assert [s.script.strip() for s in plan.steps] == ["echo base", "echo final"]
    assert plan.base == "debian" and "1 other build stage(s) not replayed (only the final one)" in plan.notes


def test_an_image_only_task_has_nothing_to_replay(tmp_path: Path) -> None:
    plan = plan_replay(DockerConfig(image="python:3.12-slim", working_dir="/work"), Rehearsal(), tmp_path)
    assert plan.steps == [] and plan.problems == [] and plan.workdir == "/work"
    assert plan.notes == ["image python:3.12-slim: the host's system stands in for it; nothing to replay"]


def test_rehearsal_moves_a_docker_task_to_bubblewrap_and_refuses_tempdir() -> None:
    config = SandboxConfig.model_validate({"driver": "docker", "rehearsal": {"enabled": True}})
    assert config.driver == "bubblewrap"
    assert SandboxConfig.model_validate({"driver": "auto", "rehearsal": {}}).driver == "bubblewrap"
    assert SandboxConfig.model_validate({"driver": "docker", "rehearsal": {"enabled": False}}).driver == "docker"
    with pytest.raises(ValueError, match="driver tempdir cannot rehearse"):
        SandboxConfig.model_validate({"driver": "tempdir", "rehearsal": {"enabled": True}})
