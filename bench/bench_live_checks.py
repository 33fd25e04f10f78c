"""Ingestion with the TUI's live checks on vs off: frames per second into the store.

    python bench/bench_live_checks.py [--count 50000] [--rounds 5]

The same path the TUI uses: a real ``McpSession(StdioTransport)`` appends every frame to a
``TrafficStore``; with checks on, ``tui/server/live_checks.LiveChecks`` is attached as the TUI
attaches it (``session_started`` before the session is made: the checker is a store listener) and
its ``tick`` runs every 0.1 s on the same event loop, as the Checks timer of the main screen does
(the deferred schema/content checks within its time budget). Off: the same session and an idle
ticker. An inline server answers ``tools/call flood`` with ``--count`` frames in one write, half
``notifications/message`` and half ``notifications/progress`` for the call's token (the progress
rule parses those), then the result.

Each run is a fresh child process, variants alternating. Reported: median ingestion time (the call
until its result, every frame before it in the store) and this process's CPU time over it, frames
per second, the ratio on/off
(**target: <= 1.1x**), and for checks on the frames still queued and skipped at the end and the
time to drain the rest afterwards (not part of ingestion: the timer does it once the flood stops).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import time

from common import PYTHON, REPO, machine_note

SERVER = r"""
import json, sys
count = int(sys.argv[1])
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    rid, method, params = msg["id"], msg.get("method"), msg.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                  "capabilities": {"tools": {}, "logging": {}}, "serverInfo": {"name": "flood", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "flood", "description": "d", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        token = json.dumps((params.get("_meta") or {}).get("progressToken"))
        parts = []
        for i in range(count):
            if i % 2:
                parts.append('{"jsonrpc":"2.0","method":"notifications/progress","params":'
                             '{"progressToken":%s,"progress":%d,"total":%d}}\n' % (token, i, count))
            else:
                parts.append('{"jsonrpc":"2.0","method":"notifications/message","params":'
                             '{"level":"info","logger":"flood","data":"message %d"}}\n' % i)
        parts.append(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "flooded %d" % count}]}}) + "\n")
        out.write("".join(parts).encode())
        out.flush()
        continue
    else:
        error = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}}
        out.write(json.dumps(error).encode() + b"\n")
        out.flush()
        continue
    out.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode() + b"\n")
    out.flush()
"""
TICK = 0.1  # seconds between ticks: the main screen's Checks timer


async def _run(variant: str, count: int) -> dict:
    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.traffic.store import TrafficStore
    from mcp_inspector.core.transport.stdio import StdioTransport
    from mcp_inspector.tui.server.live_checks import LiveChecks

    store = TrafficStore()
    checks = LiveChecks(store) if variant == "on" else None
    if checks is not None:
        checks.preload()
        while not checks.ready:  # as in the TUI, the models are in before the server's first frames
            await asyncio.sleep(0.02)
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            await asyncio.sleep(TICK)
            if checks is not None:
                checks.tick()

    tick_task = asyncio.ensure_future(ticker())
    cmd = [PYTHON, "-c", SERVER, str(count)]
    if checks is not None:
        checks.session_started("stdio")
    async with McpSession(StdioTransport(cmd), store=store, timeout=600) as session:
        await session.initialize()
        await session.list_tools()
        first = store.last_seq
        t0, c0 = time.perf_counter(), time.process_time()
        await session.call_tool("flood", {})
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        frames = store.last_seq - first
        out = {"seconds": elapsed, "cpu": cpu, "frames": frames}
        if checks is not None:
            out["pending"] = checks.pending
            out["skipped"] = checks.skipped
            t1 = time.perf_counter()
            checks.drain_all()
            out["drain"] = time.perf_counter() - t1
            out["findings"] = checks.summary()
    stop.set()
    await tick_task
    return out


def child(variant: str, count: int) -> None:
    import anyio

    print(json.dumps(anyio.run(_run, variant, count)))


def run_child(variant: str, count: int) -> dict:
    argv = [PYTHON, __file__, "--child", variant, "--count", str(count)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{variant} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=50_000, help="frames in the flood")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--child", choices=("on", "off"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.count)
        return
    print(machine_note())
    runs: dict[str, list[dict]] = {"off": [], "on": []}
    ratios, cpu_ratios = [], []
    for r in range(args.rounds):
        order = ["off", "on"] if r % 2 == 0 else ["on", "off"]
        got = {variant: run_child(variant, args.count) for variant in order}
        for variant, result in got.items():
            runs[variant].append(result)
        ratios.append(got["on"]["seconds"] / got["off"]["seconds"])
        cpu_ratios.append(got["on"]["cpu"] / got["off"]["cpu"])
    print(f"ingestion of {args.count:,} frames (half notifications/message, half progress), {args.rounds} rounds")
    medians = {}
    for variant in ("off", "on"):
        seconds = statistics.median(res["seconds"] for res in runs[variant])
        medians[variant] = seconds
        cpu = medians[variant + "-cpu"] = statistics.median(res["cpu"] for res in runs[variant])
        frames = runs[variant][0]["frames"]
        print(
            f"  checks {variant:3}: {seconds * 1000:8.1f} ms  {frames / seconds:10,.0f} frames/s"
            f"  CPU {cpu * 1000:6.0f} ms"
            f"  (rounds {min(res['seconds'] for res in runs[variant]) * 1000:.0f}"
            f"..{max(res['seconds'] for res in runs[variant]) * 1000:.0f} ms)"
        )
    on = runs["on"]
    print(
        f"  checks on, at the result: {statistics.median(res['pending'] for res in on):,.0f} frames queued, "
        f"{statistics.median(res['skipped'] for res in on):,.0f} skipped (queue full); the rest drained in "
        f"{statistics.median(res['drain'] for res in on) * 1000:.0f} ms afterwards; findings {on[0]['findings']}"
    )
    ratio = medians["on"] / medians["off"]
    print(
        f"  ratio on/off: {ratio:.3f}x wall (paired per round {min(ratios):.3f}..{max(ratios):.3f}), "
        f"{medians['on-cpu'] / medians['off-cpu']:.3f}x CPU (paired {min(cpu_ratios):.3f}..{max(cpu_ratios):.3f});"
        " target <= 1.1x"
    )


if __name__ == "__main__":
    main()
