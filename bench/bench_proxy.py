"""The recording proxy's cost: round trips through it vs direct, and a flood through it with a viewer.

    python bench/bench_proxy.py [--calls N] [--rounds R] [--flood N] [--only stdio|http|flood]

1. Sequential ``tools/call`` round trips (``minimal_client.run_calls``, blocking pipes, after
   ``SETTLE`` s of untimed calls) against the minimal server and server-everything: direct,
   through relays that only copy bytes (the floor: a ``cat`` pipeline, ``servers/relay_floor.py``
   with ``os.read``/``os.write`` threads or ``os.splice``, ``socat`` if installed) and through
   ``mcp-inspector proxy --record``, interleaved per round. Reported: median per call, the paired
   ratio to direct, and the proxy's to the best floor of the round. **Target: <= 1.1x** (issue 24).
   Any relay adds two pipe hops and two wake-ups per round trip: against a server that answers
   in microseconds that is most of a round trip (the floor is above 1.1x there); against a real
   server (node, ~0.2 ms+) it is the small part.
2. A flood of N notifications (tests/servers/proxy_peer.py --flood) through the proxy, recorded,
   with a viewer attached that reads nothing (the worst viewer) and one that reads everything;
   the host reads it all. Reported: the host's time vs direct, frames the host and the recording
   got (all of them), what the viewers got + missed, and the proxy's peak RSS.

3. HTTP: the same sequential calls over Streamable HTTP (a blocking httpx2 client, one POST per
   call, the session id kept) against server-everything ``streamableHttp``, direct, through the
   floors of an HTTP relay (``servers/http_relay_floor.py``: bytes copied by asyncio protocols; an
   h11 parse-and-forward loop) and through ``proxy --listen 127.0.0.1:0 --url --record``,
   interleaved per round; also each relay's CPU time per call. ``--compare TREE`` adds the proxy
   of another checkout (e.g. a detached worktree of main) to each round. Same target.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import PYTHON, REPO, minimal_server_cmd, server_everything_cmd
from minimal_client import run_calls

PEER = [PYTHON, str(REPO / "tests" / "servers" / "proxy_peer.py")]
SETTLE = 0.5  # seconds of untimed calls per run: the proxy's recorder process is still starting (~0.15 s)
RELAY_FLOOR = REPO / "bench" / "servers" / "relay_floor.py"
HTTP_RELAY_FLOOR = REPO / "bench" / "servers" / "http_relay_floor.py"


def proxy(record: Path, *command: str, name: str = "bench") -> list[str]:
    return [PYTHON, "-m", "mcp_inspector", "proxy", "--record", str(record), "--name", name, "--", *command]


def floors(server: list[str]) -> dict[str, list[str]]:
    """Relays that only copy bytes: what any process in the middle costs, with nothing of ours."""
    variants = {
        "floor: cat": ["sh", "-c", 'cat | "$@" | cat', "sh", *server],
        "floor: py read/write": [PYTHON, str(RELAY_FLOOR), "--", *server],
        "floor: py splice": [PYTHON, str(RELAY_FLOOR), "--splice", "--", *server],
    }
    if shutil.which("socat"):
        variants["floor: socat"] = ["socat", "-b65536", "STDIO", "EXEC:" + subprocess.list2cmdline(server)]
    return variants


def round_trips(label: str, server: list[str], calls: int, rounds: int, tmp: Path, tool: str = "add") -> None:
    """Per round, interleaved: direct, each floor, the proxy; medians, and paired ratios to direct
    (and the proxy's to the best floor of the same round)."""
    run_calls(server, 20, tool)  # warm-up: caches, JIT of node
    variants = {"direct": server, **floors(server)}
    medians: dict[str, list[float]] = {name: [] for name in [*variants, "proxy --record"]}
    for number in range(rounds):
        for name, command in variants.items():
            medians[name].append(statistics.median(run_calls(command, calls, tool, SETTLE)))
        proxied = proxy(tmp / f"rt-{number}.jsonl", *server)
        medians["proxy --record"].append(statistics.median(run_calls(proxied, calls, tool, SETTLE)))
    direct = medians["direct"]
    best_floor = [min(medians[name][i] for name in variants if name != "direct") for i in range(rounds)]
    print(f"{label}: median per call of {rounds} rounds (paired ratio to direct; rounds min..max)")
    for name, values in medians.items():
        ratios = [value / base for value, base in zip(values, direct, strict=True)]
        print(
            f"  {name:<22} {statistics.median(values) * 1e6:8.1f} us   {statistics.median(ratios):5.2f}x"
            f" ({min(ratios):.2f}..{max(ratios):.2f})"
        )
    over = [p / f for p, f in zip(medians["proxy --record"], best_floor, strict=True)]
    print(
        f"  proxy / best floor of the round: {statistics.median(over):.2f}x ({min(over):.2f}..{max(over):.2f});"
        f" target proxy / direct <= 1.10x"
    )


def _host(command: list[str], env: dict[str, str]) -> tuple[float, int, subprocess.Popen]:
    """Run the flood, the host reading everything: (seconds, frames, the process, still to reap)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
    assert process.stdout is not None and process.stdin is not None
    process.stdin.close()
    frames = process.stdout.read().count(b"notifications/progress")
    return time.perf_counter() - started, frames, process


def _viewer(path: Path, reads: bool, counts: dict[str, int]) -> None:
    from mcp_inspector.core.proxy.viewer import Dropped, Ended, FeedReader

    deadline = time.monotonic() + 30
    while not path.exists():
        if time.monotonic() > deadline:
            return
        time.sleep(0.001)
    reader = FeedReader(path)
    if not reads:
        counts["stalled"] = 1
        time.sleep(3600)  # a daemon thread: it never reads (its socket buffer fills, then the ring drops)
    for event in reader.events():
        if isinstance(event, Dropped):
            counts["missed"] += event.count
        elif isinstance(event, Ended):
            break
        else:
            counts["got"] += 1
    reader.close()


def flood(count: int, tmp: Path) -> None:
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp))
    direct_s, direct_frames, process = _host([*PEER, "--flood", str(count)], env)
    process.wait()
    record = tmp / "flood.jsonl"
    counts = {"got": 0, "missed": 0}
    sock = tmp / "mcp-inspector" / "flood.sock"
    threading.Thread(target=_viewer, args=(sock, False, {}), daemon=True).start()
    reading = threading.Thread(target=_viewer, args=(sock, True, counts), daemon=True)
    reading.start()
    proxied_s, proxied_frames, process = _host(proxy(record, *PEER, "--flood", str(count), name="flood"), env)
    _, status, usage = os.wait4(process.pid, 0)
    reading.join(30)
    from mcp_inspector.core.traffic.loading import load_session

    recorded = sum(1 for e in load_session(record).store.iter_all() if e.method == "notifications/progress")
    print(
        f"flood {count:,}: host got {proxied_frames:,} through the proxy ({direct_frames:,} direct); "
        f"time {proxied_s:.2f} s vs {direct_s:.2f} s direct ({proxied_s / direct_s:.2f}x)"
    )
    print(
        f"  recorded {recorded:,}; a reading viewer got {counts['got']:,} + missed {counts['missed']:,} "
        f"(entries, with the proxy's notes); a stalled viewer attached throughout; "
        f"peak RSS of the proxy (or its recorder) {usage.ru_maxrss / 1024:.0f} MiB; "
        f"exit status {os.waitstatus_to_exitcode(status)}"
    )


def _http_calls(url: str, count: int) -> list[float]:
    import httpx2

    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    with httpx2.Client(timeout=30) as client:
        hello = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        }
        first = client.post(url, json=hello, headers=headers)
        session = first.headers.get("mcp-session-id")
        if session:
            headers["mcp-session-id"] = session
        client.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
        latencies = []
        for number in range(1, count + 1):
            call = {
                "jsonrpc": "2.0",
                "id": number,
                "method": "tools/call",
                "params": {"name": "get-sum", "arguments": {"a": number, "b": 1}},
            }
            started = time.perf_counter()
            reply = client.post(url, json=call, headers=headers)
            if b'"result"' not in reply.content:
                raise RuntimeError(f"no result: {reply.status_code} {reply.content[:200]!r}")
            latencies.append(time.perf_counter() - started)
        if session:
            client.delete(url, headers=headers)
        return latencies


def _start_listener(command: list[str], env: dict[str, str]) -> tuple[str, subprocess.Popen]:
    """Start a proxy or floor relay that says ``listening on URL`` on stderr: (its URL, the process)."""
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert process.stderr is not None
    line = process.stderr.readline().decode()
    if "listening on " not in line:
        process.kill()
        raise RuntimeError(f"{command[1:4]} did not start: {line}")
    return line.split("listening on ", 1)[1].strip(), process


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def http_variants(url: str, record: Path, compare: list[str]) -> dict[str, tuple[list[str], str | None]]:
    """name -> (the command of a relay that listens, PYTHONPATH for it or None)."""
    proxy_cmd = [PYTHON, "-m", "mcp_inspector", "proxy", "--listen", "127.0.0.1:0", "--url", url, "--record"]
    variants: dict[str, tuple[list[str], str | None]] = {
        "floor: tcp bytes": ([PYTHON, str(HTTP_RELAY_FLOOR), "--mode", "tcp", "--url", url], None),
        "floor: h11 relay": ([PYTHON, str(HTTP_RELAY_FLOOR), "--mode", "h11", "--url", url], None),
        "proxy --record": ([*proxy_cmd, str(record)], str(REPO)),
    }
    for number, tree in enumerate(compare, 1):
        variants[f"proxy @{number} --record"] = ([*proxy_cmd, str(record.with_suffix(f".{number}.jsonl"))], tree)
    return variants


def http_round_trips(calls: int, rounds: int, tmp: Path, compare: list[str]) -> None:
    """Per round, interleaved: direct, the floors, the proxy (and the proxy of each ``compare`` tree):
    median per call, paired ratio to direct, and each relay's CPU time per timed call."""
    everything = server_everything_cmd()
    if everything is None:
        print("HTTP: server-everything not installed, skipped")
        return
    sys.path.insert(0, str(REPO / "tests"))
    from http_fixtures import start_everything  # the test suite's launcher: PORT=0 on 127.0.0.1

    server = start_everything([everything[1]], "streamableHttp")
    try:
        names = ["direct", *http_variants(server.url, tmp, compare)]
        medians: dict[str, list[float]] = {name: [] for name in names}
        cpu: dict[str, list[float]] = {name: [] for name in names}
        _http_calls(server.url, 20)
        for number in range(rounds):
            medians["direct"].append(statistics.median(_http_calls(server.url, calls)))
            for name, (command, tree) in http_variants(server.url, tmp / f"http-{number}.jsonl", compare).items():
                env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp))
                if tree is not None:
                    env["PYTHONPATH"] = tree
                url, process = _start_listener(command, env)
                try:
                    _http_calls(url, 20)  # untimed: the recorder starting, the connection warm
                    before = _cpu_seconds(process.pid)
                    medians[name].append(statistics.median(_http_calls(url, calls)))
                    cpu[name].append((_cpu_seconds(process.pid) - before) / (calls + 3))
                finally:
                    process.terminate()
                    process.wait()
        direct = medians["direct"]
        print(f"HTTP server-everything: median per call of {rounds} rounds of {calls} (paired ratio to direct)")
        for name in names:
            ratios = [value / base for value, base in zip(medians[name], direct, strict=True)]
            cpu_text = f"   relay CPU {statistics.median(cpu[name]) * 1e6:6.0f} us/call" if cpu[name] else ""
            print(
                f"  {name:<22} {statistics.median(medians[name]) * 1e6:8.1f} us   {statistics.median(ratios):5.2f}x"
                f" ({min(ratios):.2f}..{max(ratios):.2f}){cpu_text}"
            )
        for tree_number, tree in enumerate(["", *compare]):
            name = f"proxy @{tree_number} --record" if tree else "proxy --record"
            tcp = [p / f for p, f in zip(medians[name], medians["floor: tcp bytes"], strict=True)]
            h11 = [p / f for p, f in zip(medians[name], medians["floor: h11 relay"], strict=True)]
            print(
                f"  {name} / the round's floor: tcp {statistics.median(tcp):.2f}x, h11 {statistics.median(h11):.2f}x;"
                " target proxy / direct <= 1.10x"
            )
        if compare:
            print("  trees: " + ", ".join(f"@{n} {t}" for n, t in enumerate(compare, 1)))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    quick = bool(os.environ.get("QUICK"))
    parser.add_argument("--calls", type=int, default=200 if quick else 1000)
    parser.add_argument("--rounds", type=int, default=3 if quick else 7)
    parser.add_argument("--flood", type=int, default=20_000 if quick else 100_000)
    parser.add_argument(
        "--only", choices=("stdio", "http", "flood"), action="append", help="run this part only (repeatable)"
    )
    parser.add_argument(
        "--compare", action="append", default=[], metavar="TREE", help="HTTP: also the proxy of this checkout"
    )
    args = parser.parse_args()
    parts = set(args.only or ("stdio", "http", "flood"))
    socket.setdefaulttimeout(None)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        os.chmod(tmp, 0o700)
        if "stdio" in parts:
            print(f"stdio round trips ({args.calls} sequential tools/call per round, {args.rounds} rounds)")
            round_trips("minimal server", minimal_server_cmd(), args.calls, args.rounds, tmp)
            everything = server_everything_cmd()
            if everything is not None:
                round_trips("server-everything", everything, args.calls, args.rounds, tmp, tool="get-sum")
        if "http" in parts:
            http_round_trips(max(50, args.calls // 4), args.rounds, tmp, args.compare)
        if "flood" in parts:
            flood(args.flood, tmp)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
