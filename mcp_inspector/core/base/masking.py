"""Secrets kept out of sight: header values and URL query parameters that carry credentials.

Everything a person or a file can see (the HTTP view, the traffic log, recordings,
exports, error messages, "copy as command", ``ServerSpec.describe``) shows a
secret as its first few characters and a mask, never whole.

By name: secret headers and query parameters (``mask_header``, ``mask_url``), OAuth form and
JSON fields (``mask_oauth_fields``, ``mask_form``). By value: the secrets this process holds
(tokens, client secrets, codes: ``remember_secret``, called by the OAuth client and the token
store) are masked wherever they turn up (``scrub``), e.g. a server echoing a token in a tool
result or an error body; recordings and exports scrub every entry.
"""

from __future__ import annotations

import base64
import functools
import re
from urllib.parse import parse_qsl, quote, unquote_plus, urlencode, urlsplit, urlunsplit

MASK = "•••"

#: Header names whose values are always secret.
SECRET_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "dpop",
    }
)
#: Words that make a header or query parameter name secret wherever they appear in it.
#: (``code`` and ``device_code`` are; ``code_challenge`` and its ``_method`` are not: public by design, shown.)
_SECRET_WORDS = re.compile(
    r"token|secret|passw|api[-_]?key|apikey|auth|session|signature|sig$|^key$|credential|"
    r"assertion|code$|code_verifier",
    re.I,
)
#: ``Bearer abc...`` keeps its scheme readable.
_SCHEME = re.compile(r"^(Bearer|Basic|DPoP|Token|Digest)\s+", re.I)


@functools.lru_cache(maxsize=1024)  # a few names, asked per header of every exchange a proxy records
def is_secret_name(name: str) -> bool:
    lower = name.lower()
    return lower in SECRET_HEADERS or bool(_SECRET_WORDS.search(lower))


def mask_value(value: str, keep: int = 4) -> str:
    """``abcdef123456`` -> ``abcd•••`` (short values are masked whole); a value masked
    already is left as it is (masking twice shows the same)."""
    match = _SCHEME.match(value)
    scheme = match.group(0) if match else ""
    secret = value[len(scheme) :]
    if secret.endswith(MASK):
        return value
    if len(secret) <= keep * 2:
        return f"{scheme}{MASK}"
    return f"{scheme}{secret[:keep]}{MASK}"


#: Header names that look secret ("auth", "session") but are not: shown as they are.
PUBLIC_HEADERS = frozenset(
    {
        "mcp-session-id",  # an identifier the user needs to see; not a credential by itself
        "www-authenticate",
        "proxy-authenticate",  # a server's challenge: what the Auth view explains
    }
)


#: Header names whose value is a URL (a redirect to ``/callback?code=...``): masked as a URL.
URL_HEADERS = frozenset({"location", "content-location", "refresh"})


def mask_header(name: str, value: str) -> str:
    """The value of a header as it may be shown."""
    lower = name.lower()
    if lower in PUBLIC_HEADERS:
        return value
    if lower in URL_HEADERS:
        return mask_url(value)
    return mask_value(value) if is_secret_name(name) else value


def mask_headers(headers: list[tuple[str, str]] | dict[str, str]) -> list[tuple[str, str]]:
    pairs = headers.items() if isinstance(headers, dict) else headers
    return [(name, mask_header(name, value)) for name, value in pairs]


def _mask_pairs(text: str) -> str:
    """``a=1&token=xyz`` with the secret-named values masked (unchanged when none is)."""
    pairs = parse_qsl(text, keep_blank_values=True)
    if not any(is_secret_name(key) for key, _ in pairs):
        return text
    masked = urlencode([(key, mask_value(value) if is_secret_name(key) else value) for key, value in pairs])
    return masked.replace(quote(MASK), MASK)  # urlencode's safe= cannot keep non-ASCII: show the mask as such


def mask_url(url: str) -> str:
    """A URL with credentials in its userinfo, query parameters or fragment
    (``#access_token=...``, the implicit-grant shape) masked. A URL that does not
    parse keeps only what comes before its query and fragment."""
    try:
        parts = urlsplit(url)
    except ValueError:
        cut = min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=-1)
        return url if cut < 0 else f"{url[:cut]}?{MASK}"
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{MASK}@{host}" if ":" in userinfo else f"{MASK}@{host}"
    query = _mask_pairs(parts.query) if parts.query else parts.query
    fragment = _mask_pairs(parts.fragment) if "=" in parts.fragment else parts.fragment
    if netloc == parts.netloc and query == parts.query and fragment == parts.fragment:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))


#: The fields of OAuth requests and responses (form or JSON) that carry a credential.
OAUTH_SECRET_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "registration_access_token",
        "code",
        "code_verifier",
        "client_assertion",
        "assertion",
        "subject_token",
        "actor_token",
        "device_code",
        "password",
    }
)


def mask_oauth_fields(value: object) -> object:
    """A copy of a parsed OAuth document (JSON object, or form fields as a dict) with the
    credential fields masked; metadata fields such as ``token_endpoint`` are left alone."""
    if isinstance(value, dict):
        return {
            key: (mask_value(item) if isinstance(item, str) and key in OAUTH_SECRET_FIELDS else mask_oauth_fields(item))
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [mask_oauth_fields(item) for item in value]
    return value


#: The credentials an authorization server issues (in a response, ``code`` is an error code).
ISSUED_SECRET_FIELDS = frozenset(
    {
        "access_token",
        "refresh_token",
        "id_token",
        "client_secret",
        "registration_access_token",
        "device_code",
    }
)


def oauth_secret_values(value: object, fields: frozenset[str] = OAUTH_SECRET_FIELDS) -> list[str]:
    """The credentials in a parsed OAuth document or form (the values of ``fields``), for
    ``remember_secret``: a server echoing one (``error_description``...) is then masked too."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in fields and isinstance(item, str):
                found.append(item)
            else:
                found += oauth_secret_values(item, fields)
    elif isinstance(value, list):
        for item in value:
            found += oauth_secret_values(item, fields)
    return found


def header_secret_values(headers: list[tuple[str, str]] | dict[str, str]) -> list[str]:
    """The credentials in secret headers: the whole value and the part after a scheme
    (``Bearer``, ``Basic``, ``DPoP``...)."""
    found: list[str] = []
    for name, value in headers.items() if isinstance(headers, dict) else headers:
        if is_secret_name(name) and name.lower() not in PUBLIC_HEADERS:
            match = _SCHEME.match(value)
            credential = value[match.end() :] if match else value
            found.append(credential)
            if match and match.group(1).lower() == "basic":  # id:secret, each form-encoded (RFC 6749 §2.3.1)
                try:
                    pair = base64.b64decode(credential.strip(), validate=True).decode("utf-8")
                except (ValueError, UnicodeDecodeError):
                    continue
                secret = pair.partition(":")[2]
                found += [secret, unquote_plus(secret)]
    return found


def mask_form(text: str) -> str:
    """``grant_type=authorization_code&code=abc...`` with the credential fields masked."""
    pairs = parse_qsl(text, keep_blank_values=True)
    if not any(key in OAUTH_SECRET_FIELDS or is_secret_name(key) for key, _ in pairs):
        return text
    masked = urlencode(
        [
            (key, mask_value(value) if key in OAUTH_SECRET_FIELDS or is_secret_name(key) else value)
            for key, value in pairs
        ]
    )
    return masked.replace(quote(MASK), MASK)


# -- secrets this process holds, masked wherever they turn up ----------------------------------
#: At most this many values are remembered (the newest kept); values shorter than
#: ``MIN_REMEMBERED`` are not (masking every "abc" of a recording would hide more than it shows).
MAX_REMEMBERED = 512
MIN_REMEMBERED = 8
_remembered: dict[str, None] = {}  # insertion-ordered set
_longest_first: tuple[str, ...] = ()  # replaced whole: a thread scrubbing meanwhile sees one or the other


def remember_secret(*values: str | None) -> None:
    """Secrets this process holds (tokens, client secrets, codes, assertions): ``scrub`` masks
    them in any text, e.g. a tool result or an error body in which a server echoes one."""
    global _longest_first
    for value in values:
        if isinstance(value, str) and len(value.strip()) >= MIN_REMEMBERED:
            value = value.strip()
            _remembered.pop(value, None)
            _remembered[value] = None
            if len(_remembered) > MAX_REMEMBERED:
                del _remembered[next(iter(_remembered))]
    _longest_first = tuple(sorted(_remembered, key=len, reverse=True))


def known_secrets() -> list[str]:
    """The remembered secrets, longest first (so a secret inside a longer one is not masked first)."""
    return list(_longest_first)


def scrub(text: str, extra: list[str] | tuple[str, ...] = ()) -> str:
    """``text`` with every remembered secret (and each of ``extra``) masked where it appears."""
    candidates: tuple[str, ...] | list[str] = _longest_first
    if extra:
        candidates = sorted({*candidates, *(value for value in extra if value)}, key=len, reverse=True)
    for secret in candidates:
        if secret in text:
            text = text.replace(secret, mask_value(secret))
    return text


def scrub_bytes(raw: bytes) -> bytes:
    """``scrub`` on bytes (a frame as received): each remembered secret masked where it appears."""
    for secret in _longest_first:
        encoded = secret.encode("utf-8", "surrogatepass")
        if encoded in raw:
            raw = raw.replace(encoded, mask_value(secret).encode("utf-8"))
    return raw


def scrub_value(value: object, extra: list[str] | tuple[str, ...] = ()) -> object:
    """A copy of a parsed JSON value with ``scrub`` applied to every string in it (keys included)."""
    if not _longest_first and not extra:
        return value
    if isinstance(value, str):
        return scrub(value, extra)
    if isinstance(value, dict):
        return {
            scrub(key, extra) if isinstance(key, str) else key: scrub_value(item, extra) for key, item in value.items()
        }
    if isinstance(value, list):
        return [scrub_value(item, extra) for item in value]
    return value
