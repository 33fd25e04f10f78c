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

``--official DIR`` (a directory where ``npm install @modelcontextprotocol/inspector`` was run)
instead compares, alternating, two whole programs on a real pseudo-terminal (120x40), the same
way for both: ``python -m mcp_inspector -- SERVER`` against the official inspector's TUI
(``--tui``, v2.x). Marks come from what each writes to the terminal, escape sequences
stripped: ``tools shown`` is when ``get-sum`` (a server-everything tool) is on the screen. The
official TUI does not connect by itself: the bench presses ``c`` when it has painted
(``disconnected``), then ``t`` (the Tools tab) when the tab counts the tools; those key presses
are part of its time, as they are of a user's. **Target: ours <= 0.5x the official TUI.**
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import tempfile
import termios
import time

from common import PYTHON, REPO, SOURCE, server_everything_cmd

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


ESCAPES = re.compile(rb"\x1b(?:\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\\\)|[()][0-9A-Za-z]|[=>78])")
TARGET = 0.5


def pty_run(argv: list[str], env: dict[str, str], official: bool, timeout: float, cwd: str) -> dict[str, float]:
    """One program on a pty from spawn to ``get-sum`` on its screen: {first paint, tools shown} in ms."""
    started = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the program, on the pty's slave side
        os.chdir(cwd)  # not the repo: `python -m` puts the cwd first on sys.path, before PYTHONPATH
        os.execvpe(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    marks: dict[str, float] = {}
    raw = b""
    try:
        while time.perf_counter() - started < timeout and "tools shown" not in marks:
            ready, _, _ = select.select([fd], [], [], 0.01)
            if not ready:
                continue
            try:
                raw += os.read(fd, 1 << 16)
            except OSError:
                break
            text = ESCAPES.sub(b"", raw[-(1 << 18) :])
            now = (time.perf_counter() - started) * 1000
            if "first paint" not in marks and (b"disconnected" in text if official else len(text) > 2000):
                marks["first paint"] = now
                if official:
                    os.write(fd, b"c")  # Connect: it does not connect by itself
            if official and "listed" not in marks and re.search(rb"ools \(([1-9])", text):
                marks["listed"] = now
                os.write(fd, b"t")  # the Tools tab
            if b"get-sum" in text and "first paint" in marks:
                marks["tools shown"] = now
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        with contextlib.suppress(ChildProcessError):
            for _ in range(200):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    break
                time.sleep(0.01)
            else:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
        os.close(fd)
    if "tools shown" not in marks:
        tail = ESCAPES.sub(b"", raw[-4000:]).decode(errors="replace")
        raise SystemExit(f"{argv[:3]}... never showed get-sum within {timeout:g} s:\n{tail}")
    return marks


def compare_official(
    official_dir: str, command: list[str], runs: int, timeout: float, before: str | None = None
) -> None:
    launcher = os.path.join(
        official_dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js"
    )
    if not os.path.exists(launcher):
        raise SystemExit(f"no official inspector under {official_dir} (npm install @modelcontextprotocol/inspector)")
    with tempfile.TemporaryDirectory(prefix="bench-tui-") as tmp:
        env = {
            k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "MCP_INSPECTOR_NO_EARLY_START")
        }
        env.update(
            TERM="xterm-256color",
            PYTHONPATH=SOURCE,
            PYTHONPYCACHEPREFIX=os.path.join(tmp, "pycache"),  # bytecode cached, as when installed
            XDG_STATE_HOME=os.path.join(tmp, "state"),
            XDG_CONFIG_HOME=os.path.join(tmp, "config"),
            HOME=os.path.join(tmp, "home"),  # the official TUI's catalog and settings
        )
        variants = [
            ("ours", [PYTHON, "-m", "mcp_inspector", "--", *command], False),
            ("official TUI", ["node", launcher, "--tui", *command], True),
        ]
        envs = {name: env for name, _, _ in variants}
        if before:  # the same from another copy of the package (git archive of an older commit)
            variants.append(("ours (before)", [PYTHON, "-m", "mcp_inspector", "--", *command], False))
            envs["ours (before)"] = {**env, "PYTHONPATH": os.path.abspath(before)}
        for name, argv, official in variants:  # warm-up: bytecode, node's compile cache
            pty_run(argv, envs[name], official, timeout, tmp)
        results: dict[str, list[dict[str, float]]] = {name: [] for name, _, _ in variants}
        for r in range(runs):
            order = variants[r % len(variants) :] + variants[: r % len(variants)]
            for name, argv, official in order:
                results[name].append(pty_run(argv, envs[name], official, timeout, tmp))
    print(f"TUI startup on a pty, {runs} alternating runs each, ms from spawning the process:")
    for name, _, _ in variants:
        for mark in ("first paint", "tools shown"):
            values = [r[mark] for r in results[name]]
            print(
                f"  {name:13} {mark:12} median {statistics.median(values):7.0f}   "
                f"min {min(values):7.0f}   max {max(values):7.0f}"
            )
    theirs = [r["tools shown"] for r in results["official TUI"]]
    for name in [n for n in results if n != "official TUI"]:
        ours = [r["tools shown"] for r in results[name]]
        ratio = statistics.median(ours) / statistics.median(theirs)
        paired = [o / t for o, t in zip(ours, theirs, strict=True)]
        status = "meets" if ratio <= TARGET else "MISSES"
        print(
            f"tools shown, {name} / official TUI: {ratio:.2f}x ({status} the target of <= {TARGET}x); "
            f"paired per run: median {statistics.median(paired):.2f}x, {min(paired):.2f}..{max(paired):.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=7, help="runs (default 7)")
    parser.add_argument("--demo", action="store_true", help="use the built-in demo server instead of server-everything")
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--official", metavar="DIR", help="compare with the official inspector's TUI installed in DIR")
    parser.add_argument("--before", metavar="DIR", help="with --official: also ours from another copy of the package")
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
    if args.official:
        if args.demo:
            raise SystemExit("--official measures against server-everything (it looks for its get-sum tool)")
        compare_official(args.official, command, args.n, args.timeout, args.before)
        return
    runs = [run_once(command, args.timeout) for _ in range(args.n)]
    print(f"TUI startup against {label}, {args.n} runs, wall time from spawning the process (ms):")
    for name in ("first paint", "tools shown"):
        values = [r[name] for r in runs if name in r]
        print(f"  {name:12} median {statistics.median(values):7.0f}   min {min(values):7.0f}   max {max(values):7.0f}")


if __name__ == "__main__":
    main()
