"""A server's descendants that left its process group do not outlive the inspector (Linux).

``stubborn_server.py --detach`` starts one child that calls ``setsid`` and one daemon
(double fork: orphaned at once, its own session). Signals to the server's process group
reach neither. The inspector is a child subreaper, so the orphan is reparented to it, and
each server's environment carries a mark its descendants inherit (core/reaping.py):
after the command, every one of them must be gone, whether the server exits on stdin EOF
(``--polite``) or ignores EOF and signals (then SIGKILLed with its group).
"""

from __future__ import annotations

import sys

import pytest
from cli_helpers import cli
from shutdown_helpers import kill_all, read_pids, stubborn_command, survivors

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper and /proc are Linux's")


@pytest.mark.parametrize("polite", [True, False], ids=["exits on EOF", "ignores EOF and signals"])
@pytest.mark.parametrize("early_start", [True, False], ids=["early start", "transport start"])
def test_setsid_and_daemonized_descendants_are_ended_with_the_server(tmp_path, polite, early_start):
    pids_file = tmp_path / "pids"
    command = stubborn_command(pids_file, "--detach", *(["--polite"] if polite else []))
    pids: list[int] = []
    try:
        done = cli("tools", "--", *command, early_start=early_start)
        assert done.returncode == 0, done.stderr
        assert "echo" in done.stdout
        pids = read_pids(pids_file)
        assert len(pids) == (3 if polite else 4)  # server, [grandchild in the group], setsid child, daemon
        assert survivors(pids) == [], f"still running after the inspector exited: {pids}"
    finally:
        kill_all(pids)
