"""Take the credential out of a URL-bearing setting and keep the rest of it.

A package index or proxy setting often carries its credential inside the URL:
`https://user:password@index.example/simple`, `https://TOKEN@index.example/simple`,
`http://user:pass@proxy:3128`, `https://index.example/simple?token=…`. `strip_url_credentials`
returns the value with the user information and every credential-named query parameter removed
(an anonymous index or proxy at the same address still works) together with the pieces it
removed, so that a caller which can hold them somewhere safe (an egress proxy outside the unit)
may; nothing here logs or prints them. A value may hold several URLs (pip's
`PIP_EXTRA_INDEX_URL` takes a space-separated list): each is cleaned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SEPARATOR = re.compile(r"([\s,]+)")
"""Between the URLs of one value: pip and uv take space-separated lists, some tools commas."""
_URL = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]{0,31}://)"
    r"(?P<authority>[^/?#]*)"
    r"(?P<path>[^?#]*)"
    r"(?P<query>\?[^#]*)?"
    r"(?P<fragment>#.*)?",
    re.DOTALL,
)
_SECRET_PARAMETER = re.compile(r"token|key|secret|passw|pwd|auth|sig|credential|session", re.IGNORECASE)


@dataclass(frozen=True)
class Stripped:
    """A value with its credentials taken out, and what was taken (kept out of repr and logs)."""

    value: str
    kinds: tuple[str, ...] = ()
    """What was removed, in words for a warning (`user information in a URL`), never the value."""
    removed: tuple[str, ...] = field(default=(), repr=False)
    """The removed pieces themselves, for a holder outside the unit. Never log them."""

    @property
    def changed(self) -> bool:
        return bool(self.kinds)


def strip_url_credentials(value: str, *, bare_authority: bool = False) -> Stripped:
    """`value` with the user information of every URL in it, and every query parameter whose name
    says credential (token, key, secret, password, auth, signature, session), removed.

    `bare_authority` also strips `user:pass@` from a scheme-less `user:pass@host:port` (proxy
    settings accept that form; for other settings `a@b` is more likely an e-mail address).
    """
    if "@" not in value and "?" not in value:  # nearly every value: nothing to look at
        return Stripped(value)
    kinds: list[str] = []
    removed: list[str] = []
    pieces = _SEPARATOR.split(value)
    for i in range(0, len(pieces), 2):  # the odd places hold the separators
        pieces[i] = _clean_piece(pieces[i], kinds, removed, bare_authority=bare_authority)
    return Stripped("".join(pieces), tuple(dict.fromkeys(kinds)), tuple(removed))


def _clean_piece(piece: str, kinds: list[str], removed: list[str], *, bare_authority: bool) -> str:
    """One URL (or scheme-less `user@host:port`) of a value, without its credentials."""
    match = _URL.search(piece)  # uv also takes `name=URL`
    if match is None:
        head, at, rest = piece.rpartition("@")
        if bare_authority and at and head and "/" not in head and rest and not rest.startswith("/"):
            removed.append(head)
            kinds.append("user information before a host")
            return rest
        return piece
    authority = match.group("authority")
    userinfo, at, host = authority.rpartition("@")
    if at:
        removed.append(userinfo)
        kinds.append("user information in a URL")
        authority = host
    query = _clean_query(match.group("query") or "", kinds, removed)
    head = piece[: match.start()]
    return head + match.group("scheme") + authority + match.group("path") + query + (match.group("fragment") or "")


def _clean_query(query: str, kinds: list[str], removed: list[str]) -> str:
    if not query:
        return ""
    kept = []
    for pair in query[1:].split("&"):
        name = pair.split("=", 1)[0]
        if _SECRET_PARAMETER.search(name):
            removed.append(pair)
            kinds.append(f"a {name!r} query parameter")
        else:
            kept.append(pair)
    return "?" + "&".join(kept) if kept else ""
