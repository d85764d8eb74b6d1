"""A Harbor `task.toml` read into the parts of our task file, with every setting we do not carry listed.

`Conversion` collects what each section becomes and, in `losses`, one line per setting that is
dropped or only approximated, so the import report is the whole story. Sections and keys not
named here are listed as not imported, whatever they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

SETUP_SLACK_SEC = 600.0
"""Harbor's default environment build timeout: the image build and set-up share the unit's deadline."""

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)?\s*$", re.IGNORECASE)
_FACTOR_MB = {"k": 1 / 1024, "m": 1.0, "g": 1024.0, "t": 1024.0 * 1024}
_HOST_VALUE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}")

HANDLED: dict[str, frozenset[str]] = {
    "metadata": frozenset({"tags", "keywords", "difficulty", "category", "task_id", "description"}),
    "task": frozenset({"name", "description"}),
    "agent": frozenset({"timeout_sec", "network_mode", "allowed_hosts"}),
    "verifier": frozenset({"timeout_sec", "env", "network_mode", "environment_mode"}),
    "environment": frozenset(
        {
            "docker_image",
            "cpus",
            "memory_mb",
            "memory",
            "storage_mb",
            "storage",
            "allow_internet",
            "network_mode",
            "allowed_hosts",
            "workdir",
            "env",
            "build_timeout_sec",
        }
    ),
    "solution": frozenset({"env"}),
    "steps": frozenset(),  # a list of tables, read by harbor/steps.py (its own losses)
    "multi_step_reward_strategy": frozenset(),
}
INFORMATIONAL: frozenset[str] = frozenset({"version", "schema_version"})
SEPARATE_NOTE = (
    "[verifier] environment_mode separate: the verifier runs in the agent's sandbox once every process the "
    "agent left is ended (not in a fresh copy of the environment holding only the artifacts)"
)


def size_mb(value: Any) -> int | None:
    """A Harbor size (`4G`, `512M`, `2Gi`; a bare number is MB) in MB, or None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value) if value > 0 else None
    match = _SIZE.match(str(value))
    if match is None:
        return None
    number, unit = float(match.group(1)), match.group(2).lower()
    mb = number * _FACTOR_MB[unit] if unit else number
    return max(1, round(mb)) if mb > 0 else None


@dataclass
class Conversion:
    config: dict[str, Any]
    losses: list[str] = field(default_factory=list)

    def section(self, name: str) -> dict[str, Any]:
        value = self.config.get(name)
        return value if isinstance(value, dict) else {}

    def unhandled(self) -> None:
        """List every section and key this importer does not read."""
        for key, value in self.config.items():
            if key in INFORMATIONAL or key == "artifacts":  # artifacts: said by separate_verifier
                continue
            known = HANDLED.get(key)
            if known is None:
                keys = f" ({', '.join(value)})" if isinstance(value, dict) else ""
                self.losses.append(f"[{key}] is not imported{keys}")
                continue
            if isinstance(value, dict):
                for sub in value:
                    if sub not in known and key != "metadata":
                        self.losses.append(f"[{key}] {sub} is not imported")
        extra_meta = sorted(set(self.section("metadata")) - HANDLED["metadata"])
        if extra_meta:
            self.losses.append(f"[metadata] {', '.join(extra_meta)}: informational, not kept")

    def separate_verifier(self) -> bool:
        """Whether Harbor gives the verifier an environment of its own (the agent's services gone)."""
        verifier = self.section("verifier")
        mode = verifier.get("environment_mode")
        separate = mode == "separate" or (mode is None and isinstance(verifier.get("environment"), dict))
        if separate:
            self.losses.append(SEPARATE_NOTE)
        if "artifacts" in self.config:
            self.losses.append("artifacts: not collected (the verifier grades the workspace itself)")
        return separate

    def env_table(self, section: str) -> dict[str, str]:
        """`[section] env` as literal variables; values Harbor fills from the host are listed as losses."""
        raw = self.section(section).get("env") or {}
        if not isinstance(raw, dict):
            self.losses.append(f"[{section}] env is not a table; ignored")
            return {}
        out: dict[str, str] = {}
        for name, value in raw.items():
            text = str(value)
            if _HOST_VALUE.search(text):
                self.losses.append(
                    f"[{section}] env {name} = {text!r} is taken from the host by Harbor; not carried "
                    "(pass it with sandbox.env_passthrough and set it in the environment that runs the task)"
                )
            else:
                out[str(name)] = text
        return out

    def limits(self) -> dict[str, Any]:
        env = self.section("environment")
        limits: dict[str, Any] = {}
        if env.get("cpus"):
            limits["max_cpus"] = float(env["cpus"])
        memory = env.get("memory_mb") or env.get("memory")
        if memory:
            converted = size_mb(memory)
            if converted is None:
                self.losses.append(f"[environment] memory {memory!r} is not a size; set sandbox.limits.max_memory_mb")
            else:
                limits["max_memory_mb"] = converted
        storage = env.get("storage_mb") or env.get("storage")
        if storage:
            converted = size_mb(storage)
            if converted is None:
                self.losses.append(f"[environment] storage {storage!r} is not a size; set sandbox.limits.max_disk_mb")
            else:
                limits["max_disk_mb"] = converted
        return limits

    def working_dir(self) -> str:
        """`[environment] workdir`, else the image's own WORKDIR (`auto`)."""
        workdir = self.section("environment").get("workdir")
        return str(workdir) if isinstance(workdir, str) and workdir.startswith("/") else "auto"

    def run_limits(self) -> dict[str, float]:
        """The agent's time as the turn's limit; the task's deadline also covers set-up and the verifier."""
        agent = _seconds(self.section("agent").get("timeout_sec"))
        if agent is None:
            return {}
        return {"turn_timeout": agent, "task_timeout": agent + self.verifier_timeout() + self.setup_timeout()}

    def setup_timeout(self) -> float:
        return _seconds(self.section("environment").get("build_timeout_sec")) or SETUP_SLACK_SEC

    def verifier_timeout(self) -> float:
        return _seconds(self.section("verifier").get("timeout_sec")) or 600.0


def _seconds(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None
