"""Which server to talk to, from the command line: ``-- CMD``, ``--url``, ``--config``, ``--demo``.

Plus the per-server settings that go with it: the remote options (``--transport``,
``-H``, ``--bearer-token``, ``--insecure``) and the protocol era (``--era``,
``--protocol-version``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .exit_codes import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..core.config.servers import ServerSpec

BEARER_ENV = "MCP_INSPECTOR_BEARER_TOKEN"
TRANSPORTS = {"auto": "http", "streamable-http": "streamable-http", "sse": "sse"}


@dataclass
class RemoteOptions:
    """The command line's settings for the server: remote ones and the protocol era."""

    transport: str | None = None  # auto | streamable-http | sse
    headers: Sequence[str] = field(default_factory=list)  # 'Name: value' as typed
    bearer_token: str | None = None
    insecure: bool = False
    era: str | None = None  # auto | legacy | modern
    protocol_version: str | None = None
    auth: dict[str, Any] = field(default_factory=dict)  # the OAuth options given (auth_values), by field name
    no_auth: bool = False


#: The OAuth options on the command line: their core/auth/options.py field and argparse dest.
AUTH_OPTIONS = {
    "client_id": "client_id",
    "client_secret": "client_secret",
    "client_metadata_url": "client_metadata_url",
    "client_key": "client_key",
    "client_auth_method": "client_auth_method",
    "scope": "scopes",
    "oauth_open": "oauth_open",
    "oauth_grant": "oauth_grant",
    "assertion": "assertion",
    "idp_issuer": "idp_issuer",
    "idp_token_endpoint": "idp_token_endpoint",
    "idp_client_id": "idp_client_id",
    "idp_client_secret": "idp_client_secret",
    "id_token": "id_token",
    "dpop": "dpop",
    "auth_store": "auth_store",
    "oauth_timeout": "oauth_timeout",
    "redirect_port": "redirect_port",
}
#: core/auth/options.py field -> the AuthSettings attribute it sets
_SETTING_OF = {
    "client_key": "private_key_pem",
    "client_auth_method": "token_auth_method",
    "scope": "scopes",
    "oauth_open": "open_mode",
    "oauth_grant": "grant",
    "auth_store": "store",
    "oauth_timeout": "flow_timeout",
}


def auth_values(args: Any) -> dict[str, Any]:
    """The OAuth options given on the command line (parsed args), by field name."""
    values = {name: getattr(args, dest, None) for name, dest in AUTH_OPTIONS.items()}
    return {name: value for name, value in values.items() if value is not None and value != []}


def check_url(url: str) -> str:
    """``--url``: http or https with a host; anything else is a usage error (the URL is not echoed
    whole: it may carry a token)."""
    from ..core.config.servers import url_problem

    problem = url_problem(url)
    if problem is not None:
        raise UsageError(f"--url {problem}")
    return url


def resolve_era(era: str | None, protocol_version: str | None, spec_era: str = "auto") -> str:
    """The era the options ask for: ``--protocol-version 2026-07-28`` means modern, a legacy
    version means legacy; ``--era`` saying otherwise is a usage error."""
    from ..core.protocol.versions import LEGACY_VERSIONS, MODERN_VERSIONS

    implied = (
        "modern" if protocol_version in MODERN_VERSIONS else "legacy" if protocol_version in LEGACY_VERSIONS else None
    )
    if era not in (None, "auto") and implied is not None and era != implied:
        raise UsageError(f"--protocol-version {protocol_version} is a {implied} version, but --era {era} was given")
    return implied or era or spec_era


def env_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """``-e KEY=VALUE`` options into a dict (a malformed pair is a usage error)."""
    from ..core.config.servers import ConfigError, parse_env_pairs

    try:
        return parse_env_pairs(list(pairs))
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def server_directory(cwd: str | None) -> str | None:
    """``--cwd``, absolute; a directory that does not exist is a usage error."""
    if cwd is None:
        return None
    path = os.path.abspath(os.path.expanduser(cwd))
    check_directory(path)
    return path


def check_directory(path: str) -> None:
    """The server's working directory must exist and be enterable (the error names it)."""
    if not os.path.isdir(path):
        if os.path.exists(path):
            raise UsageError(f"working directory is not a directory: {path}")
        raise UsageError(f"working directory does not exist: {path}")
    if not os.access(path, os.X_OK):
        raise UsageError(f"permission denied: working directory {path}")


def build_spec(
    server_command: Sequence[str],
    *,
    config: str | None = None,
    server: str | None = None,
    url: str | None = None,
    demo: bool = False,
    env_options: Sequence[str] = (),
    cwd: str | None = None,
    default_demo: bool = True,
    remote: RemoteOptions | None = None,
) -> ServerSpec | None:
    """The server spec the options describe; the demo server when none is given.

    Returns None only when ``default_demo`` is False and nothing was given.
    """
    chosen = [
        name
        for name, given in (
            ("a command after --", bool(server_command)),
            ("--config", config is not None),
            ("--url", url is not None),
            ("--demo", demo),
        )
        if given
    ]
    if len(chosen) > 1:
        raise UsageError(f"choose one server: {' and '.join(chosen)} were both given")
    if server is not None and config is None:
        raise UsageError("--server needs --config FILE")
    remote = remote or RemoteOptions()
    from ..core.config.servers import ConfigError, ServerSpec, demo_spec, parse_header, server_from_config

    env = env_pairs(env_options)
    try:
        if config is not None:
            spec = server_from_config(config, server)
        elif url is not None:
            spec = ServerSpec(_url_name(check_url(url)), url=url, transport="http", source="command line")
        elif server_command:
            spec = ServerSpec(
                os.path.basename(server_command[0]) or server_command[0], list(server_command), source="command line"
            )
        elif demo or default_demo:
            spec = demo_spec()
        else:
            if env or cwd:
                raise UsageError("-e and --cwd need a server")
            return None
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    spec = _apply_remote(spec, remote, parse_header)
    if spec.url and (env or cwd):
        raise UsageError("-e and --cwd are for a server command, not --url (a remote server has its own environment)")
    if env or cwd:
        spec = spec.with_overrides(env=env, cwd=server_directory(cwd))
    if spec.cwd is not None:
        check_directory(spec.cwd)
    return spec


def _url_name(url: str) -> str:
    from urllib.parse import urlsplit

    return urlsplit(url).hostname or "server"


def _apply_remote(spec: ServerSpec, remote: RemoteOptions, parse_header) -> ServerSpec:
    """The remote options and the era over the spec; remote options on a stdio server are an error."""
    from ..core.config.servers import ConfigError

    era = resolve_era(remote.era, remote.protocol_version, spec.era)
    given = [
        name
        for name, value in (
            ("--transport", remote.transport),
            ("-H", remote.headers),
            ("--bearer-token", remote.bearer_token),
            ("--insecure", remote.insecure),
            ("--no-auth", remote.no_auth),
        )
        if value
    ]
    given += ["--" + name.replace("_", "-") for name in remote.auth]
    if not spec.url:
        if given:
            raise UsageError(f"{' and '.join(given)}: only for a remote server (--url, or a config entry with a url)")
        return spec.with_overrides(era=era, protocol_version=remote.protocol_version)
    headers: dict[str, str] = {}
    for text in remote.headers:
        try:
            name, value = parse_header(text)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        headers[name] = value
    token, source = remote.bearer_token, "--bearer-token"
    if token is None and os.environ.get(BEARER_ENV):  # an empty variable is as good as unset
        token, source = os.environ[BEARER_ENV], f"${BEARER_ENV}"
    if token is not None:
        token = token.strip()
        if not token or any(char in token for char in "\r\n\0"):
            raise UsageError(f"{source}: the token is empty or contains a line break")
        headers = {name: value for name, value in headers.items() if name.lower() != "authorization"}
        headers["Authorization"] = f"Bearer {token}"
    if remote.no_auth and remote.auth:
        raise UsageError(
            f"--no-auth and {', '.join('--' + name.replace('_', '-') for name in remote.auth)}: "
            "choose whether to authorize"
        )
    return spec.with_overrides(
        headers=headers,
        transport=TRANSPORTS[remote.transport] if remote.transport else None,
        era=era,
        protocol_version=remote.protocol_version,
        insecure=remote.insecure or None,
        auth=auth_settings(remote.auth, spec.auth),
        no_auth=True if remote.no_auth else None,
    )


def auth_settings(values: dict[str, Any], base: Any = None) -> Any:
    """AuthSettings from the command line's OAuth options, over a config entry's ``base``
    (the options given replace its fields); None when none was given."""
    if not values:
        return None
    from ..core.auth.options import OptionError, check, cli_flag, settings_from

    try:
        settings = settings_from(values, flag=cli_flag) if base is None else None
        if base is not None:
            partial = settings_from(values, flag=cli_flag, environ={}, checked=False)
            changes = {_SETTING_OF.get(name, name): getattr(partial, _SETTING_OF.get(name, name)) for name in values}
            settings = replace(base, **changes)
            check(settings, cli_flag)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    return settings
