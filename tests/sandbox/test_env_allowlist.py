"""The sandbox environment is an allowlist; the Claude Code launcher hands the CLI exactly it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from coder_eval.agents.claude_code import options as opts
from coder_eval.sandbox.env_allowlist import allowlisted_env, withheld_credentials
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


# --- credentials in network settings ----------------------------------------------------------

NETWORK = {
    "PATH": "/usr/bin:/bin",
    "PIP_INDEX_URL": "https://user:pipsecret1@index.example/simple",
    "PIP_EXTRA_INDEX_URL": "https://a:extrasecret2@one.example/simple https://three.example/simple",
    "UV_INDEX_URL": "https://uvtoken3secret@index.example/simple",
    "HTTPS_PROXY": "http://proxyuser:proxysecret4@proxy.example:3128",
    "http_proxy": "proxyuser:proxysecret5@proxy.example:3128",
    "npm_config_registry": "https://registry.example/npm/?_authToken=npmsecret6",
    "NO_PROXY": "localhost,127.0.0.1,.example",
    "no_proxy": "user:kept@weird-but-a-host-list",
    "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt",
}
SECRETS = ("pipsecret1", "extrasecret2", "uvtoken3secret", "proxysecret4", "proxysecret5", "npmsecret6")


def test_network_settings_reach_the_unit_without_their_credentials() -> None:
    env = allowlisted_env(NETWORK)
    assert env["PIP_INDEX_URL"] == "https://index.example/simple"
    assert env["PIP_EXTRA_INDEX_URL"] == "https://one.example/simple https://three.example/simple"
    assert env["UV_INDEX_URL"] == "https://index.example/simple"
    assert env["HTTPS_PROXY"] == "http://proxy.example:3128"
    assert env["http_proxy"] == "proxy.example:3128"
    assert env["npm_config_registry"] == "https://registry.example/npm/"
    assert env["NO_PROXY"] == NETWORK["NO_PROXY"] and env["no_proxy"] == NETWORK["no_proxy"]  # host lists
    assert env["SSL_CERT_FILE"] == NETWORK["SSL_CERT_FILE"]
    assert not any(secret in value for value in env.values() for secret in SECRETS)


def test_withheld_credentials_name_the_variable_and_hand_back_what_was_removed() -> None:
    withheld = {w.variable: w for w in withheld_credentials(NETWORK)}
    assert set(withheld) == {
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "UV_INDEX_URL",
        "HTTPS_PROXY",
        "http_proxy",
        "npm_config_registry",
    }
    assert withheld["PIP_INDEX_URL"].removed == ("user:pipsecret1",)  # for a holder outside the unit
    for w in withheld.values():
        message = w.message()
        assert w.variable in message and "without the credential" in message
        assert not any(secret in message or secret in repr(w) for secret in SECRETS)


def test_passed_through_settings_are_cleaned_and_credential_settings_withheld() -> None:
    source = {
        **NETWORK,
        "UV_INDEX_PRIVATE_PASSWORD": "uvpassword7",
        "npm_config__authToken": "npmtoken8",
        "MY_MIRROR": "https://m:mirrorsecret9@mirror.example/",
        "GITHUB_TOKEN": "ghp_the_author_asked_for_this",
    }
    names = ["UV_INDEX_PRIVATE_PASSWORD", "npm_config__authToken", "MY_MIRROR", "GITHUB_TOKEN"]
    env = allowlisted_env(source, passthrough=names)
    assert "UV_INDEX_PRIVATE_PASSWORD" not in env and "npm_config__authToken" not in env
    assert env["MY_MIRROR"] == "https://mirror.example/"
    assert env["GITHUB_TOKEN"] == "ghp_the_author_asked_for_this"  # not a network setting: the author's call
    dropped = {w.variable: w for w in withheld_credentials(source, passthrough=names) if w.dropped}
    assert set(dropped) == {"UV_INDEX_PRIVATE_PASSWORD", "npm_config__authToken"}
    assert "units do not get it" in dropped["npm_config__authToken"].message()


def test_every_way_into_a_unit_gets_the_clean_value(monkeypatch, tmp_path: Path) -> None:
    """The host environment (commands, judges' copies), re-grading's given environment, criteria."""
    from coder_eval.criteria.base import CheckContext

    for name, value in NETWORK.items():
        monkeypatch.setenv(name, value)
    host = HostEnvironment(tmp_path).base_env()
    regrade = HostEnvironment(tmp_path, base_env=dict(NETWORK)).base_env()
    criteria = CheckContext(root=tmp_path).command_env()
    for env in (host, regrade, criteria):
        assert env["PIP_INDEX_URL"] == "https://index.example/simple"
        assert not any(secret in value for value in env.values() for secret in SECRETS)
