"""Quitting the TUI leaves no server behind, whatever way it stops.

The real ``python -m mcp_inspector`` runs on a pseudo-terminal against
``stubborn_server.py``, which ignores stdin EOF, SIGTERM, SIGINT and SIGHUP and
keeps a grandchild in its process group: only the full shutdown sequence (close
stdin, wait, SIGTERM the group, SIGKILL the group) ends them all. The pids are
polled until they are gone (bounded).
"""

from __future__ import annotations

import os
import signal
import sys

import pytest
from app_helpers import live_app, wait_for
from shutdown_helpers import PtyProcess, kill_all, read_pids, stubborn_command, survivors, wait_for_eof

from mcp_inspector.core.config.servers import ServerSpec

pytestmark = pytest.mark.slow


def start_tui(tmp_path, *server_options: str) -> tuple[PtyProcess, list[int]]:
    pids_file = tmp_path / "pids"
    tui = PtyProcess([sys.executable, "-m", "mcp_inspector", "--", *stubborn_command(pids_file, *server_options)])
    try:
        # the TUI starts the server before its own imports: wait for its handshake, not only for the server
        pids = read_pids(pids_file, listed="--hang" not in server_options, initialized=True)
    except BaseException:
        tui.kill()
        raise
    return tui, pids


def stop(tui: PtyProcess, how: str) -> None:
    if how == "ctrl+q":
        tui.send(b"\x11")
    elif how == "terminal closed":
        tui.close_terminal()
    else:
        os.kill(tui.pid, getattr(signal, how))


EXPECTED_STATUS = {"ctrl+q": 0, "SIGTERM": 143, "SIGHUP": 129, "SIGINT": 130, "terminal closed": 129}


@pytest.mark.parametrize("how", list(EXPECTED_STATUS))
def test_no_server_process_survives_the_tui(tmp_path, how):
    tui, pids = start_tui(tmp_path)
    try:
        stop(tui, how)
        status = tui.wait(20)
        assert status is not None, f"the TUI did not exit after {how}"
        left = survivors(pids, timeout=10)
        assert left == [], f"after {how}, still running: {left} (server {pids[0]}, grandchild {pids[1]})"
        assert status == EXPECTED_STATUS[how]
    finally:
        kill_all(pids)
        tui.kill()


def test_quit_during_a_handshake_that_never_ends(tmp_path):
    tui, pids = start_tui(tmp_path, "--hang", "initialize")
    try:
        stop(tui, "ctrl+q")  # initialize went out (start_tui waited for it)
        assert tui.wait(20) == 0
        assert survivors(pids, timeout=10) == []
    finally:
        kill_all(pids)
        tui.kill()


def test_a_second_signal_kills_at_once(tmp_path):
    tui, pids = start_tui(tmp_path)
    try:
        stop(tui, "SIGTERM")
        wait_for_eof(tmp_path / "pids")  # the first one started the graceful sequence: stdin closed
        stop(tui, "SIGTERM")
        assert tui.wait(20) == 143
        assert survivors(pids, timeout=10) == []
    finally:
        kill_all(pids)
        tui.kill()


@pytest.mark.anyio
async def test_reconnect_does_not_wait_for_a_hung_handshake(tmp_path):
    """A stop (reconnect, quit) interrupts a handshake instead of waiting for its timeout."""
    pids_file = tmp_path / "pids"
    app = live_app(ServerSpec("hung", stubborn_command(pids_file, "--polite", "--hang", "initialize")), timeout=60.0)
    pids: list[int] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, pids_file.exists, what="the server")
            pids += read_pids(pids_file)
            await wait_for(pilot, lambda: app.main.status_bar.status.state == "initializing", what="the handshake")
            pids_file.unlink()
            app.action_reconnect()
            # loose: the handshake timeout is 60 s
            await wait_for(pilot, pids_file.exists, timeout=15, what="the new server after reconnect")
            pids += read_pids(pids_file)
            assert survivors(pids[:1], timeout=5) == []
    finally:
        kill_all(pids)


@pytest.mark.anyio
async def test_a_dead_connection_worker_shows_in_the_status(tmp_path):
    """An unexpected error in the connection worker (here: a NUL byte in the command, as a
    config file can hold) must not leave the status at "connecting" or "connected"."""
    app = live_app(ServerSpec("nul", [sys.executable, "-c", "pass\0"]))
    async with app.run_test(size=(120, 40)) as pilot:
        app.store.note("recorded before")
        await wait_for(pilot, lambda: app.main.status_bar.status.state == "disconnected", what="the status to change")
        status = app.main.status_bar.status
        assert "ValueError" in status.detail and "null byte" in status.detail
        texts = [entry.text for entry in app.store]
        assert "recorded before" in texts
        assert any("the connection failed: ValueError" in text for text in texts)


@pytest.mark.anyio
async def test_an_app_ended_without_quit_leaves_no_server(tmp_path):
    """An app that ends without quit() (run_test's end, as an exception would) kills its servers on
    unmount: server-everything, which does not exit on stdin EOF, was left running under init."""
    pids_file = tmp_path / "pids"
    app = live_app(ServerSpec("stubborn", stubborn_command(pids_file)))
    pids: list[int] = []
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for(pilot, pids_file.exists, what="the server")
            pids += read_pids(pids_file)
            await wait_for(pilot, lambda: app.main.status_bar.status.state == "connected", what="the handshake")
        assert survivors(pids, timeout=10) == []
    finally:
        kill_all(pids)
