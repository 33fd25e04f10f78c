"""The TUI's "copy as CLI command": a shell command line that repeats a tool call headless.

The TUI offers it for any call, so the output must be pasteable as is: shlex
quoting, the arguments as one ``--args`` JSON object, and the server named the
way the user named it (``--config F --server N``, ``--demo``, or the command
after ``--``). Environment variables and the working directory are included
only where they differ from what the config file already says.

Environment values are never written out: they are often secrets, and the line
lands on the clipboard and in a toast on screen. ``-e API_KEY="$API_KEY"`` takes
the value from the shell the line is pasted into instead. For a remote server,
credentials in the URL and secret-looking header values (``Authorization``...)
are masked; headers from a config file stay in the file (``--config F --server N``).

OAuth options (``spec.auth``, an ``AuthSettings``) are repeated where they differ from the
config entry's; a secret never is: ``--client-secret "$MCP_INSPECTOR_CLIENT_SECRET"`` (and
``--idp-client-secret "$MCP_INSPECTOR_IDP_CLIENT_SECRET"``) take it from the shell, and the
files a key, assertion or ID token was read from (not kept) are placeholders to fill in.
Tokens are never in the line: the pasted command finds them in the token store.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from ..auth.model import AuthSettings
from ..base.masking import mask_header, mask_url
from .servers import ConfigError, ServerSpec, server_from_config

PROGRAM = "mcp-inspector"
#: The shell variables a copied line takes OAuth secrets from.
CLIENT_SECRET_VAR = "MCP_INSPECTOR_CLIENT_SECRET"
IDP_CLIENT_SECRET_VAR = "MCP_INSPECTOR_IDP_CLIENT_SECRET"
_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def env_option(key: str) -> str:
    """``-e KEY="$KEY"``: the value comes from the shell, so it is not in the line."""
    if _SHELL_NAME.match(key):
        return f'-e {key}="${key}"'
    # a name the shell cannot expand: a placeholder to fill in by hand
    return "-e " + shlex.quote(f"{key}=<value of {key}>")


def call_command_line(spec: ServerSpec, tool: str, arguments: dict[str, Any]) -> str:
    words = [PROGRAM, "call", tool, "--args", json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))]
    base: ServerSpec | None = None
    if spec.source == "built-in" and spec.name == "demo":
        words.append("--demo")
        base = ServerSpec(spec.name, list(spec.command))
    elif spec.source and spec.source not in ("command line", "built-in"):
        try:
            base = server_from_config(spec.source, spec.name)
        except ConfigError:
            base = None  # the file changed or vanished: spell out everything (after -- or with --url)
        else:
            words += ["--config", spec.source, "--server", spec.name]
    if spec.url and base is None:
        words += ["--url", mask_url(spec.url)]
    shell_words: list[str] = []  # already quoted for the shell ("$VAR" must stay expandable)
    if spec.url:
        words += _remote_words(spec, base)
        auth_words, shell_words = _auth_words(spec, base)
        words += auth_words
    if spec.era != (base.era if base is not None else "auto"):
        words += ["--era", spec.era]
    if spec.protocol_version:
        words += ["--protocol-version", spec.protocol_version]
    base_env = base.env if base is not None else {}
    env_keys = [key for key, value in spec.env.items() if base_env.get(key) != value]
    command = " ".join(shlex.quote(word) for word in words)
    if shell_words:
        command += " " + " ".join(shell_words)
    if env_keys:
        command += " " + " ".join(env_option(key) for key in env_keys)
    if spec.cwd and (base is None or base.cwd != spec.cwd):
        command += " --cwd " + shlex.quote(spec.cwd)
    if base is None and not spec.url:
        command += " -- " + " ".join(shlex.quote(part) for part in spec.command)
    return command


def _remote_words(spec: ServerSpec, base: ServerSpec | None) -> list[str]:
    """``--transport``, ``-H`` and ``--insecure`` where they differ from the config entry.

    A secret header value is masked (the line goes to the clipboard and a toast): fill it in,
    or give the token with ``--bearer-token``/``$MCP_INSPECTOR_BEARER_TOKEN``.
    """
    words: list[str] = []
    transport = {"http": "auto"}.get(spec.transport, spec.transport)
    if spec.transport != (base.transport if base is not None else "http"):
        words += ["--transport", transport]
    base_headers = base.headers if base is not None else {}
    for name, value in spec.headers.items():
        if base_headers.get(name) != value:
            words += ["-H", f"{name}: {mask_header(name, value)}"]
    if spec.insecure and not (base is not None and base.insecure):
        words.append("--insecure")
    return words


#: AuthSettings attribute -> its flag, for the options that are plain values (no secret).
_PLAIN_AUTH = (
    ("client_id", "--client-id"),
    ("client_metadata_url", "--client-metadata-url"),
    ("token_auth_method", "--client-auth-method"),
    ("open_mode", "--oauth-open"),
    ("grant", "--oauth-grant"),
    ("idp_issuer", "--idp-issuer"),
    ("idp_token_endpoint", "--idp-token-endpoint"),
    ("idp_client_id", "--idp-client-id"),
    ("store", "--auth-store"),
)
#: Secrets read from a file the settings do not remember: a placeholder to fill in.
_FILE_AUTH = (
    ("private_key_pem", "--client-key", "<PEM private key file>"),
    ("assertion", "--assertion", "<assertion JWT file>"),
    ("id_token", "--id-token", "<ID token file>"),
)


def _auth_words(spec: ServerSpec, base: ServerSpec | None) -> tuple[list[str], list[str]]:
    """The OAuth options where they differ from the config entry's (or the defaults):
    (plain words, to be quoted; words already quoted for the shell). No secret value is in either."""
    if getattr(spec, "no_auth", False):
        return ([] if base is not None and getattr(base, "no_auth", False) else ["--no-auth"]), []
    auth = getattr(spec, "auth", None)
    if not isinstance(auth, AuthSettings):
        return [], []
    base_auth = getattr(base, "auth", None)
    was = base_auth if isinstance(base_auth, AuthSettings) else AuthSettings()
    words: list[str] = []
    shell: list[str] = []

    def changed(name: str) -> bool:
        value = getattr(auth, name, None)
        return value is not None and value != getattr(was, name, None)

    for name, flag in _PLAIN_AUTH:
        if changed(name):
            words += [flag, str(getattr(auth, name))]
    if changed("scopes"):
        for scope in auth.scopes or []:
            words += ["--scope", scope]
    if changed("dpop"):
        words.append("--dpop" if auth.dpop else "--no-dpop")
    if changed("flow_timeout"):
        words += ["--oauth-timeout", f"{auth.flow_timeout:g}"]
    if changed("redirect_port") and auth.redirect_port:
        words += ["--redirect-port", str(auth.redirect_port)]
    if changed("client_secret"):
        shell.append(f'--client-secret "${CLIENT_SECRET_VAR}"')
    if changed("idp_client_secret"):
        shell.append(f'--idp-client-secret "${IDP_CLIENT_SECRET_VAR}"')
    for name, flag, placeholder in _FILE_AUTH:
        if changed(name):
            shell.append(f"{flag} {shlex.quote(placeholder)}")
    return words, shell
