"""Credentials come out of URL-bearing settings; the rest of each URL stays as it was."""

from __future__ import annotations

import pytest

from coder_eval.common.url_credentials import strip_url_credentials


@pytest.mark.parametrize(
    ("value", "clean", "removed"),
    [
        pytest.param(
            "https://user:password@index.example/simple",
            "https://index.example/simple",
            ("user:password",),
            id="user-pass",
        ),
        pytest.param(
            "https://ghp_tok3n@index.example/simple/", "https://index.example/simple/", ("ghp_tok3n",), id="token"
        ),
        pytest.param(
            "https://us%40er:p%40ss%2Fw%3Ard@index.example:8443/simple",
            "https://index.example:8443/simple",
            ("us%40er:p%40ss%2Fw%3Ard",),
            id="percent-encoded",
        ),
        pytest.param("https://a:b:c@host/x", "https://host/x", ("a:b:c",), id="colon-in-password"),
        pytest.param("https://a@b@host/x", "https://host/x", ("a@b",), id="at-in-userinfo"),
        pytest.param("http://user:pass@proxy.corp:3128", "http://proxy.corp:3128", ("user:pass",), id="proxy"),
        pytest.param(
            "https://index.example/simple?token=abc123&format=json",
            "https://index.example/simple?format=json",
            ("token=abc123",),
            id="query-token",
        ),
        pytest.param(
            "https://bucket.example/pkgs?X-Amz-Signature=f00&X-Amz-Credential=k",
            "https://bucket.example/pkgs",
            ("X-Amz-Signature=f00", "X-Amz-Credential=k"),
            id="signed-url",
        ),
        pytest.param(
            "internal=https://u:p@index.example/simple",
            "internal=https://index.example/simple",
            ("u:p",),
            id="uv-named",
        ),
        pytest.param("https://u:p@host/x#frag", "https://host/x#frag", ("u:p",), id="fragment"),
    ],
)
def test_the_credential_goes_and_the_url_stays(value: str, clean: str, removed: tuple[str, ...]) -> None:
    stripped = strip_url_credentials(value)
    assert stripped.value == clean and stripped.removed == removed and stripped.changed


def test_several_urls_in_one_value_are_each_cleaned() -> None:
    value = "https://a:b@one.example/simple  https://tok@two.example/simple\thttps://three.example/simple"
    stripped = strip_url_credentials(value)
    assert stripped.value == "https://one.example/simple  https://two.example/simple\thttps://three.example/simple"
    assert stripped.removed == ("a:b", "tok")


def test_urls_without_credentials_are_untouched() -> None:
    for value in (
        "https://index.example/simple",
        "https://registry.example/@scope/pkg",  # an @ in the path is not user information
        "https://index.example/simple?format=json",
        "/opt/wheels file:///opt/more-wheels",
        "localhost,127.0.0.1,.corp.example",
        "",
    ):
        stripped = strip_url_credentials(value, bare_authority=True)
        assert stripped.value == value and not stripped.changed and not stripped.removed


def test_scheme_less_proxy_user_information_only_when_asked() -> None:
    assert strip_url_credentials("user:pass@proxy:3128", bare_authority=True).value == "proxy:3128"
    assert strip_url_credentials("me@example.com").value == "me@example.com"


def test_what_was_removed_never_shows_in_repr() -> None:
    stripped = strip_url_credentials("https://user:hunter2secret@index.example/simple")
    assert "hunter2secret" not in repr(stripped) and "hunter2secret" not in str(stripped.kinds)
