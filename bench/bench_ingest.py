"""Ingest throughput and memory of our core vs a plain asyncio reader, same bytes, same run.

    python bench/bench_ingest.py [--count 100000] [--mb 50] [--rounds 5]

A tiny inline server (``SERVER`` below) pre-builds, at startup, ``--count``
``notifications/message`` lines and one ``--mb`` MB ``tools/call`` result line. After
the handshake, ``tools/call flood`` makes it write all the notifications and then the
call's result in ONE write; ``tools/call huge`` makes it write the single huge result.

* ``ours``     - ``McpSession(StdioTransport)`` + ``call_tool``: every line is framed,
                 classified, recorded in the TrafficStore (kept in memory: the default
                 cap of 200,000 entries holds them all) and turned into a LogMessage
                 event, which a listener counts.
* ``baseline`` - asyncio subprocess pipes, ``readline`` + ``json.loads`` per line; it
                 keeps each raw line in a list, the least any inspector must keep.

Every measurement runs in a fresh child process (so peak RSS is that variant's own),
the variants alternating. Timed rounds run without tracemalloc (it slows Python
down); one extra run per variant measures the tracemalloc peak. Figures: the time
from sending the call to having its result (all notifications processed before),
frames per second, the tracemalloc peak and the peak-RSS growth during the ingest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import subprocess
import time
import tracemalloc

from common import PYTHON, REPO, fmt_bytes, machine_note

SERVER = r"""
import json, sys
count, mb = int(sys.argv[1]), float(sys.argv[2])
note = ('{"jsonrpc":"2.0","method":"notifications/message","params":'
        '{"level":"info","logger":"flood","data":"message %d"}}\n')
flood = "".join(note % i for i in range(count)).encode()
huge_text = b"x" * int(mb * 1048576)
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
        result = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in ("flood", "huge")]}
    elif method == "tools/call" and params.get("name") == "flood":
        out.write(flood + json.dumps({"jsonrpc": "2.0", "id": rid, "result": {
            "content": [{"type": "text", "text": "flooded %d" % count}]}}).encode() + b"\n")
        out.flush()
        continue
    elif method == "tools/call" and params.get("name") == "huge":
        out.write(b'{"jsonrpc":"2.0","id":' + json.dumps(rid).encode()
                  + b',"result":{"content":[{"type":"text","text":"' + huge_text + b'"}]}}\n')
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


def _rss_now() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


# -- the two readers (each runs in its own child process) ------------------------------
async def _ours(cmd: list[str], what: str, count: int, trace: bool) -> dict:
    from mcp_inspector.core.session.events import LogMessage
    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.transport.stdio import StdioTransport

    logs = 0

    def on_event(event) -> None:
        nonlocal logs
        if type(event) is LogMessage:
            logs += 1

    async with McpSession(StdioTransport(cmd), timeout=600) as session:
        session.add_listener(on_event)
        await session.initialize()
        await session.list_tools()
        rss0, base = _rss_now(), _start_trace(trace)
        t0 = time.perf_counter()
        outcome = await session.call_tool(what, {})
        elapsed = time.perf_counter() - t0
        size = len(outcome.result["content"][0]["text"])
        measured = _measure(elapsed, rss0, base, trace)
        entries = len(session.store)
    return {**measured, "frames": logs + 1 if what == "flood" else 1, "logs": logs, "text": size, "entries": entries}


async def _baseline(cmd: list[str], what: str, count: int, trace: bool) -> dict:
    proc = await asyncio.create_subprocess_exec(
        *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 30
    )
    kept: list[bytes] = []
    logs = 0

    async def request(msg_id: int, method: str, params: dict) -> dict:
        nonlocal logs
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode() + b"\n"
        )
        await proc.stdin.drain()
        while True:
            line = await proc.stdout.readline()
            if not line:
                raise EOFError("server exited")
            kept.append(line)
            msg = json.loads(line)
            if msg.get("id") == msg_id and "method" not in msg:
                return msg["result"]
            if msg.get("method") == "notifications/message":
                logs += 1

    await request(
        1,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "0"}},
    )
    proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    await request(2, "tools/list", {})
    rss0, base = _rss_now(), _start_trace(trace)
    t0 = time.perf_counter()
    result = await request(3, "tools/call", {"name": what, "arguments": {}})
    elapsed = time.perf_counter() - t0
    size = len(result["content"][0]["text"])
    measured = _measure(elapsed, rss0, base, trace)
    proc.stdin.close()
    await proc.wait()
    return {**measured, "frames": logs + 1 if what == "flood" else 1, "logs": logs, "text": size, "entries": len(kept)}


def _start_trace(trace: bool) -> int:
    if not trace:
        return 0
    tracemalloc.start()
    return tracemalloc.get_traced_memory()[0]


def _measure(elapsed: float, rss0: int, base: int, trace: bool) -> dict:
    out = {"seconds": elapsed, "rss_growth": _peak_rss() - rss0, "peak_rss": _peak_rss()}
    if trace:
        out["traced_peak"] = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    return out


def child(variant: str, what: str, count: int, mb: float, trace: bool) -> None:
    cmd = [PYTHON, "-c", SERVER, str(count if what == "flood" else 0), str(mb if what == "huge" else 0)]
    if variant == "ours":
        import anyio

        result = anyio.run(_ours, cmd, what, count, trace)
    else:
        result = asyncio.run(_baseline(cmd, what, count, trace))
    print(json.dumps(result))


# -- the parent: alternate fresh children, report ------------------------------------
def run_child(variant: str, what: str, count: int, mb: float, trace: bool) -> dict:
    argv = [PYTHON, __file__, "--child", variant, "--what", what, "--count", str(count), "--mb", str(mb)]
    if trace:
        argv.append("--trace")
    done = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{variant} {what} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(what: str, count: int, mb: float, rounds: int) -> None:
    runs: dict[str, list[dict]] = {"baseline": [], "ours": []}
    for r in range(rounds):
        order = ["baseline", "ours"] if r % 2 == 0 else ["ours", "baseline"]
        for variant in order:
            runs[variant].append(run_child(variant, what, count, mb, trace=False))
    traced = {v: run_child(v, what, count, mb, trace=True) for v in ("baseline", "ours")}
    expected_frames = count + 1 if what == "flood" else 1
    for variant, results in runs.items():
        for res in results:
            if res["frames"] != expected_frames:
                raise SystemExit(f"{variant} saw {res['frames']} frames, expected {expected_frames}")
    label = (
        f"{count:,} notifications/message + 1 result in one write" if what == "flood" else f"one {mb:g} MB result frame"
    )
    print(f"\n{label}  ({rounds} rounds, fresh process each):")
    rate_label = "frames/s" if what == "flood" else "MB/s"
    print(
        f"  {'variant':<9} {'median time':>12} {'min..max':>21} {rate_label:>11} {'tracemalloc peak':>17} "
        f"{'RSS growth':>11} {'peak RSS':>10}"
    )
    med = {}
    for variant in ("baseline", "ours"):
        times = [res["seconds"] for res in runs[variant]]
        med[variant] = statistics.median(times)
        rss = statistics.median(res["rss_growth"] for res in runs[variant])
        peak = statistics.median(res["peak_rss"] for res in runs[variant])
        fps = (expected_frames if what == "flood" else mb) / med[variant]
        print(
            f"  {variant:<9} {med[variant] * 1000:9.1f} ms {min(times) * 1000:9.1f}..{max(times) * 1000:<9.1f} "
            f"{fps:11,.0f} {fmt_bytes(traced[variant]['traced_peak']):>17} {fmt_bytes(rss):>11} {fmt_bytes(peak):>10}"
        )
    ratios = [o["seconds"] / b["seconds"] for o, b in zip(runs["ours"], runs["baseline"], strict=True)]
    print(
        f"  ours / baseline: time {med['ours'] / med['baseline']:.2f}x (paired per round: median "
        f"{statistics.median(ratios):.2f}x, {min(ratios):.2f}..{max(ratios):.2f}), "
        f"tracemalloc peak {traced['ours']['traced_peak'] / max(1, traced['baseline']['traced_peak']):.2f}x"
    )
    if what == "flood":
        per_entry = (traced["ours"]["traced_peak"] - traced["baseline"]["traced_peak"]) / count
        print(
            f"  ours keeps {runs['ours'][0]['entries']:,} store entries; extra memory per frame vs keeping raw lines: "
            f"~{per_entry:.0f} bytes"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100_000, help="notifications in the flood (default 100000)")
    parser.add_argument("--mb", type=float, default=50, help="size of the huge result frame in MB (default 50)")
    parser.add_argument("--rounds", type=int, default=5, help="timed runs per variant (default 5)")
    parser.add_argument("--only", choices=["flood", "huge"], help="run one of the two measurements")
    parser.add_argument("--child", choices=["ours", "baseline"], help=argparse.SUPPRESS)
    parser.add_argument("--what", choices=["flood", "huge"], help=argparse.SUPPRESS)
    parser.add_argument("--trace", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.what, args.count, args.mb, args.trace)
        return
    print(f"bench_ingest: {machine_note()}")
    if args.only in (None, "flood"):
        report("flood", args.count, args.mb, args.rounds)
    if args.only in (None, "huge"):
        report("huge", args.count, args.mb, args.rounds)


if __name__ == "__main__":
    main()
