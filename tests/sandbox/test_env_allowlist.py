"""The sandbox environment is an allowlist; the Claude Code launcher hands the CLI exactly it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from coder_eval.agents.claude_code import options as opts
from coder_eval.sandbox.env_allowlist import allowlisted_env
from coder_eval.sandbox.tempdir import HostEnvironment

HARNESS = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": "/home/operator",
    "GITHUB_TOKEN": "ghp_secret",
    "MY_SERVICE_PASSWORD_HINT": "hunter2",
    "SOMETHING_INNOCENT": "still not allowed",
    "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
}


def test_only_allowed_names_pass() -> None:
    env = allowlisted_env(HARNESS, home="/sbx/home")
    assert env == {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
        "HOME": "/sbx/home",
        "TMPDIR": "/sbx/home/tmp",
    }


def test_the_task_names_what_else_passes() -> None:
    env = allowlisted_env(HARNESS, passthrough=["SOMETHING_INNOCENT", "NOT_SET"])
    assert env["SOMETHING_INNOCENT"] == "still not allowed" and "NOT_SET" not in env


def test_host_environment_starts_from_the_allowlist(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret-value")
    monkeypatch.setenv("RANDOM_NAME", "x")
    env = HostEnvironment(tmp_path).base_env()
    assert "AWS_SECRET_ACCESS_KEY" not in env and "RANDOM_NAME" not in env
    assert env["HOME"] != str(Path.home()) and Path(env["TMPDIR"]).is_dir()


def test_launcher_starts_the_cli_with_exactly_the_given_environment(tmp_path: Path) -> None:
    """The SDK merges os.environ into the options; blanked values plus the launcher's env -u undo it."""
    cli = tmp_path / "fake-cli"
    cli.write_text("#!/bin/sh\nenv\n")
    cli.chmod(0o755)
    wanted = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ANTHROPIC_BASE_URL": "http://127.0.0.1:1/t/x"}
    options_env, unset = opts.exact_env(wanted, harness=HARNESS)
    assert all(options_env[k] == "" for k in unset) and "GITHUB_TOKEN" in unset
    launcher, _ = opts.write_launcher(tmp_path, [str(cli)], unset)
    merged = {**HARNESS, **options_env}  # what the SDK hands the launcher
    out = subprocess.run([str(launcher)], env=merged, capture_output=True, text=True, timeout=10, check=True)
    seen = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    seen.pop("PWD", None)  # the shell's own
    assert seen == wanted
