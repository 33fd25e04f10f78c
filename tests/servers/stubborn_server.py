"""A minimal MCP server (stdlib only) that is hard to stop, for shutdown tests.

Usage::

    python tests/servers/stubborn_server.py --pids FILE [--polite] [--hang METHOD]...

* Ignores SIGTERM, SIGINT and SIGHUP, and keeps running after stdin reaches EOF:
  only SIGKILL ends it.
* Starts a grandchild in its own process group (no new session) that also ignores
  those signals and inherits stdout and stderr (so it keeps the pipes open, as a
  wrapper's helper does).
* Writes ``SERVER_PID GRANDCHILD_PID`` as the first line of FILE once both run
  (atomically: written to FILE.tmp, then renamed), appends a line ``initialize`` when
  ``initialize`` arrives, and a line ``listed`` after answering ``tools/list``; creates
  ``FILE.eof`` when stdin reaches EOF.
* ``--polite``: a well-behaved server instead: default signal handling, no
  grandchild, exits at once on stdin EOF (pids line: ``SERVER_PID``).
* ``--detach``: also start two descendants out of reach of its process group, as daemons
  do: one that called ``setsid`` (still its child), and one double-forked (``setsid``,
  then its parent exits, so it is orphaned at once). Both sleep, stdio on /dev/null; their
  pids follow on the pids line.
* ``--hang METHOD``: never answer requests for METHOD (repeatable), so a CLI
  command keeps waiting.

Answers ``initialize`` (echoing the proposed version), ``ping`` and ``tools/list``
(one tool ``echo``); other requests get -32601.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

GRANDCHILD = (
    "import signal, time\n"
    "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "time.sleep(3600)\n"
)
# setsid (its own session and group), then sleep: still the server's child
SETSID_CHILD = "import os, time\nos.setsid()\ntime.sleep(3600)\n"
# a daemon: fork, the child calls setsid and sleeps, the parent prints its pid and exits
DAEMON = (
    "import os, sys, time\n"
    "pid = os.fork()\n"
    "if pid:\n"
    "    sys.stdout.write(f'{pid}\\n'); sys.stdout.flush(); os._exit(0)\n"
    "os.setsid()\n"
    "null = os.open(os.devnull, os.O_RDWR)\n"
    "for fd in (0, 1, 2):\n"
    "    os.dup2(null, fd)\n"
    "time.sleep(3600)\n"
)
TOOL = {
    "name": "echo",
    "description": "Echo the text back",
    "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
}


def write(frame: dict) -> None:
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pids", required=True)
    parser.add_argument("--polite", action="store_true")
    parser.add_argument("--hang", action="append", default=[])
    parser.add_argument("--detach", action="store_true")
    args = parser.parse_args()

    pids = [os.getpid()]
    if not args.polite:
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        child = subprocess.Popen([sys.executable, "-c", GRANDCHILD], stdin=subprocess.DEVNULL)
        pids.append(child.pid)
    if args.detach:
        quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        pids.append(subprocess.Popen([sys.executable, "-c", SETSID_CHILD], **quiet).pid)
        daemon = subprocess.run([sys.executable, "-c", DAEMON], stdin=subprocess.DEVNULL, capture_output=True)
        pids.append(int(daemon.stdout))
    with open(args.pids + ".tmp", "w") as file:
        file.write(" ".join(map(str, pids)) + "\n")
    os.rename(args.pids + ".tmp", args.pids)

    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message or "method" not in message:
            continue
        method, ident = message["method"], message["id"]
        if method == "initialize":
            with open(args.pids, "a") as file:
                file.write("initialize\n")  # the client is up: its handshake reached us
        if method in args.hang:
            continue
        if method == "initialize":
            version = (message.get("params") or {}).get("protocolVersion") or "2025-06-18"
            write(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": {
                        "protocolVersion": version,
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "stubborn", "version": "1.0"},
                    },
                }
            )
        elif method == "ping":
            write({"jsonrpc": "2.0", "id": ident, "result": {}})
        elif method == "tools/list":
            write({"jsonrpc": "2.0", "id": ident, "result": {"tools": [TOOL]}})
            with open(args.pids, "a") as file:
                file.write("listed\n")
        else:
            write({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"Method not found: {method}"}})
    with open(args.pids + ".eof", "w"):  # the client closed our stdin (a stop began)
        pass
    if args.polite:
        return
    while True:  # stdin is at EOF: stay anyway
        time.sleep(3600)


if __name__ == "__main__":
    main()
