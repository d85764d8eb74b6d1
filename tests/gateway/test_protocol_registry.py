"""Wire protocols through the one Registry: each declares its paths, upstream and key variables."""

from __future__ import annotations

import subprocess
import sys
from typing import Any, ClassVar

import pytest
from aiohttp import web

from coder_eval.engine.gateway_link import real_api_keys
from coder_eval.gateway.protocol import PROTOCOLS, WireProtocol, protocol, protocol_for, register_protocol
from coder_eval.gateway.types import GatewayError, ModelReply, ModelRequest, Usage
from coder_eval.models.registry import RegistrationError, UnknownKindError

BUILTINS = {
    "anthropic": ("ANTHROPIC_API_KEY", "CODER_EVAL_UPSTREAM_ANTHROPIC", "anthropic"),
    "openai_chat": ("OPENAI_API_KEY", "CODER_EVAL_UPSTREAM_OPENAI_CHAT", "openai"),
    "openai_responses": ("OPENAI_API_KEY", "CODER_EVAL_UPSTREAM_OPENAI_RESPONSES", "openai"),
    "gemini": ("GEMINI_API_KEY", "CODER_EVAL_UPSTREAM_GEMINI", "google"),
}
"""Protocol -> (key variable, override variable, the built-in provider profile that serves it)."""


class EchoProtocol(WireProtocol):
    """A plugin's protocol: one path, its own key variable."""

    name: ClassVar[str] = "echo"
    paths: ClassVar[tuple[str, ...]] = (r"/echo/v\d+/complete",)
    upstream: ClassVar[str] = "https://echo.invalid"
    upstream_var: ClassVar[str] = "ECHO_UPSTREAM"
    api_key_var: ClassVar[str] = "ECHO_API_KEY"

    def parse(self, path: str, query: dict[str, str], body: dict[str, Any]) -> ModelRequest:
        return ModelRequest(protocol=self.name, model="m", raw=body)

    async def respond(self, http: web.Request, request: ModelRequest, reply: ModelReply) -> web.StreamResponse:
        return web.json_response({"text": reply.text})

    def error(self, err: GatewayError) -> web.Response:
        return web.json_response({"error": {"message": err.message}}, status=err.status)

    def usage_from_response(self, body: bytes, *, streamed: bool) -> tuple[Usage, str | None]:
        return Usage(), None


def test_builtins_declare_their_variables_and_upstreams() -> None:
    from coder_eval.gateway.providers import ProviderSet

    assert set(BUILTINS) <= set(PROTOCOLS.names())
    for name, (key_var, upstream_var, provider) in BUILTINS.items():
        cls = PROTOCOLS.get(name)
        assert (cls.name, cls.api_key_var, cls.upstream_var, cls.upstream) == (name, key_var, upstream_var, "")
        assert ProviderSet.build().choose(name, "any-model", {})[0] == provider  # a profile serves it
        assert type(protocol(name)) is cls and protocol(name) is protocol(name)


@pytest.mark.parametrize(
    ("method", "path", "owner"),
    [
        ("POST", "/v1/messages", "anthropic"),
        ("POST", "/v1/messages/count_tokens", "anthropic"),
        ("GET", "/v1/messages", None),
        ("POST", "/v1/messages/", None),
        ("POST", "/v1/chat/completions", "openai_chat"),
        ("POST", "/chat/completions/", "openai_chat"),
        ("POST", "/v2/chat/completions", None),
        ("POST", "/v1/responses", "openai_responses"),
        ("POST", "/responses", "openai_responses"),
        ("POST", "/v1/responses/abc", None),
        ("POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", "gemini"),
        ("POST", "/v1beta/models/gemini-2.5-pro:embedContent", None),
    ],
)
def test_owned_paths_come_from_the_declared_patterns(method: str, path: str, owner: str | None) -> None:
    found = protocol_for(method, path)
    assert (found.name if found else None) == owner


def test_builtins_load_lazily_one_module_per_lookup() -> None:
    code = (
        "import sys\n"
        "from coder_eval.gateway.protocol import PROTOCOLS\n"
        "mods = [f'coder_eval.gateway.{n}' for n in ('anthropic', 'openai_chat', 'openai_responses', 'gemini')]\n"
        "assert not any(m in sys.modules for m in mods), [m for m in mods if m in sys.modules]\n"
        "assert PROTOCOLS.get('gemini').name == 'gemini'\n"
        "print(sorted(m for m in mods if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "['coder_eval.gateway.gemini']"


def test_a_plugin_protocol_is_served_keyed_and_proxied_by_its_declarations(monkeypatch: pytest.MonkeyPatch) -> None:
    with PROTOCOLS.scratch():
        register_protocol(EchoProtocol)
        assert register_protocol(EchoProtocol) is EchoProtocol  # the same class again is a no-op
        assert type(protocol_for("POST", "/echo/v2/complete")) is EchoProtocol
        assert real_api_keys({"ECHO_API_KEY": "k1", "OPENAI_API_KEY": "k2"}) == {
            "echo": "k1",
            "openai_chat": "k2",
            "openai_responses": "k2",
        }
    assert protocol_for("POST", "/echo/v2/complete") is None
    assert "echo" not in PROTOCOLS.names()


def test_a_taken_name_or_a_missing_declaration_is_refused() -> None:
    class Impostor(EchoProtocol):
        name: ClassVar[str] = "anthropic"

    class Undeclared(EchoProtocol):
        name: ClassVar[str] = "undeclared"
        api_key_var: ClassVar[str] = ""

    with PROTOCOLS.scratch():
        with pytest.raises(RegistrationError, match="'anthropic' is already provided"):
            register_protocol(Impostor)
        with pytest.raises(TypeError, match="does not declare api_key_var"):
            register_protocol(Undeclared)
    with pytest.raises(UnknownKindError, match=r"unknown wire protocol 'antropic'\. Did you mean 'anthropic'"):
        PROTOCOLS.get("antropic")
