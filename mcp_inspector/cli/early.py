"""Start the server before anything else, when the command line plainly allows it.

For the stdio commands below with a plain ``-- CMD``, the server's start-up then overlaps
our own imports and argument parsing, which is what keeps a cold ``mcp-inspector tools``
near a minimal client's time. The command line is read only far enough to know that it
names one of them with options that do not change how the server is started; the parser
proper comes later and judges it whole (a usage error then ends the server unheard,
``StartedServer.discard``). Only stdlib modules that the interpreter has mostly loaded anyway
are imported here. Anything unusual (config, env, cwd, help) takes the normal route, which
also reports any failure to start with its own message.
"""

from __future__ import annotations

import contextlib
import os

from ..core.started import StartedServer, start_server

#: commands that take no words of their own
QUICK_COMMANDS = ("tools", "info", "prompts", "resources", "templates", "ping", "pipe")
#: commands whose own words (TOOL, URI, PROMPT, KEY=VALUE...) come before ``--``
WORD_COMMANDS = ("call", "read", "get")
EARLY_FLAGS = {"--json", "-q", "--quiet", "--show-stderr", "--progress", "--task", "--no-task"}
EARLY_VALUE_OPTIONS = {"--timeout", "--protocol-version", "--record", "--args"}


def early_command(argv: list[str]) -> list[str] | None:
    """The server command to start at once, or None when the command line is anything but a
    plain stdio command (its options from the sets above, then ``-- CMD``)."""
    if "--" not in argv:
        return None
    index = argv.index("--")
    own, command = argv[:index], argv[index + 1 :]
    if not command:
        return None
    name: str | None = None
    skip = False
    for word in own:
        if skip:
            skip = False
        elif word in EARLY_VALUE_OPTIONS:
            skip = True
        elif word in EARLY_FLAGS:
            continue
        elif name is None and word in QUICK_COMMANDS + WORD_COMMANDS:
            name = word
        elif name in WORD_COMMANDS and not word.startswith("-"):
            continue  # the command's own words: the parser judges them
        else:
            return None
    return command if name is not None and not skip else None


def early_spawn(argv: list[str]) -> StartedServer | None:
    if os.environ.get("MCP_INSPECTOR_NO_EARLY_START"):
        return None
    command = early_command(argv)
    if command is None:
        return None
    try:
        started = start_server(command, {}, None)
    except OSError:
        return None  # the transport tries again and reports it its way
    # Orphaned descendants come to us from now on (the server has not run a line of its own
    # yet: importing _ctypes here overlaps its start-up instead of delaying it).
    from ..core import reaping

    reaping.become_subreaper()
    return started


def signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)
