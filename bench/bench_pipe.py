"""``mcp-inspector pipe`` vs a minimal anyio client doing the same work, same server, same run.

    python bench/bench_pipe.py [--calls 20000] [--rounds 3] [--quick] [--before DIR]

Both variants are whole child processes fed the same stdin (a file of ``--calls``
sequential ``tools/call add`` requests, ids 1..N) with stdout redirected to a file,
against ``bench/servers/minimal_server.py``:

* ``minimal anyio`` - the ~40-line anyio client below (``MINIMAL``): spawns the server,
                      shakes hands, then for every stdin line sends it, reads server lines
                      until the matching reply, and writes every server line to stdout
                      (flushed per frame). The least a pipe must do.
* ``pipe``          - ``python -m mcp_inspector pipe -- <minimal server>`` from this repo
                      (or from ``BENCH_SOURCE``).
* ``pipe (before)`` - with ``--before DIR``: the same from another copy of the package
                      (``git archive <commit> mcp_inspector | tar -x -C DIR``), for
                      before/after ratios measured in one run.

Each round runs every variant twice, once with the N calls and once with empty input
(start, handshake and shutdown only); the variants alternate and rotate order per round.
Reported: wall time per call = (wall(N) - wall(empty)) / N, so start-up cost (our imports,
the early server start) is not spread over the calls; the whole-process wall time; the
ratios of both to the minimal client (median of per-round ratios, min..max); and the peak
RSS of each child (``ru_maxrss`` from ``wait4``). **Target: pipe <= 1.3x the minimal
client per call.** CPU per call (the child's with its server's, from ``wait4``) is printed too:
on a busy machine wall time per call is mostly waiting for a CPU. Every run's stdout is checked to
hold one reply per call, in order.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

TARGET = 1.3

# The baseline child: kept import-light (anyio only), as a minimal client would be.
MINIMAL = r"""
import json, sys
import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

async def run(cmd):
    out = sys.stdout.buffer
    async with await anyio.open_process(cmd, stderr=None) as proc:
        reader = BufferedByteReceiveStream(proc.stdout)

        async def until_reply(msg_id):
            while True:
                line = await reader.receive_until(b"\n", 1 << 26)
                out.write(line + b"\n")
                out.flush()
                msg = json.loads(line)
                if "method" not in msg and msg.get("id") == msg_id:
                    return msg

        await proc.stdin.send(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "minimal", "version": "0"}}}).encode() + b"\n")
        await until_reply("init")
        await proc.stdin.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for line in sys.stdin.buffer:
            if not line.strip():
                continue
            msg = json.loads(line)
            await proc.stdin.send(line if line.endswith(b"\n") else line + b"\n")
            if "method" in msg and "id" in msg:
                await until_reply(msg["id"])
        await proc.stdin.aclose()
        await proc.wait()

anyio.run(run, sys.argv[1:])
"""


def write_input(path: Path, calls: int) -> None:
    with open(path, "wb") as f:
        for i in range(1, calls + 1):
            f.write(
                json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": i,
                        "method": "tools/call",
                        "params": {"name": "add", "arguments": {"a": i, "b": 1}},
                    }
                ).encode()
                + b"\n"
            )


def run_child(argv: list[str], stdin: Path, stdout: Path, env: dict[str, str]) -> tuple[float, int, float]:
    """Run one child to exit: (wall seconds, peak RSS bytes, CPU seconds: the child's and its reaped server's)."""
    with open(stdin, "rb") as fin, open(stdout, "wb") as fout:
        t0 = time.perf_counter()
        pid = os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[(os.POSIX_SPAWN_DUP2, fin.fileno(), 0), (os.POSIX_SPAWN_DUP2, fout.fileno(), 1)],
        )
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{' '.join(argv[:4])}... exited with {code}")
    return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime  # KiB on Linux


def check_output(stdout: Path, calls: int, name: str) -> None:
    """One reply per call, in order, after the handshake's. Streams: see ``floor_rss``."""
    expected = 0
    with open(stdout, "rb") as f:
        for line in f:
            msg = json.loads(line)
            if "result" not in msg:
                continue
            if expected and msg.get("id") != expected:
                raise SystemExit(f"{name}: reply {msg.get('id')!r} where {expected} was due")
            expected += 1
    if expected != calls + 1:
        raise SystemExit(f"{name}: expected {calls + 1} replies, got {expected}")


def floor_rss() -> int:
    """This process's peak RSS. Linux carries the spawning process's high-water mark into the
    child's ``ru_maxrss`` (posix_spawn shares our memory until exec), so a child's figure is
    only its own when above this one: the bench keeps itself small (it streams every file)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20_000, help="sequential tools/call per run (default 20000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--quick", action="store_true", help="smoke run: 2000 calls, 2 rounds")
    parser.add_argument("--before", metavar="DIR", help="also run pipe from the mcp_inspector package under DIR")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.rounds = 2000, 2

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import PYTHON, SOURCE, fmt_bytes, machine_note, minimal_server_cmd

    server = minimal_server_cmd()
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MCP_INSPECTOR_NO_EARLY_START")}
    with tempfile.TemporaryDirectory(prefix="bench-pipe-") as tmp:
        tmpdir = Path(tmp)
        os.chdir(tmpdir)  # `python -m` puts the cwd first on sys.path: keep the repo's copy out of --before runs
        minimal_script = tmpdir / "minimal_pipe.py"
        minimal_script.write_text(MINIMAL)
        inputs = {args.calls: tmpdir / "calls.jsonl", 0: tmpdir / "empty.jsonl"}
        write_input(inputs[args.calls], args.calls)
        write_input(inputs[0], 0)
        # Spill files (if any) go to the temp dir, not the user's state dir.
        state_env = {"XDG_STATE_HOME": str(tmpdir / "state")}
        pipe_argv = [PYTHON, "-m", "mcp_inspector", "pipe", "--", *server]
        variants = [
            ("minimal anyio", [PYTHON, str(minimal_script), *server], dict(base_env)),
            ("pipe", pipe_argv, {**base_env, **state_env, "PYTHONPATH": SOURCE}),
        ]
        if args.before:
            variants.append(
                ("pipe (before)", pipe_argv, {**base_env, **state_env, "PYTHONPATH": str(Path(args.before).resolve())})
            )
        results: dict[str, dict[str, list[float]]] = {
            name: {"full": [], "empty": [], "rss": [], "rss0": [], "cpu": [], "cpu0": []} for name, _, _ in variants
        }
        print(
            f"bench_pipe: {args.rounds} rounds x {args.calls} sequential tools/call add through each variant "
            f"(+ an empty-input run each); {machine_note()}",
            flush=True,
        )
        for r in range(args.rounds):
            shift = r % len(variants)
            order = variants[shift:] + variants[:shift]
            for calls in (args.calls, 0):
                for name, argv, env in order:
                    out = tmpdir / "out.jsonl"
                    wall, rss, cpu = run_child(argv, inputs[calls], out, env)
                    check_output(out, calls, name)
                    results[name]["full" if calls else "empty"].append(wall)
                    results[name]["rss" if calls else "rss0"].append(rss)
                    results[name]["cpu" if calls else "cpu0"].append(cpu)
            print(
                f"  round {r + 1}/{args.rounds}: "
                + ", ".join(
                    f"{name} {(res['full'][-1] - res['empty'][-1]) / args.calls * 1e6:.1f} us/call "
                    f"({res['full'][-1]:.2f} s)"
                    for name, res in results.items()
                ),
                flush=True,
            )

    def per_call(name: str) -> list[float]:
        res = results[name]
        return [(f - e) / args.calls for f, e in zip(res["full"], res["empty"], strict=True)]

    base = "minimal anyio"
    print(
        f"\n  {'variant':<14} {'per call':>9} {'ratio':>6} {'min..max':>12}  {'whole run':>9} {'ratio':>6}  "
        f"{'empty run':>9}  {'peak RSS':>10} {'(empty)':>10}"
    )
    for name, _, _ in variants:
        pc = per_call(name)
        ratios = [o / b for o, b in zip(pc, per_call(base), strict=True)]
        whole = [o / b for o, b in zip(results[name]["full"], results[base]["full"], strict=True)]
        print(
            f"  {name:<14} {statistics.median(pc) * 1e6:6.1f} us {statistics.median(ratios):5.2f}x "
            f"{min(ratios):5.2f}..{max(ratios):<5.2f}  {statistics.median(results[name]['full']):7.2f} s "
            f"{statistics.median(whole):5.2f}x  {statistics.median(results[name]['empty']):7.3f} s  "
            f"{fmt_bytes(max(results[name]['rss'])):>10} {fmt_bytes(max(results[name]['rss0'])):>10}"
        )
    print(f"  (peak RSS of this bench process, a floor under every child's figure: {fmt_bytes(floor_rss()).strip()})")
    print()

    def cpu_per_call(name: str) -> list[float]:
        res = results[name]
        return [(f - e) / args.calls for f, e in zip(res["cpu"], res["cpu0"], strict=True)]

    for name, _, _ in variants[1:]:
        ratio = statistics.median(o / b for o, b in zip(per_call(name), per_call(base), strict=True))
        status = "meets" if ratio <= TARGET else "MISSES"
        print(f"  per call: {name} / {base}: {ratio:.2f}x ({status} the target of <= {TARGET}x)")
    print("\n  CPU per call (the child's and its server's, from wait4; steadier than wall time on a busy machine):")
    for name, _, _ in variants:
        cpu = cpu_per_call(name)
        ratios = [o / b for o, b in zip(cpu, cpu_per_call(base), strict=True)]
        print(
            f"  {name:<14} {statistics.median(cpu) * 1e6:6.1f} us  {statistics.median(ratios):5.2f}x "
            f"({min(ratios):.2f}..{max(ratios):.2f})"
        )


if __name__ == "__main__":
    main()
