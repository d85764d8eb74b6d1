"""The scripted model behind Claude Code's own `claude plugin eval`, for comparing its grades with ours.

`claude plugin eval` starts one `claude -p` child per run (each case, each arm) and asks its judge
model for PASS or FAIL; all of it goes to ANTHROPIC_BASE_URL. `SuiteModel` answers on one gateway
route: a request with tools and a single message opens a conversation, played by a fresh
`ScriptedModel` on the script of the case whose prompt it carries (the same task.script.yaml
our run plays); a judge request (no tools) is answered PASS or FAIL from that script's `judges:`
verdict for the grader whose rubric the request quotes (a score of 0.5 or more passes, as our
llm_judge criteria do).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from coder_eval.agents.vocabularies import CLAUDE_CODE_TOOLS
from coder_eval.gateway.script import ScriptedModel
from coder_eval.gateway.script_file import load_script
from coder_eval.gateway.script_model import Script
from coder_eval.gateway.thread import GatewayThread
from coder_eval.gateway.types import ModelReply, ModelRequest

CLAUDE = Path(__import__("claude_agent_sdk").__file__).parent / "_bundled" / "claude"


@dataclass
class Case:
    prompt: str
    script: Script
    verdicts: dict[str, bool]
    """A grader's rubric -> whether the scripted judge passes it."""


def case_of(task_dir: Path) -> Case:
    """An imported case: its prompt, its script and each judge criterion's rubric with the scripted verdict."""
    task = yaml.safe_load((task_dir / "task.yaml").read_text(encoding="utf-8"))
    script = load_script(task_dir / "task.script.yaml")
    scores = {str(j.criterion): (j.verdict or {}).get("score", 0.0) for j in script.judges}
    verdicts = {}
    for criterion in task["success_criteria"]:
        if criterion["type"] == "llm_judge":
            rubric = criterion["prompt"].split("Criterion:\n", 1)[1]
            verdicts[rubric] = float(scores.get(criterion["description"], 0.0)) >= 0.5
    return Case(task["initial_prompt"], script, verdicts)


@dataclass
class SuiteModel:
    cases: list[Case]
    current: ScriptedModel | None = None
    conversations: int = 0
    judged: list[str] = field(default_factory=list)

    async def reply(self, request: ModelRequest) -> ModelReply:
        if not request.tools:
            return self._judge(request)
        if len(request.messages) == 1:
            text = request.messages[0].text
            case = next((c for c in self.cases if c.prompt in text), None)
            assert case is not None, f"no case's prompt in: {text[-300:]}"
            self.current = ScriptedModel(case.script, vocabulary=CLAUDE_CODE_TOOLS)
            self.conversations += 1
        assert self.current is not None
        return await self.current.reply(request)

    def _judge(self, request: ModelRequest) -> ModelReply:
        text = "\n".join(m.text for m in request.messages)
        for case in self.cases:
            for rubric, passes in case.verdicts.items():
                if rubric.strip() in text:
                    self.judged.append(rubric)
                    return ModelReply(text="PASS" if passes else "FAIL")
        return ModelReply(text="Scripted session")  # a side call (a title, a summary)


@contextmanager
def suite_gateway(cases: list[Case]) -> Iterator[tuple[str, SuiteModel]]:
    """The route URL Claude Code is pointed at, and the model answering it."""
    model = SuiteModel(cases)
    with GatewayThread("script") as gateway:
        route = gateway.gateway.open_route("plugin-eval", source=model)
        yield route.base_url, model


def claude_plugin_eval(
    plugin: Path, base_url: str, home: Path, out_json: Path, *extra: str, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """`claude plugin eval PLUGIN` against the route, offline, with a private HOME; its result as JSON."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "coder-eval-dummy",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
    }
    argv = [str(CLAUDE), "plugin", "eval", str(plugin), "--trust-plugin", "--no-publish", "--json", str(out_json)]
    return subprocess.run(
        [*argv, *extra], cwd=plugin, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
