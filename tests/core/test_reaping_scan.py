"""core/reaping.py: finding a server's escaped descendants after it exited (Linux).

When a server has exited and nothing of it was reparented to us, ``escaped`` answers without
reading every process's /proc entry: that walk cost ~3-8 ms of every cold command, after the
output was printed. With an orphan of the server reparented to us, the walk still finds it
(tests/cli/test_detached_descendants.py shows the whole command ending such orphans)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and the subreaper are Linux's")

# Runs in a fresh process (no children but the ones it makes): an audit hook records every
# listing of /proc and every /proc/PID/stat opened while ``escaped`` looks.
SCRIPT = textwrap.dedent(
    """
    import json, os, re, subprocess, sys, time
    from mcp_inspector.core import reaping

    reaping.become_subreaper()
    orphan = sys.argv[1] == "orphan"
    tag = reaping.new_tag()
    env = {**os.environ, reaping.TAG_VAR: tag}
    # the "server": with "orphan", it leaves a child in its own session and exits (the child is
    # reparented to us, its subreaper); else it exits alone
    code = (
        "import os, sys, time\\n"
        "if os.fork() == 0:\\n"
        "    os.setsid(); sys.stdout.write(str(os.getpid()) + '\\\\n'); sys.stdout.flush(); time.sleep(30)\\n"
    ) if orphan else "pass"
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE)
    child = int(server.stdout.readline()) if orphan else None
    server.wait()
    if orphan:  # reparented to us once the server is gone
        while str(child) not in open(f"/proc/self/task/{os.getpid()}/children").read().split():
            time.sleep(0.01)
    seen = {"listed": 0, "stats": 0}
    watching = [True]

    def hook(event, args):
        if not watching[0]:
            return
        if event == "os.listdir" and args and str(args[0]) == "/proc":
            seen["listed"] += 1
        if event == "open" and args and re.fullmatch(r"/proc/\\d+/stat", str(args[0])):
            seen["stats"] += 1

    sys.addaudithook(hook)
    found = reaping.escaped(server.pid, tag)
    watching[0] = False
    seen["found"] = sorted(pid for pid, _ in found)
    seen["child"] = child
    if child is not None:
        os.kill(child, 9)
        os.waitpid(child, 0)
    print(json.dumps(seen))
    """
)


def look(case: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, case], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_server_that_exited_alone_is_not_looked_for_in_every_process():
    seen = look("alone")
    assert seen["found"] == []
    assert seen["listed"] == 0, "all of /proc was listed for a server that left nothing behind"
    assert seen["stats"] <= 1  # the server's own entry: is it gone?


def test_an_orphan_reparented_to_us_is_still_found():
    seen = look("orphan")
    assert seen["found"] == [seen["child"]]
