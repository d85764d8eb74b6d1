"""Execute the composite action in action.yml the way a GitHub runner does, on this machine.

Each step's `${{ ... }}` expressions (inputs, github.action_path, earlier steps' outputs) are
evaluated, its `env:` is set, and its script runs under `bash --noprofile --norc -eo pipefail`
with a fresh GITHUB_OUTPUT file per step and one shared GITHUB_STEP_SUMMARY. `if: always()`
steps run after a failure; other steps are skipped, as on GitHub.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class StepRun:
    step_id: str
    returncode: int | None
    stdout: str = ""
    stderr: str = ""


@dataclass
class ActionRun:
    steps: list[StepRun] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: str = ""

    @property
    def failed(self) -> bool:
        return any(s.returncode not in (None, 0) for s in self.steps)

    def log(self) -> str:
        return "\n".join(f"--- {s.step_id} rc={s.returncode}\n{s.stdout}\n{s.stderr}" for s in self.steps)


def _read_outputs(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def run_action(
    action_dir: Path,
    inputs: dict[str, str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float = 600,
) -> ActionRun:
    spec: dict[str, Any] = yaml.safe_load((action_dir / "action.yml").read_text(encoding="utf-8"))
    assert spec["runs"]["using"] == "composite"
    values = {name: str(decl.get("default", "")) for name, decl in spec["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values.update(inputs)
    step_outputs: dict[str, dict[str, str]] = {}
    summary = cwd / "step_summary.md"
    summary.write_text("", encoding="utf-8")

    def evaluate(expr: str) -> str:
        if expr.startswith("inputs."):
            return values[expr.removeprefix("inputs.")]
        if expr == "github.action_path":
            return str(action_dir)
        match = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr)
        if match:
            return step_outputs.get(match[1], {}).get(match[2], "")
        raise AssertionError(f"expression the runner does not model: {expr}")

    def substitute(text: str) -> str:
        return EXPR.sub(lambda m: evaluate(m[1]), text)

    result = ActionRun()
    for index, step in enumerate(spec["runs"]["steps"]):
        step_id = step.get("id", f"step{index}")
        condition = step.get("if", "success()")
        if result.failed and condition != "always()":
            result.steps.append(StepRun(step_id, None))
            continue
        assert step.get("shell") == "bash", f"step {step_id}: only bash steps are modelled"
        output_file = cwd / f"github_output_{index}"
        output_file.write_text("", encoding="utf-8")
        step_env = {
            **env,
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_ACTION_PATH": str(action_dir),
            "GITHUB_ACTIONS": "true",
            **{k: substitute(str(v)) for k, v in step.get("env", {}).items()},
        }
        script = cwd / f"step_{index}.sh"
        script.write_text(substitute(step["run"]), encoding="utf-8")
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=cwd,
            env=step_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        step_outputs[step_id] = _read_outputs(output_file)
        result.steps.append(StepRun(step_id, proc.returncode, proc.stdout, proc.stderr))
    result.outputs = {name: substitute(str(decl["value"])) for name, decl in spec["outputs"].items()}
    result.summary = summary.read_text(encoding="utf-8")
    return result


def base_env(path_prefix: list[Path]) -> dict[str, str]:
    """The caller's environment with `path_prefix` first on PATH and no inherited backend."""
    env = {k: v for k, v in os.environ.items() if k not in ("API_BACKEND", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([*map(str, path_prefix), env.get("PATH", "")])
    return env
