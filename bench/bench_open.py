"""Opening a recording (``--open FILE``): time, peak memory and disk written.

    python bench/bench_open.py [--entries 1000000] [--keep DIR]

Generates a session file of ``--entries`` entries (tools/call requests and their
responses, with a notification between them) in a temporary directory, then, in a
fresh child process each, does what the TUI does on ``--open``:

* load the file (``load_session``), rebuild the views' facts (``tui.replay``),
  move the result into the app's store (default cap 200,000) and close it;
* load a crafted file whose one entry has ``"seq": 10**12`` (the old loader made
  a placeholder per missing seq; it is stopped after ``--crafted-timeout`` seconds).

Figures: wall time, peak RSS of the child (``ru_maxrss``), bytes the child wrote to
disk (``/proc/self/io`` ``wchar``: spill files included) and what is left in the
state directory afterwards. ``BENCH_SOURCE=/old/checkout`` measures another copy for
before/after figures (see README). Nothing here asserts anything.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from common import PYTHON, SOURCE, fmt_bytes, machine_note

CHILD = r"""
import json, os, resource, sys, time
sys.path.insert(0, sys.argv[1])
path = sys.argv[2]
from mcp_inspector.core.traffic.loading import load_session
from mcp_inspector.core.traffic.store import TrafficStore
from mcp_inspector.tui import replay as replay_mod

def wchar():
    with open("/proc/self/io") as handle:
        return int(next(l for l in handle if l.startswith("wchar")).split()[1])

written = wchar()
start = time.perf_counter()
app_store = TrafficStore()  # what InspectorApp holds
if hasattr(TrafficStore, "adopt"):  # after: load at the app's cap, hand the window and the file over
    builder = replay_mod.ReplayBuilder()
    loaded = load_session(path, cap=app_store.cap, on_entry=builder.feed)
    replay = builder.finish()
    app_store.adopt(loaded.store)
else:  # before: MainScreen._load_recording and _recording_loaded
    loaded = load_session(path)
    replay = replay_mod.reconstruct(loaded.store)
    for entry in loaded.store:
        app_store.load_entry(entry)
elapsed = time.perf_counter() - start
app_store.close()
loaded.store.close()
print(json.dumps({"seconds": elapsed, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "written": wchar() - written, "total": app_store.total, "skipped": len(loaded.skipped_lines),
                  "tools": len(replay.tools)}))
"""


def generate(path: Path, entries: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(
            json.dumps(
                {
                    "type": "header",
                    "format": "mcp-inspector-session",
                    "version": 1,
                    "started": 1.0,
                    "server": "python -m mcp_inspector.demo",
                }
            )
            + "\n"
        )
        seq = 1
        out.write(
            json.dumps(
                {
                    "seq": seq,
                    "ts": 1.0,
                    "dir": "out",
                    "kind": "request",
                    "method": "tools/list",
                    "id": 0,
                    "raw": '{"jsonrpc":"2.0","id":0,"method":"tools/list"}',
                }
            )
            + "\n"
        )
        seq += 1
        out.write(
            json.dumps(
                {
                    "seq": seq,
                    "ts": 1.0,
                    "dir": "in",
                    "kind": "response",
                    "id": 0,
                    "reply_to": 1,
                    "raw": json.dumps(
                        {
                            "jsonrpc": "2.0",
                            "id": 0,
                            "result": {"tools": [{"name": "add", "inputSchema": {"type": "object"}}]},
                        }
                    ),
                }
            )
            + "\n"
        )
        seq += 1
        n = 1
        while seq <= entries:
            request = {
                "jsonrpc": "2.0",
                "id": n,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": n, "b": 2}},
            }
            lines = [
                {
                    "seq": seq,
                    "ts": 2.0 + seq / 1000,
                    "dir": "out",
                    "kind": "request",
                    "method": "tools/call",
                    "id": n,
                    "raw": json.dumps(request),
                },
                {
                    "seq": seq + 1,
                    "ts": 2.0 + seq / 1000,
                    "dir": "in",
                    "kind": "notification",
                    "method": "notifications/message",
                    "raw": json.dumps(
                        {
                            "jsonrpc": "2.0",
                            "method": "notifications/message",
                            "params": {"level": "info", "data": f"working on {n}"},
                        }
                    ),
                },
                {
                    "seq": seq + 2,
                    "ts": 2.0 + seq / 1000,
                    "dir": "in",
                    "kind": "response",
                    "id": n,
                    "reply_to": seq,
                    "latency_ms": 0.5,
                    "raw": json.dumps(
                        {"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": str(n + 2)}]}}
                    ),
                },
            ]
            for line in lines[: entries - seq + 1]:
                out.write(json.dumps(line) + "\n")
            seq += 3
            n += 1


def measure(path: Path, state: Path, timeout: float) -> dict:
    env = dict(os.environ, XDG_STATE_HOME=str(state))
    try:
        done = subprocess.run(
            [PYTHON, "-c", CHILD, SOURCE, str(path)], env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    result = json.loads(done.stdout)
    left = sum(f.stat().st_size for f in state.rglob("*") if f.is_file())
    result["left_on_disk"] = left
    return result


def show(label: str, result: dict) -> None:
    if "timeout" in result:
        print(f"{label:<28} still running after {result['timeout']:.0f} s (stopped)")
    elif "error" in result:
        print(f"{label:<28} failed: {result['error']}")
    else:
        print(
            f"{label:<28} {result['seconds']:8.2f} s  peak RSS {fmt_bytes(result['rss']):>10}  "
            f"written {fmt_bytes(result['written']):>10}  left in state dir {fmt_bytes(result['left_on_disk']):>10}  "
            f"entries {result['total']}  skipped {result['skipped']}  tools {result['tools']}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--crafted-timeout", type=float, default=20.0)
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep the files")
    args = parser.parse_args()
    print(machine_note())
    print(f"source: {SOURCE}")
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-open-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        big = work / f"recording-{args.entries}.jsonl"
        if not big.exists():
            started = time.perf_counter()
            generate(big, args.entries)
            print(f"generated {big.name}: {fmt_bytes(big.stat().st_size)} in {time.perf_counter() - started:.1f} s")
        crafted = work / "crafted-seq.jsonl"
        crafted.write_text(
            json.dumps({"type": "header", "format": "mcp-inspector-session", "version": 1})
            + "\n"
            + json.dumps({"seq": 1, "ts": 1.0, "dir": "in", "kind": "stderr", "raw": "a"})
            + "\n"
            + json.dumps({"seq": 10**12, "ts": 1.0, "dir": "in", "kind": "stderr", "raw": "b"})
            + "\n"
        )
        for label, path, timeout in (
            (f"open {args.entries:,} entries", big, args.timeout),
            ("open crafted seq=10**12", crafted, args.crafted_timeout),
        ):
            state = work / "state"
            shutil.rmtree(state, ignore_errors=True)
            state.mkdir()
            show(label, measure(path, state, timeout))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
