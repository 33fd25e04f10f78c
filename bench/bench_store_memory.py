"""RSS of the traffic store after 20 reads of a 50 MB resource (one request + one 50 MB response each).

Not a test: prints figures. ``BENCH_SOURCE=/path`` imports mcp_inspector from another copy (before/after),
``--frames N`` and ``--size MB`` change the load. The store pages the big frames out to its spill file
past ``mem_limit`` (256 MiB by default); before the byte budget only the 200,000-entry cap bounded it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.environ.get("BENCH_SOURCE") or str(Path(__file__).resolve().parent.parent))

from mcp_inspector.core.base.jsonrpc import Kind  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.core.traffic.entry import Direction  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.core.traffic.store import TrafficStore  # noqa: E402 - after the sys.path/environment setup above


def rss_mb(field: str = "VmRSS") -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--size", type=int, default=50, help="MB per response")
    args = parser.parse_args()
    size = args.size * 1_000_000
    with tempfile.TemporaryDirectory() as spill:
        store = TrafficStore(spill_dir=Path(spill))
        before = rss_mb()
        started = time.perf_counter()
        for n in range(args.frames):
            store.append(
                Direction.OUT,
                Kind.REQUEST,
                b'{"jsonrpc":"2.0","id":%d,"method":"resources/read"}' % n,
                method="resources/read",
                msg_id=n,
                has_id=True,
            )
            head = b'{"jsonrpc":"2.0","id":%d,"result":{"contents":[{"text":"' % n
            store.append(
                Direction.IN, Kind.RESPONSE, head + b"x" * (size - len(head) - 5) + b'"}]}}', msg_id=n, has_id=True
            )
        elapsed = time.perf_counter() - started
        after = rss_mb()
        held = getattr(store, "held_bytes", sum(len(e.raw) for e in store))
        print(
            f"{args.frames} x {args.size} MB responses: RSS {before:.0f} -> {after:.0f} MB (+{after - before:.0f} MB, "
            f"peak {rss_mb('VmHWM'):.0f} MB), "
            f"{len(store)} entries / {held / 1e6:.0f} MB raw held in memory, first held seq {store.first_seq}, "
            f"{elapsed:.1f} s"
        )
        first = store.fetch(2)
        print(f"seq 2 read back: {len(first.raw) / 1e6:.0f} MB" if first is not None else "seq 2: not readable")
        store.close()


if __name__ == "__main__":
    main()
