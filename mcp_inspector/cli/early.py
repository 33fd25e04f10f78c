"""Start the server before anything else, when the command line plainly allows it.

For ``tools``/``info``/``prompts``/``resources``/``templates``/``ping`` with a plain
``-- CMD``, the server's start-up then overlaps our own imports and argument
parsing, which is what keeps a cold ``mcp-inspector tools`` near a minimal
client's time. Only stdlib modules that the interpreter has mostly loaded
anyway are imported here. Anything unusual (config, env, cwd, record, help)
takes the normal route, which also reports any failure to start.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess

QUICK_COMMANDS = ("tools", "info", "prompts", "resources", "templates", "ping")
EARLY_FLAGS = {"--json", "-q", "--quiet", "--show-stderr", "--progress"}
EARLY_VALUE_OPTIONS = {"--timeout", "--protocol-version", "--record"}


class SpawnError(Exception):
    """The server command could not be started (a one-line reason)."""


def spawn(command: list[str], env: dict[str, str], cwd: str | None) -> subprocess.Popen:
    """Start the server in its own process group with pipes for all three streams."""
    from ..core import reaping

    full_env = dict(os.environ)
    full_env.update(env)
    tag = full_env[reaping.TAG_VAR] = reaping.new_tag()
    try:
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            cwd=cwd,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise SpawnError(f"cannot start the server: command not found: {command[0]}") from None
    except PermissionError:
        raise SpawnError(f"cannot start the server: permission denied: {command[0]}") from None
    except OSError as exc:
        raise SpawnError(f"cannot start the server: {exc.strerror or exc}") from None
    process.inspector_tag = tag  # type: ignore[attr-defined]  # the adopting transport finds its descendants by it
    # Orphaned descendants come to us from now on (the server has not run a line of its own
    # yet: importing ctypes here overlaps its start-up instead of delaying it).
    reaping.become_subreaper()
    return process


def early_spawn(argv: list[str]) -> subprocess.Popen | None:
    if os.environ.get("MCP_INSPECTOR_NO_EARLY_START") or "--" not in argv:
        return None
    index = argv.index("--")
    own, command = argv[:index], argv[index + 1 :]
    if not command:
        return None
    names = 0
    skip = False
    for word in own:
        if skip:
            skip = False
        elif word in EARLY_VALUE_OPTIONS:
            skip = True
        elif word in QUICK_COMMANDS:
            names += 1
        elif word not in EARLY_FLAGS:
            return None
    if names != 1:
        return None
    try:
        return spawn(command, {}, None)
    except SpawnError:
        return None


def signal_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


def discard(process: subprocess.Popen) -> None:
    """A server started early for a command line that turned out to be wrong."""
    signal_group(process.pid, signal.SIGKILL)
    process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        stream.close()
