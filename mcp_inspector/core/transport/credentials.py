"""``CredentialPolicy``: the one place credentials are bound to the origin the user named.

What the user gives us for a server (``-H`` headers, ``--bearer-token``, secrets in the URL)
and what we hold for it (the OAuth access token and DPoP proof, the ``Mcp-Session-Id`` it
gave us) go only to that server's origin (scheme, host, port: RFC 6454). Every request of
the HTTP transports goes through ``headers_for`` (``http_util.open_response``, at each
redirect hop), and the OAuth client asks ``allows`` before it adds a token: a redirect, an
HTTP+SSE ``endpoint`` event or anything else naming another origin gets none of them.

It also knows which of them are secrets (``secrets``) and has them masked wherever a server
echoes one (``masking.remember_secret``).
"""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlsplit

from ..base.errors import printable, quote_line
from ..base.masking import is_secret_name, mask_url, remember_secret

SHOWN_CHARS = 300  # characters of a server's URL quoted in a message
MIN_SECRET_CHARS = 6  # shorter secret values are not searched for in server text (too many false hits)

#: Headers that carry a credential or a session of ours, whoever set them (the user, the OAuth
#: client, the transport): never sent to another origin.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "dpop", "cookie", "mcp-session-id"})


def secret_values(headers: dict[str, str], url: str) -> list[str]:
    """The secrets a server might echo back (its error page quoting our request): the values of
    secret-looking headers (and the credential after ``Bearer``), the URL's password and secret
    query parameters. Longest first, for ``redact``."""
    found: set[str] = set()
    for name, value in headers.items():
        if is_secret_name(name):
            found.add(value.strip())
            parts = value.split(None, 1)
            if len(parts) == 2:
                found.add(parts[1].strip())
    try:
        parts_url = urlsplit(url)
        if parts_url.password:
            found.add(parts_url.password)
            found.add(unquote(parts_url.password))
        for key, value in parse_qsl(parts_url.query, keep_blank_values=True):
            if is_secret_name(key):
                found.add(value)
    except ValueError:
        pass
    return sorted((v for v in found if len(v) >= MIN_SECRET_CHARS), key=len, reverse=True)


def origin_of(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, the default port filled in; raises ValueError for an unusable one."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").lower(), port


def origin_text(url: str) -> str:
    """``http://127.0.0.1:8080``: a URL's origin as a person reads it (the URL masked when it does not parse)."""
    try:
        scheme, host, port = origin_of(url)
    except ValueError:
        return mask_url(url)
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" if port is None else f"{scheme}://{host}:{port}"


class CredentialPolicy:
    """The origin of ``url`` (the server the user named) and the names of the headers the
    user supplied for it: ``headers_for(url, headers)`` is what may go to ``url``."""

    def __init__(self, url: str, user_headers: dict[str, str] | None = None) -> None:
        self.url = url
        try:
            self.origin: tuple[str, str, int | None] | None = origin_of(url)
        except ValueError:
            self.origin = None  # a URL that does not parse is nobody's origin: nothing is sent
        self.user_names = frozenset(str(name).lower() for name in (user_headers or {}))
        #: the secrets among them (and in the URL), longest first: masked in server text we quote,
        #: and remembered (``remember_secret``) so that a server echoing one (a tool result, an error
        #: page) has it masked wherever it is written: recordings, reports, the screen
        self.secrets = secret_values({str(k): str(v) for k, v in (user_headers or {}).items()}, url)
        remember_secret(*self.secrets)

    @property
    def origin_text(self) -> str:
        return origin_text(self.url)

    def allows(self, url: str) -> bool:
        """May credentials for the user's server go to ``url``? Only on the same origin."""
        if self.origin is None:
            return False
        try:
            return origin_of(url) == self.origin
        except ValueError:
            return False

    def strip(self, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` without the user's headers and the credential headers (a copy)."""
        return {
            name: value
            for name, value in headers.items()
            if name.lower() not in self.user_names and name.lower() not in CREDENTIAL_HEADERS
        }

    def headers_for(self, url: str, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` as they may go to ``url``: all of them on the user's origin, else stripped."""
        return headers if self.allows(url) else self.strip(headers)

    def refusal(self, what: str, url: str) -> str:
        """Why ``url`` (a server's word, named by ``what``) is not used: both origins, in words
        of bounded length without control characters."""

        def shown(text: str) -> str:
            return quote_line(printable(text), SHOWN_CHARS)

        mine, theirs = self.origin_text, shown(origin_text(url))
        return (
            f"{what} {shown(mask_url(url))} is on another origin ({theirs}) than the server you named "
            f"({mine}): refused, so that what is sent to {mine} (your headers, bearer token, OAuth token, "
            f"session id) never reaches {theirs}"
        )
