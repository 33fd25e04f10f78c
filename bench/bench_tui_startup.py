"""TUI startup: time from launching mcp-inspector to the tool list being shown.

    python bench/bench_tui_startup.py [-n 7] [--demo]

Each run is a fresh process (interpreter start and imports included, as for a
user), running the real app headless at 120x40 against server-everything
(``MCP_SERVER_EVERYTHING``, ``node_modules/.bin/mcp-server-everything`` in the
repo, or ``/tmp/npmtest/...``) or, with ``--demo``, the built-in demo server.
The child prints marks as it goes; the parent measures wall time from spawning
it to each mark and prints the median (and min..max) of N runs:

* ``first paint``: the main screen has been drawn once (status bar says connecting);
* ``tools shown``: the tool list is filled from tools/list and has been drawn.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import time

from common import PYTHON, REPO, server_everything_cmd

CHILD = r"""
import sys, time, json
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig

command = json.loads(sys.argv[1])
app = make_app(ServerSpec("bench", command), config=TuiConfig())
marks = {}

def mark(name):
    if name not in marks:
        marks[name] = True
        print(name, flush=True)

def poll():
    try:
        main = app.main
    except LookupError:
        return
    mark("first paint")
    if main.tool_list.tools and main.tool_list.option_list.option_count:
        # one more refresh so the list has really been drawn
        app.call_after_refresh(lambda: (mark("tools shown"), app.exit()))

app.call_later(lambda: app.set_interval(0.005, poll))
app.run(headless=True, size=(120, 40))
"""


def run_once(command: list[str], timeout: float) -> dict[str, float]:
    env = dict(os.environ, XDG_STATE_HOME=os.environ.get("XDG_STATE_HOME", "/tmp/mcp-inspector-bench-state"))
    started = time.perf_counter()

    child = subprocess.Popen(
        [PYTHON, "-c", CHILD, json.dumps(command)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(REPO),
        env=env,
    )
    marks: dict[str, float] = {}
    try:
        assert child.stdout is not None
        for line in child.stdout:
            marks[line.strip()] = (time.perf_counter() - started) * 1000
            if line.strip() == "tools shown":
                break
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=10)  # the app quits by itself once the list is shown
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    if "tools shown" not in marks:
        raise SystemExit(f"the app never showed the tool list:\n{child.stderr.read() if child.stderr else ''}")
    return marks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="runs (default 7)")
    parser.add_argument("--demo", action="store_true", help="use the built-in demo server instead of server-everything")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    if args.demo:
        command, label = [PYTHON, "-m", "mcp_inspector.demo"], "demo server"
    else:
        command = server_everything_cmd()
        label = "server-everything"
        if command is None:
            raise SystemExit(
                "server-everything not found: set MCP_SERVER_EVERYTHING, or npm install "
                "@modelcontextprotocol/server-everything in the repo root (or use --demo)"
            )
    runs = [run_once(command, args.timeout) for _ in range(args.n)]
    print(f"TUI startup against {label}, {args.n} runs, wall time from spawning the process (ms):")
    for name in ("first paint", "tools shown"):
        values = [r[name] for r in runs if name in r]
        print(f"  {name:12} median {statistics.median(values):7.0f}   min {min(values):7.0f}   max {max(values):7.0f}")


if __name__ == "__main__":
    main()
