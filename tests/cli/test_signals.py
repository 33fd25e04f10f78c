"""SIGTERM, SIGHUP and SIGINT stop the CLI without leaving the server behind.

``timeout``, CI cancellation and a closed terminal send SIGTERM or SIGHUP. The
server (``stubborn_server.py``) ignores stdin EOF and those signals and keeps a
grandchild in its process group; after the CLI exits, all of them must be gone,
and the exit status is 128 + the signal (130, 143, 129).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from shutdown_helpers import kill_all, read_pids, stubborn_command, survivors, wait_for_eof

pytestmark = pytest.mark.slow

STATUS = {"SIGINT": 130, "SIGTERM": 143, "SIGHUP": 129}


def start(tmp_path, command: list[str], early_start: bool = True, **popen) -> tuple[subprocess.Popen, object]:
    env = dict(os.environ)
    env.pop("MCP_INSPECTOR_NO_EARLY_START", None)
    if not early_start:
        env["MCP_INSPECTOR_NO_EARLY_START"] = "1"
    popen.setdefault("stdin", subprocess.DEVNULL)
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", *command],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **popen,
    )
    return process, tmp_path / "pids"


def finish(process: subprocess.Popen) -> tuple[int | None, str]:
    try:
        _, err = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        return None, err.decode("utf-8", "replace")
    return process.returncode, err.decode("utf-8", "replace")


# tools (the server started before our imports, see cli/early.py), the same without the
# early start, and pipe (which reads our stdin while the server runs)
WAYS = {
    "tools, early start": (["tools"], True, False),
    "tools": (["tools"], False, False),
    "pipe": (["pipe"], True, True),
}


@pytest.mark.parametrize("signame", list(STATUS))
@pytest.mark.parametrize("way", list(WAYS))
def test_a_stop_signal_shuts_the_server_down(tmp_path, signame, way):
    words, early, pipe = WAYS[way]
    pids_file = tmp_path / "pids"
    server = stubborn_command(pids_file, "--hang", "tools/list")
    stdin = subprocess.PIPE if pipe else subprocess.DEVNULL
    process, _ = start(tmp_path, [*words, "--", *server], early_start=early, stdin=stdin)
    pids: list[int] = []
    try:
        if pipe:  # what pipe forwards: an initialize, then a tools/list that is never answered
            process.stdin.write(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n')
            process.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
            process.stdin.flush()
        # well inside the command: an initialize reached the server (the early start is covered below)
        pids = read_pids(pids_file, initialized=True)
        process.send_signal(getattr(signal, signame))
        status, err = finish(process)
        left = survivors(pids, timeout=10)
        assert left == [], f"{way}: after {signame}, still running: {left} (server {pids[0]}, grandchild {pids[1]})"
        assert status == STATUS[signame], err
        assert "Traceback" not in err
        assert err.splitlines()[-1].startswith("mcp-inspector: error: interrupted"), err
    finally:
        kill_all(pids)
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_right_after_the_early_start(tmp_path, signame):
    """The signal may arrive while we are still importing: the early-started server is reaped too."""
    pids_file = tmp_path / "pids"
    process, _ = start(tmp_path, ["tools", "--", *stubborn_command(pids_file, "--hang", "tools/list")])
    pids: list[int] = []
    try:
        pids = read_pids(pids_file)
        process.send_signal(getattr(signal, signame))
        status, err = finish(process)
        assert survivors(pids, timeout=10) == []
        assert status == STATUS[signame], err
        assert "Traceback" not in err
    finally:
        kill_all(pids)
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_second_signal_kills_at_once(tmp_path):
    pids_file = tmp_path / "pids"
    process, _ = start(tmp_path, ["tools", "--", *stubborn_command(pids_file, "--hang", "tools/list")])
    pids: list[int] = []
    try:
        pids = read_pids(pids_file, initialized=True)  # the CLI is in its event loop, not still importing
        process.send_signal(signal.SIGTERM)
        wait_for_eof(pids_file)  # its stdin closed: inside the 0.5 s the server gets then
        process.send_signal(signal.SIGTERM)
        status, err = finish(process)
        assert survivors(pids, timeout=10) == []
        assert status == 143, err
        assert "Traceback" not in err
    finally:
        kill_all(pids)
        if process.poll() is None:
            process.kill()
            process.wait()
