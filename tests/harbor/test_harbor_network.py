"""Harbor's network settings and ours map onto each other both ways, for every mode."""

from __future__ import annotations

from typing import Any

import pytest

from coder_eval.harbor.network import export_network, import_network
from coder_eval.models.task import TaskDefinition


def _task(sandbox: dict[str, Any]) -> TaskDefinition:
    return TaskDefinition.model_validate(
        {
            "task_id": "t",
            "description": "d",
            "initial_prompt": "p",
            "sandbox": {"driver": "docker", **sandbox},
            "success_criteria": [{"type": "file_exists", "path": "x", "description": "x"}],
        }
    )


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ({}, {"network": "host"}),  # Harbor's default is a public network
        ({"environment": {"allow_internet": True}}, {"network": "host"}),
        ({"environment": {"allow_internet": False}}, {"network": "none"}),
        ({"environment": {"network_mode": "public"}}, {"network": "host"}),
        ({"environment": {"network_mode": "no-network"}}, {"network": "none"}),
        (
            {"environment": {"network_mode": "allowlist", "allowed_hosts": ["pypi.org", "https://files.example/x"]}},
            {"network": "allowlist", "allow_hosts": ["pypi.org", "files.example"]},
        ),
        # the agent's phase wins over the environment's baseline
        (
            {
                "environment": {"network_mode": "no-network"},
                "agent": {"network_mode": "allowlist", "allowed_hosts": ["a.example"]},
            },
            {"network": "allowlist", "allow_hosts": ["a.example"]},
        ),
        ({"environment": {"network_mode": "public", "allow_internet": False}}, {"network": "host"}),
    ],
)
def test_import(toml: dict[str, Any], expected: dict[str, Any]) -> None:
    notes: list[str] = []
    assert import_network(toml, notes) == expected
    _task(expected)  # what the importer writes validates


def test_import_says_what_it_does_not_carry() -> None:
    notes: list[str] = []
    toml = {
        "environment": {"network_mode": "allowlist", "allowed_hosts": ["bad host!"]},
        "verifier": {"network_mode": "public"},
    }
    assert import_network(toml, notes) == {"network": "allowlist", "allow_hosts": []}
    assert any("bad host!" in n for n in notes) and any("verifier.network_mode 'public'" in n for n in notes)
    with pytest.raises(ValueError, match="network_mode 'open'"):
        import_network({"environment": {"network_mode": "open"}}, [])


@pytest.mark.parametrize(
    ("sandbox", "expected"),
    [
        ({}, {"network_mode": "allowlist", "allowed_hosts": []}),  # our default under docker
        ({"allow_hosts": ["pypi.example:443"]}, {"network_mode": "allowlist", "allowed_hosts": ["pypi.example:443"]}),
        ({"network": "none"}, {"network_mode": "no-network", "allow_internet": False}),
        ({"docker": {"network": "none"}}, {"network_mode": "no-network", "allow_internet": False}),
        ({"network": "host"}, {"network_mode": "public", "allow_internet": True}),
        ({"docker": {"network": "bridge"}}, {"network_mode": "public", "allow_internet": True}),
    ],
)
def test_export(sandbox: dict[str, Any], expected: dict[str, Any]) -> None:
    notes: list[str] = []
    assert export_network(_task(sandbox), notes) == expected
    assert bool(notes) == (expected["network_mode"] == "allowlist")


@pytest.mark.parametrize("sandbox", [{"network": "none"}, {"network": "host"}, {"allow_hosts": ["a.example"]}])
def test_round_trip_keeps_the_policy(sandbox: dict[str, Any]) -> None:
    task = _task(sandbox)
    exported = export_network(task, [])
    back = import_network({"environment": exported}, [])
    assert back["network"] == (sandbox.get("network") or "allowlist")
    assert back.get("allow_hosts", []) == list(task.sandbox.allow_hosts)
