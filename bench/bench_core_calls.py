"""Per-call overhead of our core vs minimal hand-written clients, against the same server.

    python bench/bench_core_calls.py [--calls 2000] [--warmup 200] [--rounds 5] [--profile]

Every variant drives ``bench/servers/minimal_server.py`` (a fresh process per round)
through ``initialize`` then sequential ``tools/call add`` requests, each timed from send
to matching response:

* ``minimal asyncio``  - the ~50-line asyncio client below: reader task, id -> Future map,
                         json.loads. Same I/O model as ours, so its ratio measures the
                         overhead of our layers (traffic store, classification, pending
                         requests, timeouts, validation). Target: ours <= 1.5x this.
* ``minimal blocking`` - ``bench/minimal_client.py``: blocking pipes, no event loop. The floor.
* ``ours request``     - ``McpSession(StdioTransport)`` then ``session.connection.request``.
* ``ours call_tool``   - ``session.call_tool`` (progress token, argument check against the
                         listed inputSchema, result analysis): what the CLI and TUI use.

Variants are interleaved, rotating the order each round; the figure reported is the
median of per-round medians, with p95 over all calls and the min..max of round medians.
``--profile`` instead runs cProfile over ``call_tool`` and prints the hottest functions.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import time

from common import (
    Series,
    machine_note,
    minimal_server_cmd,
    paired_ratio,
    print_series_table,
    verdict,
)

TARGET = 1.5


# -- baseline (a): a minimal asyncio client -----------------------------------------
class MinimalAsyncClient:
    """JSON-RPC over asyncio pipes, nothing else: the same I/O model as our core."""

    def __init__(self, cmd: list[str]) -> None:
        self.cmd = cmd
        self.pending: dict[int, asyncio.Future] = {}
        self.next_id = 0

    async def start(self) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            *self.cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24
        )
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        stdout = self.proc.stdout
        while line := await stdout.readline():
            msg = json.loads(line)
            future = self.pending.pop(msg.get("id"), None) if "method" not in msg else None
            if future is not None and not future.done():
                future.set_result(msg)
        for future in self.pending.values():
            future.set_exception(EOFError("server exited"))

    async def _write(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        await self.proc.stdin.drain()

    async def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        future = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = future
        await self._write({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        msg = await future
        if "error" in msg:
            raise RuntimeError(msg["error"])
        return msg["result"]

    async def initialize(self) -> None:
        await self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "minimal-async", "version": "0"},
            },
        )
        await self._write({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def close(self) -> None:
        self.proc.stdin.close()
        await self.proc.wait()
        await self.reader


async def _minimal_async_calls(n: int, warmup: int) -> list[float]:
    client = MinimalAsyncClient(minimal_server_cmd())
    await client.start()
    try:
        await client.initialize()
        for i in range(warmup):
            await client.request("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
        latencies = []
        cpu0 = time.process_time()
        for i in range(n):
            t0 = time.perf_counter()
            await client.request("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
            latencies.append(time.perf_counter() - t0)
        return latencies, (time.process_time() - cpu0) / n
    finally:
        await client.close()


def minimal_async(n: int, warmup: int) -> tuple[list[float], float]:
    return asyncio.run(_minimal_async_calls(n, warmup))


# -- baseline (b): the blocking-pipes client ----------------------------------------
def minimal_blocking(n: int, warmup: int) -> tuple[list[float], float]:
    import minimal_client

    conn = minimal_client._Conn(minimal_server_cmd())
    try:
        conn.initialize()
        for i in range(warmup):
            conn.request("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
        latencies = []
        cpu0 = time.process_time()
        for i in range(n):
            t0 = time.perf_counter()
            conn.request("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})
            latencies.append(time.perf_counter() - t0)
        return latencies, (time.process_time() - cpu0) / n
    finally:
        conn.close()


# -- ours ----------------------------------------------------------------------------
async def _ours(n: int, warmup: int, via: str, profiler: cProfile.Profile | None = None) -> tuple[list[float], float]:
    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.transport.stdio import StdioTransport

    async with McpSession(StdioTransport(minimal_server_cmd())) as session:
        await session.initialize()
        await session.list_tools()  # so call_tool validates against the inputSchema, as in real use
        latencies = []
        if via == "call_tool":

            async def call(i: int) -> None:
                outcome = await session.call_tool("add", {"a": i, "b": 1})
                assert not outcome.is_error
        else:
            request = session.connection.request

            async def call(i: int) -> None:
                await request("tools/call", {"name": "add", "arguments": {"a": i, "b": 1}})

        for i in range(warmup):
            await call(i)
        if profiler is not None:
            profiler.enable()
        cpu0 = time.process_time()
        for i in range(n):
            t0 = time.perf_counter()
            await call(i)
            latencies.append(time.perf_counter() - t0)
        cpu = (time.process_time() - cpu0) / n
        if profiler is not None:
            profiler.disable()
        return latencies, cpu


def ours(via: str):
    def run(n: int, warmup: int) -> tuple[list[float], float]:
        import anyio

        return anyio.run(_ours, n, warmup, via)

    return run


def profile(n: int, warmup: int, via: str) -> None:
    import anyio

    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    anyio.run(_ours, n, warmup, via, profiler)
    print(f"profiled {n} {via} calls in {time.perf_counter() - t0:.2f}s (incl. start/stop)\n")
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(30)
    stats.sort_stats("cumulative").print_stats(40)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000, help="timed calls per round (default 2000)")
    parser.add_argument("--warmup", type=int, default=200, help="untimed calls first (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per variant (default 5)")
    parser.add_argument("--profile", action="store_true", help="cProfile our call path instead")
    parser.add_argument(
        "--pin",
        metavar="CPUS",
        help="pin this process and the servers to these cpus (e.g. 1): "
        "removes cross-core wake-up noise, so latency tracks CPU cost",
    )
    parser.add_argument("--via", choices=["call_tool", "request"], default="call_tool", help="path to profile")
    args = parser.parse_args()
    if args.profile:
        profile(args.calls, args.warmup, args.via)
        return

    if args.pin:
        cpus = {int(c) for c in args.pin.split(",")}
        os.sched_setaffinity(0, cpus)  # servers spawned from here inherit it
    variants = [
        (Series("minimal asyncio"), Series("minimal asyncio"), minimal_async),
        (Series("minimal blocking"), Series("minimal blocking"), minimal_blocking),
        (Series("ours request"), Series("ours request"), ours("request")),
        (Series("ours call_tool"), Series("ours call_tool"), ours("call_tool")),
    ]
    pinned = f"pinned to cpu {args.pin} (client and server share it)" if args.pin else "not pinned"
    print(
        f"bench_core_calls: {args.rounds} rounds x {args.calls} sequential tools/call add "
        f"(+{args.warmup} warm-up) per variant, {pinned}; {machine_note()}"
    )
    for r in range(args.rounds):
        shift = r % len(variants)
        for wall, cpu, run in variants[shift:] + variants[:shift]:
            latencies, cpu_per_call = run(args.calls, args.warmup)
            wall.add_round(latencies)
            cpu.add_round([cpu_per_call])
        print(
            f"  round {r + 1}/{args.rounds}: "
            + ", ".join(f"{w.name} {w.round_medians[-1] * 1e6:.0f}us" for w, _, _ in variants),
            flush=True,
        )
    walls = [w for w, _, _ in variants]
    cpus = [c for _, c, _ in variants]
    print("\nper-call latency (wall clock, send -> matching response):")
    print_series_table(walls, baseline=walls[0])
    print("\nclient CPU time per call (this process only; the server's share is excluded):")
    print_series_table(cpus, baseline=cpus[0], p95=False)
    print()
    print("ratios (median of the per-round ratios, each round's variants ran back to back; min..max):")
    for metric, series in (("latency", walls), ("client CPU", cpus)):
        base_async, base_blocking = series[0], series[1]
        for ours_s in series[2:]:
            for base, target in ((base_async, TARGET), (base_blocking, None)):
                ratio, lo, hi = paired_ratio(ours_s, base)
                label = f"  {metric}: {ours_s.name} / {base.name}"
                text = verdict(label, ratio, target) if target else f"{label}: {ratio:.2f}x (the floor; no target)"
                print(f"{text}   [{lo:.2f}..{hi:.2f}]")


if __name__ == "__main__":
    main()
