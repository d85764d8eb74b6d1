"""The `gemini-cli` implementation: one `gemini -p ... -o stream-json` process per turn.

The CLI reaches the gateway through GOOGLE_GEMINI_BASE_URL, authenticates with the route token
as its API key, runs in yolo approval mode (plan mode for `permission_mode: plan`), and gets a
private home whose settings switch telemetry and update checks off. Headless Gemini CLI exits
55 in a folder it does not trust, so the workspace is marked trusted for the run.
"""

from __future__ import annotations

from pathlib import Path

from coder_eval.agents.base import Turn
from coder_eval.agents.cli_agent import CliAgent, Translator
from coder_eval.agents.gemini_cli.command import cli_env, run_argv, write_home
from coder_eval.agents.gemini_cli.config import GeminiCliConfig
from coder_eval.agents.gemini_cli.events import GeminiTranslator


class GeminiCliAgent(CliAgent[GeminiCliConfig]):
    """One Gemini CLI session per unit; later turns resume it."""

    label = "Gemini CLI"

    def setup_home(self, home: Path) -> None:
        write_home(home, self.config)

    def turn_argv(self, turn: Turn) -> list[str]:
        assert self.cli is not None
        return run_argv(self.cli, self.config, prompt=turn.prompt, session=self.session_id)

    def turn_env(self) -> dict[str, str]:
        assert self.home is not None
        return cli_env(self.env, self.home)

    def translator(self, turn: Turn) -> Translator:
        return GeminiTranslator(turn.emit)
