"""Minimal hand-written MCP stdio client (stdlib only, blocking pipes): the benchmark baseline.

    python bench/minimal_client.py calls N -- CMD...   # N sequential tools/call add; prints latency stats
    python bench/minimal_client.py tools -- CMD...     # initialize + tools/list; prints the tools as JSON
    python bench/minimal_client.py tools-anyio -- CMD...  # the same, importing asyncio and anyio's
                                                       # backend once the server is started (a floor)

``run_calls(cmd, n)`` returns per-call latencies in seconds (send -> matching response read);
``list_tools(cmd)`` returns the tool list.  Both initialize first (2025-11-25), skip any
non-response lines (notifications, server requests), then close stdin and wait for exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time


class _Conn:
    def __init__(self, cmd: list[str]):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError(f"server exited while waiting for {method}")
            msg = json.loads(line)
            if msg.get("id") == self.next_id and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(f"{method} failed: {msg['error']}")
                return msg["result"]

    def _send(self, msg: dict) -> None:
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def initialize(self) -> dict:
        result = self.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "minimal-client", "version": "0"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return result

    def close(self) -> int:
        self.proc.stdin.close()
        try:
            return self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


def run_calls(server_cmd: list[str], n: int, tool: str = "add", settle: float = 0.0) -> list[float]:
    """``tool`` takes ``a`` and ``b`` (the minimal server's add, server-everything's get-sum).
    ``settle``: seconds of untimed calls first (a relay's start-up, a JIT's warm-up)."""
    conn = _Conn(server_cmd)
    try:
        conn.initialize()
        until = time.perf_counter() + settle
        while time.perf_counter() < until:
            conn.request("tools/call", {"name": tool, "arguments": {"a": 0, "b": 1}})
        latencies = []
        for i in range(n):
            t0 = time.perf_counter()
            conn.request("tools/call", {"name": tool, "arguments": {"a": i, "b": 1}})
            latencies.append(time.perf_counter() - t0)
        return latencies
    finally:
        conn.close()


def list_tools(server_cmd: list[str], import_anyio: bool = False) -> list[dict]:
    """``import_anyio``: import what any client built on anyio imports (asyncio, anyio and its
    asyncio backend) after starting the server, as a client that starts it early would: the
    floor of such a client's cold start, its event loop and everything else aside."""
    conn = _Conn(server_cmd)
    if import_anyio:
        import anyio._backends._asyncio  # noqa: F401 - imported for its cost
    try:
        conn.initialize()
        return conn.request("tools/list", {})["tools"]
    finally:
        conn.close()


if __name__ == "__main__":
    argv = sys.argv[1:]
    if len(argv) < 3 or "--" not in argv or argv[0] not in ("calls", "tools", "tools-anyio"):
        sys.exit(__doc__)
    cmd = argv[argv.index("--") + 1 :]
    if argv[0] in ("tools", "tools-anyio"):
        print(json.dumps(list_tools(cmd, import_anyio=argv[0] == "tools-anyio"), indent=2))
    else:
        lat = sorted(run_calls(cmd, int(argv[1])))
        ms = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] * 1000  # noqa: E731 - a one-line function, kept beside its use
        print(
            f"calls={len(lat)} total={sum(lat):.3f}s mean={sum(lat) / len(lat) * 1000:.3f}ms "
            f"p50={ms(0.5):.3f}ms p95={ms(0.95):.3f}ms p99={ms(0.99):.3f}ms max={lat[-1] * 1000:.3f}ms"
        )
