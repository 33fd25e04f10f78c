"""jq queries over a recording of 200,000 frames: how fast, against baselines measured in the same run.

    python bench/bench_query.py [--frames 200000] [--rounds 3] [--quick]

Generates a realistic session file (``tools/call`` requests and their responses with
``structuredContent`` items, progress notifications, log messages, a few stderr lines),
reads its frames into memory once, then per round, variants interleaved:

* baselines: a plain substring search over the raw frames (what the text filter does), and
  ``json.loads`` of each frame (the least a Python-side JSON query would cost);
* ``jq in-process``: ``jq.compile`` once, ``program.input_text(raw)`` per frame (the engine
  alone, no child process: what the child pays);
* ours: ``QuerySandbox.match`` (the TUI's and ``--count``'s path: batches of frames to the
  child process, one code per frame back) with a filter, and ``QuerySandbox.outputs`` with a
  projection (``.result.structuredContent.items[]? | .id``);
* the CLI end to end: ``mcp-inspector query FILE EXPR --count`` (a fresh process streaming the
  file) against a child process that streams the same file with ``json.loads`` per line; their
  peak RSS is printed too (the file is never held whole).

Also printed, measured once before the rounds: ``input_text(raw)`` vs ``input_value(json.loads(raw))``
per frame (why the raw text is what goes to jq). Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import PYTHON, SOURCE, Series, fmt_bytes, machine_note, print_series_table

FILTER = 'select(.method == "notifications/progress")'
PROJECTION = ".result.structuredContent.items[]? | .id"
NEEDLE = b'"notifications/progress"'

JSON_BASELINE = r"""
import json, sys
count = 0
with open(sys.argv[1], "rb") as handle:
    handle.readline()
    for line in handle:
        record = json.loads(line)
        raw = record.get("raw")
        if raw is not None and record["kind"] not in ("stderr", "event"):
            if json.loads(raw).get("method") == "notifications/progress":
                count += 1
print(count)
"""


def make_recording(path: Path, frames: int, seed: int = 12) -> None:
    """A session file in --record's format (header line, then one entry a line)."""
    sys.path.insert(0, SOURCE)
    from mcp_inspector.core.base.jsonrpc import Kind
    from mcp_inspector.core.traffic.entry import Direction, TrafficEntry
    from mcp_inspector.core.traffic.recording import entry_to_record

    rng = random.Random(seed)
    ts = 1_700_000_000.0
    seq = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(json.dumps({"format": "mcp-inspector-session", "version": 1}) + "\n")

        def write(direction, kind, message, method=None, msg_id=None):
            nonlocal seq, ts
            seq += 1
            ts += 0.0005
            raw = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode()
            entry = TrafficEntry(seq, ts, direction, kind, raw, method, msg_id, msg_id is not None)
            out.write(json.dumps(entry_to_record(entry), ensure_ascii=False) + "\n")

        call = 0
        while seq < frames:
            call += 1
            write(
                Direction.OUT,
                Kind.REQUEST,
                {
                    "jsonrpc": "2.0",
                    "id": call,
                    "method": "tools/call",
                    "params": {
                        "name": rng.choice(["search", "fetch_page", "summarize"]),
                        "arguments": {"q": "x" * rng.randint(5, 60)},
                        "_meta": {"progressToken": call},
                    },
                },
                "tools/call",
                call,
            )
            for step in range(rng.randint(2, 6)):
                write(
                    Direction.IN,
                    Kind.NOTIFICATION,
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/progress",
                        "params": {
                            "progressToken": call,
                            "progress": step + 1,
                            "total": 6,
                            "message": f"step {step + 1}",
                        },
                    },
                    "notifications/progress",
                )
            if rng.random() < 0.3:
                write(
                    Direction.IN,
                    Kind.NOTIFICATION,
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "logger": "search", "data": "cache miss " * rng.randint(1, 8)},
                    },
                    "notifications/message",
                )
            if rng.random() < 0.05:
                write(Direction.IN, Kind.STDERR, b"INFO worker busy")
            items = [
                {"id": f"item-{call}-{n}", "title": "t" * rng.randint(10, 80), "score": rng.random()}
                for n in range(rng.randint(1, 8))
            ]
            write(
                Direction.IN,
                Kind.RESPONSE,
                {
                    "jsonrpc": "2.0",
                    "id": call,
                    "result": {
                        "content": [{"type": "text", "text": json.dumps(items)}],
                        "structuredContent": {"items": items},
                    },
                },
                None,
                call,
            )


def load_frames(path: Path) -> list[bytes]:
    sys.path.insert(0, SOURCE)
    from mcp_inspector.core.traffic.loading import iter_session

    _, entries = iter_session(path)
    return [entry.raw for _, entry in entries if entry is not None and entry.kind.value not in ("stderr", "event")]


def first(outputs) -> object:
    """The first output, or None (``.first()`` raises on none)."""
    return next(iter(outputs), None)


def timed(function) -> tuple[float, object]:
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


# Linux carries the high-water RSS of the process that forks into the child's ru_maxrss (this bench
# holds every frame): a small launcher forks the measured command and reports its peak.
LAUNCHER = r"""
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as handle:
    handle.write(str(usage.ru_maxrss))
"""


def child_run(command: list[str], tmp: str) -> tuple[float, int, str]:
    """Wall time, peak RSS (bytes) and stdout of a child."""
    report = os.path.join(tmp, "maxrss")
    start = time.perf_counter()
    done = subprocess.run(
        [PYTHON, "-c", LAUNCHER, report, *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": SOURCE},
    )
    elapsed = time.perf_counter() - start
    with open(report) as handle:
        peak = int(handle.read()) * 1024
    return elapsed, peak, done.stdout.decode().strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="20,000 frames, 2 rounds")
    args = parser.parse_args()
    if args.quick:
        args.frames, args.rounds = 20_000, 2
    sys.path.insert(0, SOURCE)
    import jq

    from mcp_inspector.core.query import QuerySandbox

    print(machine_note())
    with tempfile.TemporaryDirectory(prefix="bench-query-") as tmp:
        path = Path(tmp) / "session.jsonl"
        made, _ = timed(lambda: make_recording(path, args.frames))
        frames = load_frames(path)
        total = sum(len(frame) for frame in frames)
        print(
            f"recording: {args.frames:,} entries, {len(frames):,} frames, {fmt_bytes(total).strip()} of frames, "
            f"file {fmt_bytes(path.stat().st_size).strip()} (made in {made:.1f} s)"
        )
        program = jq.compile(FILTER)
        sample = frames[:20_000]
        text_path, _ = timed(lambda: [first(program.input_text(raw.decode())) for raw in sample])
        value_path, _ = timed(lambda: [first(program.input_value(json.loads(raw))) for raw in sample])
        print(
            f"per frame, jq over {len(sample):,} frames: input_text(raw) {text_path / len(sample) * 1e6:.1f} us, "
            f"input_value(json.loads(raw)) {value_path / len(sample) * 1e6:.1f} us "
            f"({value_path / text_path:.2f}x): the raw text goes to jq"
        )

        series = {
            name: Series(name)
            for name in (
                "substring search (baseline)",
                "json.loads per frame (baseline)",
                "jq in-process input_text",
                "ours: match (filter)",
                "ours: outputs (projection)",
            )
        }
        cli = {name: Series(name) for name in ("python json.loads streaming (baseline)", "cli: query --count")}
        peaks: dict[str, list[int]] = {name: [] for name in cli}
        counts: dict[str, object] = {}
        with QuerySandbox() as sandbox:
            sandbox.match(".", frames[:10])  # the child is up
            for _ in range(args.rounds):
                runs = {
                    "substring search (baseline)": lambda: sum(NEEDLE in raw for raw in frames),
                    "json.loads per frame (baseline)": lambda: sum(
                        json.loads(raw).get("method") == "notifications/progress" for raw in frames
                    ),
                    "jq in-process input_text": lambda: sum(
                        first(program.input_text(raw.decode())) is not None for raw in frames
                    ),
                    "ours: match (filter)": lambda: sandbox.match(FILTER, frames).count(1),
                    "ours: outputs (projection)": lambda: sum(
                        len(found.outputs) for found in sandbox.outputs(PROJECTION, frames)
                    ),
                }
                for name, run in runs.items():
                    elapsed, value = timed(run)
                    series[name].add_round([elapsed])
                    counts[name] = value
                for name, command in (
                    ("python json.loads streaming (baseline)", [PYTHON, "-c", JSON_BASELINE, str(path)]),
                    ("cli: query --count", [PYTHON, "-m", "mcp_inspector", "query", str(path), FILTER, "--count"]),
                ):
                    elapsed, peak, output = child_run(command, tmp)
                    cli[name].add_round([elapsed])
                    peaks[name].append(peak)
                    counts[name] = output
        print(
            f"\nover {len(frames):,} frames in memory (one pass each; matches: "
            + ", ".join(f"{name.split(' (')[0]}={value}" for name, value in counts.items() if name in series)
            + ")"
        )
        print_series_table(list(series.values()), baseline=series["json.loads per frame (baseline)"], p95=False)
        base, loads = series["substring search (baseline)"].median, series["json.loads per frame (baseline)"].median
        for name in ("ours: match (filter)", "ours: outputs (projection)"):
            median = series[name].median
            print(
                f"  {name}: {len(frames) / median:,.0f} frames/s, {median / base:.1f}x the substring search, "
                f"{median / loads:.2f}x json.loads"
            )
        in_process = series["jq in-process input_text"].median
        print(
            f"  the child process costs {series['ours: match (filter)'].median / in_process:.2f}x jq in-process "
            f"(and keeps an endless query from freezing the caller)"
        )
        print(f"\nthe CLI on the file ({fmt_bytes(path.stat().st_size).strip()}), fresh processes:")
        print_series_table(list(cli.values()), baseline=cli["python json.loads streaming (baseline)"], p95=False)
        for name in cli:
            print(f"  {name}: peak RSS {fmt_bytes(statistics.median(peaks[name])).strip()}, printed {counts[name]}")
        print(
            f"  (this process, which holds every frame: peak RSS "
            f"{fmt_bytes(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024).strip()})"
        )


if __name__ == "__main__":
    main()
