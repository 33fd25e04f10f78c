"""A server's text cannot drive the terminal the CLI prints to: on a terminal its control characters
are shown (␛, ␇, ␍, \\x9b), not obeyed; into a pipe or a file the text is written exactly as sent."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time

from cli_helpers import REPO_ROOT, cli

SERVER = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "escapes_server.py")]


def on_terminal(*args: str, timeout: float = 60) -> tuple[str, int]:
    """Run the CLI with stdout and stderr on a pseudo-terminal; what it wrote there, and its exit code."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", *args],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        close_fds=True,
    )
    os.close(follower)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout  # a hang guard, not a speed target
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:  # the child closed its end
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    os.close(leader)
    code = process.wait(timeout=30)
    return b"".join(chunks).decode("utf-8", "replace"), code


def test_on_a_terminal_control_characters_are_shown_not_obeyed():
    text, code = on_terminal("--log-level", "debug", "--progress", "call", "t", "--", *SERVER)
    assert code == 0, text
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "x␛[31mred\\x9b2J␍OVER" in text  # the result
    assert "log ␛]0;LOG␇" in text  # the log message on stderr
    listed, code = on_terminal("tools", "--", *SERVER)
    assert code == 0 and "bad ␛[2J␛]52;c;ZXZpbA==␇ desc" in listed and "\x1b" not in listed
    info, code = on_terminal("info", "--", *SERVER)
    assert code == 0 and "esc␛]0;PWNED␇" in info and "\x1b" not in info


def test_into_a_pipe_the_text_is_exactly_what_the_server_sent():
    result = cli("call", "t", "--", *SERVER)
    assert result.returncode == 0, result.stderr
    assert "x\x1b[31mred\x9b2J\rOVER" in result.stdout
