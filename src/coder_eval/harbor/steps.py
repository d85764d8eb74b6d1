"""A multi-step Harbor task (`[[steps]]`, `steps/<name>/`) as one task of ours.

Harbor runs the steps in order in one environment: the agent gets a step's instruction, then that
step's verifier runs, then the next step starts. We have no scripted sequence of user turns, so
the decision (docs/harbor.md, "Multi-step tasks") is one task:

- the prompt holds every step's instruction in order, each under a heading naming the step;
- each step gets its own `harbor_verifier` criterion, run after the agent, on the step's tests:
  the shared `tests/` with the step's own `steps/<name>/tests/` laid over it, as Harbor uploads
  them, merged at import into `steps/<name>/verifier/`;
- Harbor's reward strategy decides the weights: the mean of the steps (the default) is equal
  weights; `final` makes the last step's verifier the only one that scores, the others informational.

What this cannot reproduce is listed as losses: verifiers run after all the steps, not between
them (a later step can undo an earlier one's work), `min_reward` cannot stop the sequence early,
and per-step agent timeouts, users, setup and work directories are not carried.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from coder_eval.errors import TaskConfigError

STEP_KEYS_CARRIED = frozenset({"name", "verifier"})


def step_names(config: dict[str, Any]) -> list[str]:
    steps = config.get("steps")
    if not isinstance(steps, list):
        return []
    return [str(s["name"]) for s in steps if isinstance(s, dict) and s.get("name")]


def step_prompt(source: Path, names: list[str], read: Callable[[Path], str]) -> str:
    """Every step's instruction in order, each under its heading (`read` decodes one instruction file)."""
    parts = [f"This task has {len(names)} steps. Do them in order; each is checked when you are done with all of them."]
    for i, name in enumerate(names, start=1):
        text = read(source / "steps" / name / "instruction.md")
        parts.append(f"## Step {i} of {len(names)}: {name}\n\n{text.strip()}")
    return "\n\n".join(parts) + "\n"


def step_criteria(
    config: dict[str, Any], source: Path, target: Path, losses: list[str], timeout: float
) -> list[dict[str, Any]]:
    """One harbor_verifier per step, on its merged tests (written under `target/steps/<name>/verifier/`)."""
    names = step_names(config)
    final = str(config.get("multi_step_reward_strategy") or "mean").lower() == "final"
    out: list[dict[str, Any]] = []
    for i, (name, step) in enumerate(zip(names, config["steps"], strict=True)):
        merged = target / "steps" / name / "verifier"
        for tests in (source / "tests", source / "steps" / name / "tests"):
            if tests.is_dir():
                shutil.copytree(tests, merged, symlinks=True, dirs_exist_ok=True)
        if not (merged / "test.sh").is_file():
            raise TaskConfigError.single(
                source, f"step {name!r} has no test.sh (neither steps/{name}/tests/ nor tests/ holds one)", "steps"
            )
        verifier = step.get("verifier") if isinstance(step.get("verifier"), dict) else {}
        criterion: dict[str, Any] = {
            "type": "harbor_verifier",
            "description": f"Harbor verifier of step {i + 1} ({name})",
            "tests_dir": f"steps/{name}/verifier",
            "timeout": float(verifier.get("timeout_sec") or timeout),
            "pass_threshold": 1.0,
        }
        env = verifier.get("env")
        if isinstance(env, dict) and env:
            criterion["env"] = {str(k): str(v) for k, v in env.items()}
        if final and i < len(names) - 1:
            criterion["weight"] = 0  # reward strategy `final`: only the last step scores
        out.append(criterion)
        dropped = sorted(set(step) - STEP_KEYS_CARRIED)
        if dropped:
            losses.append(f"[[steps]] {name}: {', '.join(dropped)} not imported")
    losses.append(
        "steps are given in one prompt and every step's verifier runs after the agent, not between steps "
        "(a later step can undo an earlier one's work; min_reward cannot stop the sequence)"
    )
    return out
