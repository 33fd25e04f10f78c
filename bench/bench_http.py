"""MCP over Streamable HTTP: our core and CLI vs minimal hand-written httpx2 clients, same server, same run.

    python bench/bench_http.py [--calls 1000] [--warmup 100] [--rounds 5] [--runs 10]
                               [--only calls|cold] [--server-mode stateful|json] [--quick]
    python bench/bench_http.py --profile legacy|modern [--calls 1000]
    python bench/bench_http.py --pin 1 ...   # the bench, its server and children on cpu 1

One server for the whole run: ``tests/servers/sdk_http_server.py`` (the official ``mcp`` SDK
2.3.0 on uvicorn, 127.0.0.1, stateful Streamable HTTP; SSE replies, or JSON replies with
``--server-mode json``). It serves both protocol eras on one URL, so both are measured on
the same process.

1. Sequential ``tools/call echo`` (per call: send -> matching reply), after ``--warmup``
   untimed calls, a fresh client per variant and round, variants interleaved and rotated:

   * ``minimal legacy``  - httpx2 ``AsyncClient``: POST initialize, POST initialized, then
     one POST per call with ``Mcp-Session-Id`` and ``MCP-Protocol-Version``; the reply is
     parsed minimally (a JSON body, or the ``data:`` lines of the SSE body), DELETE at the end.
   * ``ours legacy``     - ``McpSession(make_transport(ServerSpec(url=...)), era="legacy")``,
     ``initialize()``, then ``session.connection.request("tools/call", ...)``.
   * ``minimal modern``  - the same client in the 2026-07-28 era: ``server/discover`` first,
     then each call a standalone POST with ``MCP-Protocol-Version``, ``Mcp-Method``,
     ``Mcp-Name`` and the ``_meta`` envelope.
   * ``ours modern``     - the same session with ``era="modern"``.

   Reported: median latency (median of per-round medians), p95, min..max of round medians,
   this process's CPU time per call (the server runs elsewhere), and the ratio ours/minimal
   per era (median of per-round ratios). **Target: ours <= 1.3x minimal.**

2. Cold ``tools`` over HTTP, whole processes from start to exit, alternating, ``--runs``
   each: ``python -m mcp_inspector --url URL tools`` vs a minimal httpx2 script doing the
   same handshake and ``tools/list`` and printing the tools (``MINIMAL_TOOLS`` below). Ours
   runs with its default era detection (auto: ``server/discover`` first; this server is
   modern, so the minimal script does discover + tools/list) and with ``--era legacy``
   against the minimal legacy script (initialize, initialized, tools/list, DELETE). Also
   shown: ``python -c pass``, ``python -c 'import httpx2'`` and, for information, the modern
   minimal on ``httpx2.AsyncClient`` under ``asyncio.run`` (what an event loop costs).
   **Target: ours <= 1.2x** (against the synchronous minimal scripts).

``--profile ERA`` runs cProfile over our call path instead and prints the top costs.
Nothing asserts a time; the bench exits 0 and prints the figures.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from common import PYTHON, REPO, SOURCE, Series, machine_note, paired_ratio, print_series_table, verdict

CALLS_TARGET = 1.3
COLD_TARGET = 1.2
SDK_HTTP_SERVER = REPO / "tests" / "servers" / "sdk_http_server.py"
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
ACCEPT = "application/json, text/event-stream"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "minimal-http", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


# -- the server ----------------------------------------------------------------------
class Server:
    """sdk_http_server.py in its own process group; ``url`` once it listens."""

    def __init__(self, mode: str) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, str(SDK_HTTP_SERVER), "--mode", mode],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        if not line.startswith("PORT "):
            self.stop()
            raise SystemExit(f"sdk_http_server.py did not start (said {line!r})")
        self.url = f"http://127.0.0.1:{int(line.split()[1])}/mcp"

    def stop(self) -> None:
        import signal

        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


# -- the minimal clients -------------------------------------------------------------
def parse_reply(content_type: str, body: bytes, msg_id: Any) -> dict:
    """The JSON-RPC reply to ``msg_id`` in a JSON body or an SSE body (its ``data:`` lines)."""
    if content_type.startswith("application/json"):
        return json.loads(body)
    for block in body.split(b"\n\n"):
        data = b"\n".join(line[5:].lstrip() for line in block.split(b"\n") if line.startswith(b"data:"))
        if data:
            msg = json.loads(data)
            if msg.get("id") == msg_id and "method" not in msg:
                return msg
    raise RuntimeError(f"no reply to {msg_id!r} in the response")


class MinimalHttpClient:
    """The least an MCP client over Streamable HTTP must do, on httpx2.AsyncClient."""

    def __init__(self, url: str, era: str) -> None:
        import httpx2

        self.url = url
        self.era = era
        self.client = httpx2.AsyncClient(timeout=30)
        self.headers = {"Accept": ACCEPT, "Content-Type": "application/json"}
        self.next_id = 0

    async def request(self, method: str, params: dict, name: str | None = None) -> dict:
        self.next_id += 1
        headers = self.headers
        if self.era == "modern":
            params = {**params, "_meta": ENVELOPE}
            headers = {**headers, "Mcp-Method": method}
            if name is not None:
                headers["Mcp-Name"] = name
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        response = await self.client.post(self.url, content=body, headers=headers)
        msg = parse_reply(response.headers.get("content-type", ""), response.content, self.next_id)
        if "error" in msg:
            raise RuntimeError(f"{method}: {msg['error']}")
        return msg["result"]

    async def connect(self) -> None:
        if self.era == "modern":
            self.headers["MCP-Protocol-Version"] = MODERN
            await self.request("server/discover", {})
            return
        await self.request(
            "initialize",
            {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "minimal-http", "version": "0"}},
        )
        # the session id came with the initialize reply
        self.headers["Mcp-Session-Id"] = self._session_id
        self.headers["MCP-Protocol-Version"] = LEGACY
        await self.client.post(
            self.url, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}', headers=self.headers
        )

    async def call(self, i: int) -> dict:
        return await self.request("tools/call", {"name": "echo", "arguments": {"text": f"hello {i}"}}, name="echo")

    async def close(self) -> None:
        if "Mcp-Session-Id" in self.headers:
            await self.client.delete(self.url, headers=self.headers)
        await self.client.aclose()

    @property
    def _session_id(self) -> str:
        raise NotImplementedError


class MinimalLegacyClient(MinimalHttpClient):
    """Keeps the Mcp-Session-Id of the initialize reply (an httpx2 event hook, no extra parsing)."""

    def __init__(self, url: str) -> None:
        super().__init__(url, "legacy")
        self.session_id = ""

        async def keep(response: Any) -> None:
            self.session_id = response.headers.get("mcp-session-id") or self.session_id

        self.client.event_hooks["response"] = [keep]

    async def connect(self) -> None:
        await super().connect()
        self.client.event_hooks["response"] = []

    @property
    def _session_id(self) -> str:
        return self.session_id


def make_minimal(url: str, era: str) -> MinimalHttpClient:
    return MinimalLegacyClient(url) if era == "legacy" else MinimalHttpClient(url, "modern")


async def minimal_calls(url: str, era: str, n: int, warmup: int) -> tuple[list[float], float]:
    client = make_minimal(url, era)
    try:
        await client.connect()
        for i in range(warmup):
            await client.call(i)
        latencies = []
        cpu0 = time.process_time()
        for i in range(n):
            t0 = time.perf_counter()
            result = await client.call(i)
            latencies.append(time.perf_counter() - t0)
        assert result["content"][0]["text"] == f"hello {n - 1}", result
        return latencies, (time.process_time() - cpu0) / n
    finally:
        await client.close()


# -- ours ----------------------------------------------------------------------------
def ours_available() -> str | None:
    """None when our HTTP transport can be imported, else why not."""
    try:
        from mcp_inspector.core.config.factory import make_transport  # noqa: F401 - only whether it imports
        from mcp_inspector.core.transport import http  # noqa: F401 - only whether it imports
    except ImportError as exc:
        return f"mcp_inspector's HTTP transport is not importable ({exc})"
    return None


async def ours_calls(
    url: str, era: str, n: int, warmup: int, profiler: cProfile.Profile | None = None
) -> tuple[list[float], float]:
    from mcp_inspector.core.config.factory import make_transport
    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.core.session.mcp_session import McpSession

    spec = ServerSpec(name="bench", url=url, transport="http")
    async with McpSession(make_transport(spec), era=era, timeout=30, init_timeout=30) as session:
        await session.initialize()
        if session.era != era:
            raise SystemExit(f"ours connected in the {session.era} era, not {era}")
        request = session.connection.request
        params = {"name": "echo", "arguments": {"text": ""}}
        for i in range(warmup):
            await request("tools/call", {"name": "echo", "arguments": {"text": f"hello {i}"}})
        latencies = []
        if profiler is not None:
            profiler.enable()
        cpu0 = time.process_time()
        for i in range(n):
            params = {"name": "echo", "arguments": {"text": f"hello {i}"}}
            t0 = time.perf_counter()
            result = await request("tools/call", params)
            latencies.append(time.perf_counter() - t0)
        cpu = (time.process_time() - cpu0) / n
        if profiler is not None:
            profiler.disable()
        assert result["content"][0]["text"] == f"hello {n - 1}", result
        return latencies, cpu


def run_async(fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    import anyio

    return anyio.run(fn, *args)


# -- 1. sequential calls -------------------------------------------------------------
def bench_calls(url: str, args: argparse.Namespace) -> None:
    why_not = ours_available()
    eras = ("legacy", "modern")
    variants: list[tuple[Series, Series, Callable[[], tuple[list[float], float]]]] = []
    for era in eras:
        variants.append(
            (
                Series(f"minimal {era}"),
                Series(f"minimal {era}"),
                lambda era=era: run_async(minimal_calls, url, era, args.calls, args.warmup),
            )
        )
        if why_not is None:
            variants.append(
                (
                    Series(f"ours {era}"),
                    Series(f"ours {era}"),
                    lambda era=era: run_async(ours_calls, url, era, args.calls, args.warmup),
                )
            )
    print(
        f"1. sequential tools/call echo over Streamable HTTP: {args.rounds} rounds x {args.calls} calls "
        f"(+{args.warmup} warm-up) per variant, against {url} ({args.server_mode} replies)"
    )
    if why_not:
        print(f"   ours: not measured: {why_not}")
    for r in range(args.rounds):
        shift = r % len(variants)
        for wall, cpu, run in variants[shift:] + variants[:shift]:
            latencies, cpu_per_call = run()
            wall.add_round(latencies)
            cpu.add_round([cpu_per_call])
        print(
            f"  round {r + 1}/{args.rounds}: "
            + ", ".join(f"{w.name} {w.round_medians[-1] * 1e6:.0f}us" for w, _, _ in variants),
            flush=True,
        )
    walls = [w for w, _, _ in variants]
    cpus = [c for _, c, _ in variants]
    print("\nper-call latency (wall clock, send -> matching reply):")
    print_series_table(walls, baseline=walls[0])
    print("\nclient CPU time per call (this process only; the server's share is excluded):")
    print_series_table(cpus, baseline=cpus[0], p95=False)
    if why_not:
        return
    print("\nratios, ours / minimal of the same era (median of per-round ratios; min..max):")
    by_name = {w.name: (w, c) for w, c, _ in variants}
    for era in eras:
        (ow, oc), (mw, mc) = by_name[f"ours {era}"], by_name[f"minimal {era}"]
        ratio, lo, hi = paired_ratio(ow, mw)
        print(f"{verdict(f'  latency {era}', ratio, CALLS_TARGET)}   [{lo:.2f}..{hi:.2f}]")
        ratio, lo, hi = paired_ratio(oc, mc)
        print(f"  client CPU {era}: {ratio:.2f}x (information)   [{lo:.2f}..{hi:.2f}]")


# -- 2. cold `tools` -----------------------------------------------------------------
MINIMAL_TOOLS = r"""
import json, sys
import httpx2

url, era = sys.argv[1], sys.argv[2]
headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

def reply(response, msg_id):
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    for block in response.content.split(b"\n\n"):
        data = b"\n".join(l[5:].lstrip() for l in block.split(b"\n") if l.startswith(b"data:"))
        if data:
            msg = json.loads(data)
            if msg.get("id") == msg_id and "method" not in msg:
                return msg
    raise SystemExit("no reply")

with httpx2.Client(timeout=30) as client:
    if era == "modern":
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "minimal", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": {}}
        headers["MCP-Protocol-Version"] = "2026-07-28"
        reply(client.post(url, headers={**headers, "Mcp-Method": "server/discover"}, content=json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}})), 1)
        tools = reply(client.post(url, headers={**headers, "Mcp-Method": "tools/list"}, content=json.dumps(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}})), 2)
    else:
        init = client.post(url, headers=headers, content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "minimal", "version": "0"}}}))
        reply(init, 1)
        headers["Mcp-Session-Id"] = init.headers["mcp-session-id"]
        headers["MCP-Protocol-Version"] = "2025-11-25"
        client.post(url, headers=headers, content=b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        tools = reply(client.post(url, headers=headers, content=b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'), 2)
        client.delete(url, headers=headers)
print(json.dumps(tools["result"]["tools"], indent=2))
"""

# The same modern discover + tools/list on httpx2.AsyncClient under asyncio.run: what an async
# client pays for the event loop (asyncio, and anyio under httpcore2's async backend). Information.
MINIMAL_TOOLS_ASYNC = r"""
import asyncio, json, sys
import httpx2

async def main(url):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "minimal", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "MCP-Protocol-Version": "2026-07-28"}
    async with httpx2.AsyncClient(timeout=30) as client:
        for msg_id, method in ((1, "server/discover"), (2, "tools/list")):
            response = await client.post(url, headers={**headers, "Mcp-Method": method}, content=json.dumps(
                {"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {"_meta": meta}}))
            body = response.content
            if not response.headers.get("content-type", "").startswith("application/json"):
                body = b"\n".join(l[5:].lstrip() for l in body.split(b"\n") if l.startswith(b"data:"))
            msg = json.loads(body)
    print(json.dumps(msg["result"]["tools"], indent=2))

asyncio.run(main(sys.argv[1]))
"""


class Run:
    """One finished child: wall seconds, CPU seconds (user + system, from wait4), exit code, output."""

    def __init__(self, wall: float, cpu: float, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.wall, self.cpu, self.returncode, self.stdout, self.stderr = wall, cpu, returncode, stdout, stderr


def timed(argv: list[str], env: dict[str, str], tmpdir: Path) -> Run:
    out, err = tmpdir / "stdout", tmpdir / "stderr"
    with open(out, "wb") as fout, open(err, "wb") as ferr:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=fout, stderr=ferr, env=env, cwd=tempfile.gettempdir()
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(wall, usage.ru_utime + usage.ru_stime, proc.returncode, out.read_bytes(), err.read_bytes())


def check(name: str, run: Run, expect: bytes) -> str | None:
    if run.returncode != 0 or expect not in run.stdout:
        return (
            f"{name} failed (exit {run.returncode}): {run.stdout[-600:].decode(errors='replace')}"
            f"{run.stderr[-1200:].decode(errors='replace')}"
        )
    return None


def bench_cold(url: str, args: argparse.Namespace, tmpdir: Path) -> None:
    script = tmpdir / "minimal_http_tools.py"
    script.write_text(MINIMAL_TOOLS)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "MCP_INSPECTOR_NO_EARLY_START", "PYTHONDONTWRITEBYTECODE")
    }
    env["XDG_STATE_HOME"] = str(tmpdir / "state")
    # Bytecode as an installed package has it: cached (in a temp dir, not the repo) after the warm-up
    # run. With PYTHONDONTWRITEBYTECODE=1 every run compiled our ~50 modules from source (~200 ms)
    # while httpx2 came precompiled from site-packages.
    env["PYTHONPYCACHEPREFIX"] = str(tmpdir / "pycache")
    ours_env = {**env, "PYTHONPATH": SOURCE}
    ours = [PYTHON, "-m", "mcp_inspector", "--url", url, "tools"]
    pairs = [  # (ours name, ours argv, minimal name, minimal era)
        ("ours (auto era)", ours, "minimal modern", "modern"),
        *([("before (auto era)", ours, "minimal modern", "modern")] if args.before else []),
        (
            "ours --era legacy",
            [PYTHON, "-m", "mcp_inspector", "--url", url, "--era", "legacy", "tools"],
            "minimal legacy",
            "legacy",
        ),
    ]
    variants: list[tuple[str, list[str], dict[str, str]]] = []
    print(f"\n2. cold `tools` over HTTP: {args.runs} alternating runs each, process start to exit, against {url}")
    for name, argv, minimal_name, era in pairs:
        minimal = [PYTHON, str(script), url, era]
        if minimal_name not in {variant[0] for variant in variants}:
            problem = check(minimal_name, timed(minimal, env, tmpdir), b'"echo"')  # warm-up and check
            if problem:
                raise SystemExit(problem)
            variants.append((minimal_name, minimal, env))
        # --before DIR: the same command from another copy of the package, in the same run
        run_env = {**env, "PYTHONPATH": args.before} if name.startswith("before") else ours_env
        problem = check(name, timed(argv, run_env, tmpdir), b"echo")
        if problem:
            print(f"  {name}: not measured: {problem.strip()}")
            continue
        variants.append((name, argv, run_env))
    async_script = tmpdir / "minimal_http_tools_async.py"
    async_script.write_text(MINIMAL_TOOLS_ASYNC)
    async_minimal = [PYTHON, str(async_script), url]
    problem = check("minimal modern async", timed(async_minimal, env, tmpdir), b'"echo"')
    if problem:
        raise SystemExit(problem)
    variants += [
        ("minimal modern, asyncio", async_minimal, env),
        ("python -c pass", [PYTHON, "-c", "pass"], env),
        ("python -c 'import httpx2'", [PYTHON, "-c", "import httpx2"], env),
    ]
    walls: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in variants}
    for r in range(args.runs):
        shift = r % len(variants)
        for name, argv, run_env in variants[shift:] + variants[:shift]:
            run = timed(argv, run_env, tmpdir)
            if run.returncode != 0:
                raise SystemExit(check(name, run, b""))
            walls[name].append(run.wall)
            cpus[name].append(run.cpu)
    width = max(len(name) for name in walls)
    print(f"  {'':<{width}}  {'wall median':>11}  {'min..max':>15}   {'CPU median':>10}  {'min..max':>15}")
    for name in walls:
        w, c = walls[name], cpus[name]
        print(
            f"  {name:<{width}}  {statistics.median(w) * 1000:8.1f} ms  {min(w) * 1000:6.1f}..{max(w) * 1000:<6.1f}ms"
            f"   {statistics.median(c) * 1000:7.1f} ms  {min(c) * 1000:6.1f}..{max(c) * 1000:<6.1f}ms"
        )
    print()
    for name, _, minimal_name, _ in pairs:
        if name not in walls:
            continue
        ratio = statistics.median(walls[name]) / statistics.median(walls[minimal_name])
        paired = [o / m for o, m in zip(walls[name], walls[minimal_name], strict=True)]
        extra = statistics.median(walls[name]) - statistics.median(walls[minimal_name])
        cpu_ratio = statistics.median(cpus[name]) / statistics.median(cpus[minimal_name])
        print(
            f"{verdict(f'  wall {name} / {minimal_name}', ratio, COLD_TARGET)}; paired per run: median "
            f"{statistics.median(paired):.2f}x, {min(paired):.2f}..{max(paired):.2f}; {extra * 1000:+.0f} ms; "
            f"CPU {cpu_ratio:.2f}x"
        )
    if "before (auto era)" in walls:
        paired = [o / b for o, b in zip(walls["ours (auto era)"], walls["before (auto era)"], strict=True)]
        paired_cpu = [o / b for o, b in zip(cpus["ours (auto era)"], cpus["before (auto era)"], strict=True)]
        print(
            f"  ours (auto era) / before: wall paired median {statistics.median(paired):.2f}x, "
            f"CPU paired median {statistics.median(paired_cpu):.2f}x"
        )
    if "ours (auto era)" in walls:
        ratio = statistics.median(walls["ours (auto era)"]) / statistics.median(walls["minimal modern, asyncio"])
        cpu_ratio = statistics.median(cpus["ours (auto era)"]) / statistics.median(cpus["minimal modern, asyncio"])
        print(f"  wall ours (auto era) / minimal modern, asyncio: {ratio:.2f}x (information); CPU {cpu_ratio:.2f}x")


# -- profile -------------------------------------------------------------------------
def profile(url: str, era: str, args: argparse.Namespace) -> None:
    why_not = ours_available()
    if why_not:
        raise SystemExit(why_not)
    profiler = cProfile.Profile()
    t0 = time.perf_counter()
    latencies, cpu = run_async(ours_calls, url, era, args.calls, args.warmup, profiler)
    print(
        f"profiled {args.calls} {era} tools/call in {time.perf_counter() - t0:.2f} s (incl. connect): "
        f"median {statistics.median(latencies) * 1e6:.0f} us, client CPU {cpu * 1e6:.0f} us per call\n"
    )
    stats = pstats.Stats(profiler)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(35)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000, help="timed calls per variant and round (default 1000)")
    parser.add_argument("--warmup", type=int, default=100, help="untimed calls first (default 100)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the call bench (default 5)")
    parser.add_argument("--runs", type=int, default=10, help="runs per variant of the cold bench (default 10)")
    parser.add_argument("--only", choices=("calls", "cold"), help="run one part only")
    parser.add_argument(
        "--server-mode",
        choices=("stateful", "json"),
        default="stateful",
        help="the server's replies: SSE streams (stateful, default) or JSON bodies",
    )
    parser.add_argument("--quick", action="store_true", help="smoke run: 300 calls, 2 rounds, 4 runs")
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="cold bench: also run the auto-era command from this copy of the repo (e.g. a "
        "`git worktree add --detach` of main), alternating with ours, for before/after in one run",
    )
    parser.add_argument("--profile", choices=("legacy", "modern"), help="cProfile our call path in this era instead")
    parser.add_argument(
        "--pin",
        metavar="CPUS",
        help="pin this process and the server to these cpus (e.g. 1): "
        "less wake-up noise on a busy machine, latency then tracks CPU cost",
    )
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {int(c) for c in args.pin.split(",")})  # the server and children inherit it
    if args.quick:
        args.calls, args.warmup, args.rounds, args.runs = 300, 50, 2, 4
    server = Server(args.server_mode)
    try:
        pinned = f", pinned to cpu {args.pin}" if args.pin else ""
        print(f"bench_http: {machine_note()}{pinned}", flush=True)
        if args.profile:
            profile(server.url, args.profile, args)
            return
        if args.only in (None, "calls"):
            bench_calls(server.url, args)
        if args.only in (None, "cold"):
            with tempfile.TemporaryDirectory(prefix="bench-http-") as tmp:
                bench_cold(server.url, args, Path(tmp))
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())
