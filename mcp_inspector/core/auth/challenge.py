"""``WWW-Authenticate`` challenges (RFC 9110 §11.6.1): what a 401 or 403 asks for.

A server may send several challenges in one header and several headers; each challenge is a
scheme followed by a token68 or by comma-separated ``name=value`` auth-params whose values are
tokens or quoted strings with backslash escapes. The parser is lenient (unquoted URLs, missing
commas between params) and never raises: garbage gives whatever could be read, maybe nothing.

``auth_challenge`` picks the Bearer or DPoP challenge a flow answers (RFC 6750, RFC 9449
§7.1); ``insufficient_scope`` recognises a step-up request (403, RFC 6750 §3.1).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

#: Bounds on what one response can make us parse (a hostile server sends megabytes of header).
MAX_HEADER_CHARS = 16_384
MAX_CHALLENGES = 64
MAX_PARAMS = 64

_TCHAR = frozenset("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_TOKEN68 = frozenset("-._~+/0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_WS = " \t\r\n"  # CR and LF too: obsolete line folding, and pasted examples
#: Schemes whose challenges an OAuth flow answers.
OAUTH_SCHEMES = ("bearer", "dpop")


@dataclass
class Challenge:
    scheme: str  # as sent ("Bearer", "DPoP"...); compare case-insensitively
    params: dict[str, str] = field(default_factory=dict)  # names lowercased, quoted strings unescaped
    token68: str | None = None  # ``Basic dXNlcg==``-style credentials instead of params

    def is_scheme(self, name: str) -> bool:
        return self.scheme.lower() == name.lower()

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def error_description(self) -> str | None:
        return self.params.get("error_description")

    @property
    def scope(self) -> str | None:
        return self.params.get("scope")

    @property
    def scopes(self) -> list[str]:
        return (self.scope or "").split()

    @property
    def resource_metadata(self) -> str | None:
        return self.params.get("resource_metadata")

    @property
    def algs(self) -> list[str]:
        """DPoP ``algs``: the proof algorithms the resource accepts (RFC 9449 §7.1)."""
        return (self.params.get("algs") or "").split()


class _Scanner:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.n = len(text)

    def at_end(self) -> bool:
        return self.i >= self.n

    def peek(self) -> str:
        return self.s[self.i] if self.i < self.n else ""

    def skip_ws(self) -> bool:
        start = self.i
        while self.i < self.n and self.s[self.i] in _WS:
            self.i += 1
        return self.i > start

    def run(self, chars: frozenset[str]) -> str:
        start = self.i
        while self.i < self.n and self.s[self.i] in chars:
            self.i += 1
        return self.s[start : self.i]

    def skip_to_comma(self) -> None:
        """Past garbage: to the next comma outside a quoted string (or the end)."""
        while self.i < self.n and self.s[self.i] != ",":
            if self.s[self.i] == '"':
                self.quoted()
            else:
                self.i += 1

    def quoted(self) -> str:
        """A quoted-string at ``i`` (which is ``"``), unescaped; unterminated: to the end."""
        self.i += 1
        out: list[str] = []
        while self.i < self.n:
            char = self.s[self.i]
            if char == "\\" and self.i + 1 < self.n:
                out.append(self.s[self.i + 1])
                self.i += 2
            elif char == '"':
                self.i += 1
                break
            else:
                out.append(char)
                self.i += 1
        return "".join(out)

    def value(self) -> str:
        """An auth-param value: quoted-string, else the run up to a comma or blank (lenient:
        servers send unquoted URLs)."""
        if self.peek() == '"':
            return self.quoted()
        start = self.i
        while self.i < self.n and self.s[self.i] != "," and self.s[self.i] not in _WS:
            self.i += 1
        return self.s[start : self.i]


def _token68_here(sc: _Scanner) -> str | None:
    """A token68 at the scanner (then the scanner is past it), else None (scanner unmoved)."""
    start = sc.i
    body = sc.run(_TOKEN68)
    pad = sc.run(frozenset("="))
    sc.skip_ws()
    if body and (sc.at_end() or sc.peek() == ","):
        return body + pad
    sc.i = start
    return None


def _parse_header(text: str, out: list[Challenge]) -> None:
    sc = _Scanner(text[:MAX_HEADER_CHARS])
    current: Challenge | None = None
    while not sc.at_end() and len(out) <= MAX_CHALLENGES:
        while not sc.at_end() and (sc.peek() == "," or sc.peek() in _WS):
            sc.i += 1
        if sc.at_end():
            break
        token = sc.run(_TCHAR)
        if not token:
            sc.skip_to_comma()
            continue
        after_token = sc.i
        sc.skip_ws()
        if sc.peek() == "=" and not sc.s.startswith("==", sc.i):
            # name=value: a parameter of the current challenge
            sc.i += 1
            sc.skip_ws()
            value = sc.value()
            if current is not None and current.token68 is None and len(current.params) < MAX_PARAMS:
                current.params.setdefault(token.lower(), value)  # RFC 9110: a name occurs once
            continue
        sc.i = after_token
        current = Challenge(token)
        out.append(current)
        if sc.skip_ws() and not sc.at_end() and sc.peek() != ",":
            token68 = _token68_here(sc)
            if token68 is not None:
                current.token68 = token68
    del out[MAX_CHALLENGES:]


def parse_www_authenticate(values: list[str] | tuple[str, ...] | str | None) -> list[Challenge]:
    """Every challenge of one or several ``WWW-Authenticate`` header values, in order."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    out: list[Challenge] = []
    for value in list(values)[:MAX_CHALLENGES]:
        if not isinstance(value, str):
            continue
        with contextlib.suppress(Exception):  # never raise on a hostile header; keep what was read
            _parse_header(value, out)
        if len(out) >= MAX_CHALLENGES:
            break
    return out[:MAX_CHALLENGES]


def auth_challenge(challenges: list[Challenge]) -> Challenge | None:
    """The first Bearer or DPoP challenge: the one an OAuth flow answers."""
    for challenge in challenges:
        if challenge.scheme.lower() in OAUTH_SCHEMES:
            return challenge
    return None


def insufficient_scope(status: int, challenges: list[Challenge]) -> Challenge | None:
    """The challenge of a 403 asking for more scopes (RFC 6750 §3.1), else None."""
    if status != 403:
        return None
    for challenge in challenges:
        if challenge.scheme.lower() in OAUTH_SCHEMES and (challenge.error or "").lower() == "insufficient_scope":
            return challenge
    return None
