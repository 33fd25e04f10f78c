"""``AuthSettings`` from what the user wrote: the command line's flags (``cli/target.py``) and
a config entry's ``auth`` object (``core/config/servers.py``) use the same names:

    client_id, client_secret, client_metadata_url, client_key (a PEM file), client_auth_method,
    scope (a string or a list), oauth_open, oauth_grant, assertion (a file, "-": stdin),
    idp_issuer, idp_token_endpoint, idp_client_id, idp_client_secret, id_token (a file),
    dpop (true/false), auth_store, oauth_timeout (seconds), redirect_port

Dashes or underscores, and camelCase (``clientId``), are accepted in a config file. A bad value
raises ``OptionError`` naming the option; files are read here (bounded), so a missing one is
said before connecting.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from typing import Any

from .model import GRANTS, OPEN_MODES, STORES, TOKEN_AUTH_METHODS, AuthSettings

SECRET_ENV = "MCP_INSPECTOR_CLIENT_SECRET"
FILE_LIMIT = 1 << 20  # bytes read from a key, assertion or ID token file


class OptionError(ValueError):
    """A bad authorization option (the message names it)."""


FIELDS = (
    "client_id",
    "client_secret",
    "client_metadata_url",
    "client_key",
    "client_auth_method",
    "scope",
    "oauth_open",
    "oauth_grant",
    "assertion",
    "idp_issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_client_secret",
    "id_token",
    "dpop",
    "auth_store",
    "oauth_timeout",
    "redirect_port",
)


def normal_name(name: str) -> str:
    """``clientId`` / ``client-id`` / ``client_id`` -> ``client_id``."""
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    return name.replace("-", "_")


def read_text_file(path: str, what: str, *, stdin: bool = False) -> str:
    """A small text file's content (``-`` is stdin when allowed), stripped."""
    try:
        if path == "-" and stdin:
            text = sys.stdin.read(FILE_LIMIT + 1)
        else:
            with open(os.path.expanduser(path), "rb") as handle:
                data = handle.read(FILE_LIMIT + 1)
            text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise OptionError(f"{what} {path}: not UTF-8 text") from None
    except OSError as exc:
        raise OptionError(f"{what} {path}: {exc.strerror or exc}") from None
    if len(text) > FILE_LIMIT:
        raise OptionError(f"{what} {path}: over {FILE_LIMIT} bytes")
    text = text.strip()
    if not text:
        raise OptionError(f"{what} {path}: empty")
    return text


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise OptionError(f"{what}: expected a non-empty string")
    if any(char in value for char in "\r\n\0"):
        raise OptionError(f"{what}: contains a line break")
    return value.strip()


def _choice(value: Any, what: str, choices: tuple[str, ...]) -> str:
    text = _string(value, what)
    if text not in choices:
        raise OptionError(f"{what}: {text!r} is not one of {', '.join(choices)}")
    return text


def _url(value: Any, what: str) -> str:
    from urllib.parse import urlsplit

    text = _string(value, what)
    try:
        parts = urlsplit(text)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise OptionError(f"{what}: not an http(s) URL")
    return text


def settings_from(
    values: dict[str, Any],
    *,
    flag: Callable[[str], str] = lambda name: name,
    environ: dict[str, str] | None = None,
    checked: bool = True,
) -> AuthSettings:
    """AuthSettings from ``values`` (field name -> value, None: not given); ``flag(name)`` is
    how a message names the option (``--client-id`` on the command line)."""
    environ = os.environ if environ is None else environ
    given = {normal_name(key): value for key, value in values.items() if value is not None}
    unknown = sorted(set(given) - set(FIELDS))
    if unknown:
        raise OptionError(f"unknown authorization option {flag(unknown[0])} (known: {', '.join(FIELDS)})")
    settings = AuthSettings()
    for name in ("client_id", "idp_client_id"):
        if name in given:
            setattr(settings, name, _string(given[name], flag(name)))
    for name in ("client_secret", "idp_client_secret"):
        if name in given:
            setattr(settings, name, _string(given[name], flag(name)))
    if settings.client_secret is None and settings.client_id and environ.get(SECRET_ENV):
        settings.client_secret = _string(environ[SECRET_ENV], f"${SECRET_ENV}")
    for name in ("client_metadata_url", "idp_issuer", "idp_token_endpoint"):
        if name in given:
            setattr(settings, name, _url(given[name], flag(name)))
    if "client_key" in given:
        settings.private_key_pem = read_text_file(_string(given["client_key"], flag("client_key")), flag("client_key"))
        if "PRIVATE KEY" not in settings.private_key_pem:
            raise OptionError(f"{flag('client_key')}: not a PEM private key")
    if "client_auth_method" in given:
        settings.token_auth_method = _choice(
            given["client_auth_method"], flag("client_auth_method"), TOKEN_AUTH_METHODS
        )
    if "scope" in given:
        raw = given["scope"]
        items = raw if isinstance(raw, list) else [raw]
        scopes: list[str] = []
        for item in items:
            for word in _string(item, flag("scope")).split():
                if word not in scopes:
                    scopes.append(word)
        settings.scopes = scopes
    if "oauth_open" in given:
        settings.open_mode = _choice(given["oauth_open"], flag("oauth_open"), OPEN_MODES)
    if "oauth_grant" in given:
        settings.grant = _choice(given["oauth_grant"], flag("oauth_grant"), GRANTS)
    if "assertion" in given:
        settings.assertion = read_text_file(
            _string(given["assertion"], flag("assertion")), flag("assertion"), stdin=True
        )
    if "id_token" in given:
        settings.id_token = read_text_file(_string(given["id_token"], flag("id_token")), flag("id_token"), stdin=True)
    if "dpop" in given:
        if not isinstance(given["dpop"], bool):
            raise OptionError(f"{flag('dpop')}: expected true or false")
        settings.dpop = given["dpop"]
    if "auth_store" in given:
        settings.store = _choice(given["auth_store"], flag("auth_store"), STORES)
    if "oauth_timeout" in given:
        value = given["oauth_timeout"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 86_400:
            raise OptionError(f"{flag('oauth_timeout')}: expected a number of seconds (0 < s < 86400)")
        settings.flow_timeout = float(value)
    if "redirect_port" in given:
        value = given["redirect_port"]
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
            raise OptionError(f"{flag('redirect_port')}: expected a port number (0-65535)")
        settings.redirect_port = value
    if checked:
        check(settings, flag)
    return settings


def check(settings: AuthSettings, flag: Callable[[str], str] = lambda name: name) -> None:
    """Combinations that cannot work, said before connecting."""
    if settings.grant == "jwt_bearer" and not settings.assertion:
        raise OptionError(
            f"{flag('oauth_grant')} jwt_bearer needs {flag('assertion')} FILE (the workload identity JWT)"
        )
    if settings.grant == "enterprise":
        missing = [
            flag(name)
            for name, value in (("id_token", settings.id_token), ("idp_client_id", settings.idp_client_id))
            if not value
        ]
        if not (settings.idp_issuer or settings.idp_token_endpoint):
            missing.append(f"{flag('idp_issuer')} or {flag('idp_token_endpoint')}")
        if missing:
            raise OptionError(f"{flag('oauth_grant')} enterprise needs {', '.join(missing)}")
    if settings.grant == "client_credentials" and not settings.client_id:
        raise OptionError(
            f"{flag('oauth_grant')} client_credentials needs {flag('client_id')} "
            f"(with {flag('client_secret')} or {flag('client_key')})"
        )
    if settings.token_auth_method == "private_key_jwt" and not settings.private_key_pem:
        raise OptionError(f"{flag('client_auth_method')} private_key_jwt needs {flag('client_key')} FILE")
    if settings.token_auth_method in ("client_secret_basic", "client_secret_post") and not settings.client_secret:
        raise OptionError(
            f"{flag('client_auth_method')} {settings.token_auth_method} needs {flag('client_secret')} "
            f"(or ${SECRET_ENV})"
        )
    if settings.client_secret and not settings.client_id:
        raise OptionError(f"{flag('client_secret')} needs {flag('client_id')}")


def cli_flag(name: str) -> str:
    return "--" + name.replace("_", "-")
