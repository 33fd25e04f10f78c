"""The TUI's "copy as CLI command": a shell command line that repeats a tool call headless.

The TUI offers it for any call, so the output must be pasteable as is: shlex
quoting, the arguments as one ``--args`` JSON object, and the server named the
way the user named it (``--config F --server N``, ``--demo``, or the command
after ``--``). Environment variables and the working directory are included
only where they differ from what the config file already says.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from .servers import ConfigError, ServerSpec, server_from_config

PROGRAM = "mcp-inspector"


def call_command_line(spec: ServerSpec, tool: str, arguments: dict[str, Any]) -> str:
    words = [PROGRAM, "call", tool, "--args", json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))]
    base: ServerSpec | None = None
    if spec.url:
        words += ["--url", spec.url]
    elif spec.source == "built-in" and spec.name == "demo":
        words.append("--demo")
        base = ServerSpec(spec.name, list(spec.command))
    elif spec.source and spec.source not in ("command line", "built-in"):
        words += ["--config", spec.source, "--server", spec.name]
        try:
            base = server_from_config(spec.source, spec.name)
        except ConfigError:
            base = None  # the file changed or vanished: spell out everything
    base_env = base.env if base is not None else {}
    for key, value in spec.env.items():
        if base_env.get(key) != value:
            words += ["-e", f"{key}={value}"]
    if spec.cwd and (base is None or base.cwd != spec.cwd):
        words += ["--cwd", spec.cwd]
    command = " ".join(shlex.quote(word) for word in words)
    if base is None and not spec.url:
        command += " -- " + " ".join(shlex.quote(part) for part in spec.command)
    return command
