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
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from ..traffic.masking import mask_header, mask_url
from .servers import ConfigError, ServerSpec, server_from_config

PROGRAM = "mcp-inspector"
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
    if spec.url:
        words += _remote_words(spec, base)
    if spec.era != (base.era if base is not None else "auto"):
        words += ["--era", spec.era]
    if spec.protocol_version:
        words += ["--protocol-version", spec.protocol_version]
    base_env = base.env if base is not None else {}
    env_keys = [key for key, value in spec.env.items() if base_env.get(key) != value]
    command = " ".join(shlex.quote(word) for word in words)
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
