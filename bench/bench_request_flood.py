"""The TUI under a flood of server requests: does a key still get through, does ctrl+q quit?

    python bench/bench_request_flood.py [--count 1000] [--presses 20] [--rounds 3] [--compare DIR]

Each run is a fresh process running the whole app headless (120x40) on
``tests/servers/request_flood_server.py --flood-on-start N``: right after the handshake the
server writes N ``elicitation/create`` requests in one write (~100 bytes each). Variants,
interleaved over ``rounds``:

* ``quiet``: N = 1 (one question waits; the baseline, same machine, same moment);
* ``flood``: N = ``count``.

Once the first answering modal is on screen, the child sends ``presses`` keys (an unbound
key, one every 50 ms, as the terminal driver does) and times each from sending until the
app's ``on_event`` takes it (p50 / max), then sends ctrl+q; the parent times from the ctrl+q
until the process has exited (server shut down included). Also printed: the time from
spawning to the first modal. Rows to read: flood/quiet for key p50 and for quit.
``--compare DIR`` also runs mcp_inspector from DIR (e.g. ``git archive`` of main before the
fix), interleaved. Nothing is asserted: figures for people.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import statistics
import subprocess
import threading
import time

from common import PYTHON, REPO

SERVER = REPO / "tests" / "servers" / "request_flood_server.py"
LIMIT = 300.0  # seconds a child may take before it is called stuck (and killed); --limit

CHILD = r"""
import sys, time, json
from textual import events
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.screens.answer.base import ServerRequestScreen

command, presses = json.loads(sys.argv[1]), int(sys.argv[2])
app = make_app(ServerSpec("bench", command), config=TuiConfig())
PROBE = "f20"
state = {"sent": None, "lat": [], "left": presses, "started": False}
original = app.on_event

async def on_event(event):
    if isinstance(event, events.Key) and event.key == PROBE and state["sent"] is not None:
        state["lat"].append((time.perf_counter() - state["sent"]) * 1000)
        state["sent"] = None
        app.set_timer(0.05, press)
    await original(event)

app.on_event = on_event

def send(key):
    event = events.Key(key, None)
    event.set_sender(app)
    app._driver.send_message(event)

def press():
    if state["left"] == 0:
        print("keys " + json.dumps(state["lat"]), flush=True)
        print("quit", flush=True)
        send("ctrl+q")
        return
    state["left"] -= 1
    state["sent"] = time.perf_counter()
    send(PROBE)

def poll():
    if not state["started"] and isinstance(app.screen, ServerRequestScreen):
        state["started"] = True
        print("modal", flush=True)
        press()

app.call_later(lambda: app.set_interval(0.005, poll))
app.run(headless=True, size=(120, 40))
"""


def run_once(source: str, count: int, presses: int) -> dict:
    env = dict(
        os.environ,
        PYTHONPATH=source,
        XDG_STATE_HOME=os.environ.get("XDG_STATE_HOME", "/tmp/mcp-inspector-bench-state"),
        XDG_CONFIG_HOME="/tmp/mcp-inspector-bench-config",
    )
    command = [PYTHON, str(SERVER), "--flood-on-start", str(count)]
    started = time.perf_counter()
    child = subprocess.Popen(
        [PYTHON, "-c", CHILD, json.dumps(command), str(presses)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=source,  # python -c puts the working directory first on sys.path
    )
    marks: dict = {}
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in child.stdout] + [lines.put(None)], daemon=True).start()
    while True:
        try:
            line = lines.get(timeout=max(0.01, LIMIT - (time.perf_counter() - started)))
        except queue.Empty:
            break  # stuck: killed below
        if line is None:
            break
        name, _, rest = line.strip().partition(" ")
        marks[name] = time.perf_counter() - started
        if name == "keys":
            marks["latencies"] = json.loads(rest)
    with contextlib.suppress(subprocess.TimeoutExpired):
        child.wait(timeout=max(0.01, LIMIT - (time.perf_counter() - started)))
    ended = time.perf_counter() - started
    if child.poll() is None:
        child.kill()
        child.wait()
        return {"stuck": True, **{k: v for k, v in marks.items() if k != "latencies"}}
    latencies = marks.get("latencies") or []
    return {
        "modal_s": marks.get("modal"),
        "key_p50_ms": statistics.median(latencies) if latencies else None,
        "key_max_ms": max(latencies) if latencies else None,
        "quit_s": ended - marks["quit"] if "quit" in marks else None,
    }


def fmt(value, unit: str) -> str:
    return "-" if value is None else f"{value:.1f} {unit}" if unit == "ms" else f"{value:.2f} {unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--compare", metavar="DIR", help="also run mcp_inspector from DIR, interleaved")
    parser.add_argument("--limit", type=float, default=LIMIT, help="seconds before a run is called stuck")
    args = parser.parse_args()
    globals()["LIMIT"] = args.limit
    sources = {"this": str(REPO)}
    if args.compare:
        sources["compare"] = os.path.abspath(args.compare)
    rows: dict = {}
    for round_ in range(args.rounds):
        for label, source in sources.items():
            for variant, count in (("quiet", 1), ("flood", args.count)):
                result = run_once(source, count, args.presses)
                rows.setdefault((label, variant), []).append(result)
                print(f"round {round_ + 1} {label:7} {variant:5}: {result}", flush=True)

    def med(label: str, variant: str, key: str):
        values = [r[key] for r in rows[(label, variant)] if r.get(key) is not None]
        return statistics.median(values) if values else None

    print(f"\n{args.count} elicitation/create requests in one write; medians over {args.rounds} rounds")
    print(f"{'':8} {'variant':7} {'first modal':>12} {'key p50':>10} {'key max':>10} {'ctrl+q->exit':>13} stuck")
    for label in sources:
        for variant in ("quiet", "flood"):
            stuck = sum(1 for r in rows[(label, variant)] if r.get("stuck"))
            print(
                f"{label:8} {variant:7} {fmt(med(label, variant, 'modal_s'), 's'):>12} "
                f"{fmt(med(label, variant, 'key_p50_ms'), 'ms'):>10} "
                f"{fmt(med(label, variant, 'key_max_ms'), 'ms'):>10} "
                f"{fmt(med(label, variant, 'quit_s'), 's'):>13} {stuck}/{args.rounds}"
            )
        for key, name in (("key_p50_ms", "key p50"), ("quit_s", "ctrl+q->exit")):
            quiet, flood = med(label, "quiet", key), med(label, "flood", key)
            if quiet and flood:
                print(f"{label:8} flood/quiet {name}: {flood / quiet:.2f}x")


if __name__ == "__main__":
    main()
