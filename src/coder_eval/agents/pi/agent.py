"""The `pi` implementation: one `pi --mode json -p` process per turn, resuming its session.

Pi reads its provider from a private `models.json` (an OpenAI-compatible provider at the
gateway's route), keeps its sessions in the private home, and starts with every network
look-up (version check, install ping, package updates) switched off.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.agents.base import Turn
from coder_eval.agents.cli_agent import CliAgent, Translator
from coder_eval.agents.pi.command import cli_env, run_argv, write_agent_dir
from coder_eval.agents.pi.config import PiConfig
from coder_eval.agents.pi.events import PiTranslator
from coder_eval.models.providers import public_endpoint


class PiAgent(CliAgent[PiConfig]):
    """One Pi session per unit; later turns continue it."""

    label = "Pi"

    def setup_home(self, home: Path) -> None:
        base_url = self.env.get("OPENAI_BASE_URL") or public_endpoint("openai")
        api_key = self.env.get("OPENAI_API_KEY") or "coder-eval-gateway"
        self.agent_dir = write_agent_dir(home, self.config, base_url, api_key)

    def turn_argv(self, turn: Turn) -> list[str]:
        assert self.cli is not None and self.home is not None
        sessions = self.home / "sessions"
        return run_argv(self.cli, self.config, prompt=turn.prompt, session_dir=sessions, session=self.session_id)

    def turn_env(self) -> dict[str, str]:
        assert self.home is not None
        return cli_env(self.env, self.home, self.agent_dir)

    def translator(self, turn: Turn) -> Translator:
        return PiTranslator(turn.emit)
