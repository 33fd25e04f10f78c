"""Cold ``mcp-inspector tools`` vs a minimal client, each a whole new process.

    python bench/bench_cli_tools.py [--runs 10] [--server everything|python|both] [--why]

Both list the tools of ``@modelcontextprotocol/server-everything`` (found through
``$MCP_SERVER_EVERYTHING``, ``node_modules/.bin`` under the repo, or
``/tmp/npmtest/node_modules/.bin``), from process start to process exit:

* ``ours``    - ``python -m mcp_inspector tools -- node server-everything stdio``
* ``minimal`` - ``python bench/minimal_client.py tools -- node server-everything stdio``
                (stdlib only: initialize, tools/list, close stdin, wait)
* ``minimal + anyio imports`` - the minimal client importing asyncio, anyio and anyio's asyncio
                backend right after starting the server (``tools-anyio``): what any client on
                anyio pays before its first frame, overlapped with the server's start as ours
                is. The floor for ours, shown for information.
* ``ours, no early start`` - the same command with ``MCP_INSPECTOR_NO_EARLY_START=1``:
                the transport spawns the server only once the event loop runs,
                instead of adopting the process main.py started before its imports.
                Shown for information (the target applies to the command as users run it).

The two alternate, ``--runs`` times each; the figure is the median wall time and the
ratio ours/minimal. Target: at most 1.2x. The same again against a small Python server
(``bench/servers/minimal_server.py``, exits on stdin EOF at once), where our own start-up
shows most: target at most 1.3x. ``--server everything|python|both`` picks (default both).
Also shown: ``python -c pass`` (interpreter start) and the import time of
``mcp_inspector.cli.main`` alone. ``--why`` adds where our extra time goes: ``-X importtime``
top imports, and a breakdown of the session
(spawn, initialize, tools/list, shutdown) measured in-process.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import tempfile
import threading
import time

from common import MINIMAL_CLIENT, PYTHON, REPO, machine_note, minimal_server_cmd, server_everything_cmd

TARGET = 1.2  # against server-everything (node: its start and exit dominate)
TARGET_PYTHON = 1.3  # against bench/servers/minimal_server.py (exits on EOF at once: our own cost shows)


CPU: dict[int, float] = {}  # id(CompletedProcess) -> the child's CPU seconds, its server's included


def timed(
    argv: list[str], env: dict | None = None, cwd: str | None = None
) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds and the finished child. ``cwd``: where ``python -m mcp_inspector`` finds the
    package (the repo, or ``--before DIR``). The child's CPU time (user + system from ``wait4``,
    with the server it waited for) goes to ``CPU``: less sensitive than wall time to a busy machine."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=cwd or REPO, env=env)
        limit = threading.Timer(120, proc.kill)  # a hung child must not hang the bench
        limit.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        limit.cancel()
        out.seek(0)
        err.seek(0)
        done = subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), out.read(), err.read())
    CPU[id(done)] = usage.ru_utime + usage.ru_stime
    return wall, done


def check(name: str, done: subprocess.CompletedProcess, expect: bytes) -> None:
    if done.returncode != 0 or expect not in done.stdout:
        raise SystemExit(
            f"{name} failed (exit {done.returncode}):\n{done.stdout[-2000:].decode(errors='replace')}"
            f"\n{done.stderr[-2000:].decode(errors='replace')}"
        )


def summary(name: str, values: list[float]) -> str:
    return (
        f"  {name:<32} median {statistics.median(values) * 1000:7.1f} ms   "
        f"min..max {min(values) * 1000:6.1f}..{max(values) * 1000:6.1f} ms"
    )


def import_report(server: list[str], env: dict | None, label: str, top: int = 12) -> None:
    """``-X importtime`` of the real command: which imports cost most (cumulative)."""
    _, done = timed([PYTHON, "-X", "importtime", "-m", "mcp_inspector", "tools", "--", *server], env)
    rows = []
    for line in done.stderr.decode(errors="replace").splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), len(m.group(3)) // 2, m.group(4)))
    total = sum(c for c, depth, _ in rows if depth == 0)
    print(
        f"\n-X importtime of `python -m mcp_inspector tools` ({label}): {total / 1000:.1f} ms in top-level imports; "
        f"heaviest top-level imports (cumulative):"
    )
    for cumulative, _depth, name in sorted((r for r in rows if r[1] == 0), reverse=True)[:top]:
        print(f"  {cumulative / 1000:7.1f} ms  {name}")
    interesting = ("pydantic", "jsonschema", "mcp_types", "textual", "rich", "httpx", "anyio", "referencing")
    seen = {name.split(".")[0] for _, _, name in rows}
    print(
        "  heavy packages imported at all: "
        + (", ".join(p for p in interesting if p in seen) or "none of " + ", ".join(interesting))
    )


def session_breakdown(server: list[str]) -> None:
    """Where the in-process time goes: spawn+initialize, tools/list, shutdown."""
    import anyio

    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.transport.stdio import StdioTransport

    marks: dict[str, float] = {}

    async def run() -> None:
        t0 = time.perf_counter()
        session = McpSession(StdioTransport(server))
        async with session:
            marks["spawn"] = time.perf_counter() - t0
            t1 = time.perf_counter()
            await session.initialize()
            marks["initialize (incl. server start-up)"] = time.perf_counter() - t1
            t2 = time.perf_counter()
            await session.list_tools()
            marks["tools/list"] = time.perf_counter() - t2
            t3 = time.perf_counter()
        marks["shutdown (close stdin, wait for exit)"] = time.perf_counter() - t3

    anyio.run(run)
    print("\nin-process breakdown of one session (our core):")
    for name, seconds in marks.items():
        print(f"  {name:<38} {seconds * 1000:7.1f} ms")


def compare(
    label: str, server: list[str], expect: bytes, runs: int, target: float, env: dict, before: str | None = None
) -> None:
    """Ours (early start, and without it) vs the minimal client against one server, alternating."""
    ours = [PYTHON, "-m", "mcp_inspector", "tools", "--", *server]
    minimal = [PYTHON, str(MINIMAL_CLIENT), "tools", "--", *server]
    floor = [PYTHON, str(MINIMAL_CLIENT), "tools-anyio", "--", *server]
    print(f"\n== {label}: {runs} alternating runs each against {' '.join(server)}")
    # Warm-up: page cache, .pyc files, node's compile cache.
    for argv in (ours, minimal):
        check(argv[1], timed(argv, env)[1], expect)
    if before:
        check("before", timed(ours, env, before)[1], expect)
    full_env = {**env, "MCP_INSPECTOR_NO_EARLY_START": "1"}
    times: dict[str, list[float]] = {
        "ours": [],
        "minimal": [],
        "floor": [],
        "full": [],
        "python -c pass": [],
        "import cli.main": [],
        "before": [],
    }
    cpus: dict[str, list[float]] = {}
    for r in range(runs):
        trio = [("ours", ours, env), ("minimal", minimal, env), ("floor", floor, env), ("full", ours, full_env)]
        if before:
            trio.append(("before", ours, env))
        shift = r % len(trio)
        for name, argv, run_env in trio[shift:] + trio[:shift]:
            seconds, done = timed(argv, run_env, before if name == "before" else None)
            check(name, done, expect)
            times[name].append(seconds)
            cpus.setdefault(name, []).append(CPU.pop(id(done)))
        times["python -c pass"].append(timed([PYTHON, "-c", "pass"], env)[0])
        times["import cli.main"].append(timed([PYTHON, "-c", "import mcp_inspector.cli.main"], env)[0])
    print("wall time, process start to exit:")
    print(summary("ours (mcp_inspector tools)", times["ours"]))
    print(summary("minimal client", times["minimal"]))
    print(summary("minimal + anyio imports", times["floor"]))
    print(summary("ours, no early start", times["full"]))
    if before:
        print(summary("before (--before)", times["before"]))
    print(summary("python -c pass", times["python -c pass"]))
    print(summary("python -c 'import ...cli.main'", times["import cli.main"]))
    ratio = statistics.median(times["ours"]) / statistics.median(times["minimal"])
    paired = [o / m for o, m in zip(times["ours"], times["minimal"], strict=True)]
    status = "meets" if ratio <= target else "MISSES"
    print(
        f"{label}: ours / minimal: {ratio:.2f}x ({status} the target of <= {target}x); paired per run: median "
        f"{statistics.median(paired):.2f}x, {min(paired):.2f}..{max(paired):.2f}"
    )
    floor_ratio = statistics.median(times["floor"]) / statistics.median(times["minimal"])
    paired_floor = [o / m for o, m in zip(times["floor"], times["minimal"], strict=True)]
    print(
        f"{label}: minimal + anyio imports / minimal: {floor_ratio:.2f}x (the floor of a client on anyio); "
        f"paired per run: median {statistics.median(paired_floor):.2f}x, "
        f"{min(paired_floor):.2f}..{max(paired_floor):.2f}"
    )
    full = statistics.median(times["full"]) / statistics.median(times["minimal"])
    paired_full = [o / m for o, m in zip(times["full"], times["minimal"], strict=True)]
    print(
        f"{label}: ours without early start / minimal: {full:.2f}x (information); paired per run: median "
        f"{statistics.median(paired_full):.2f}x, {min(paired_full):.2f}..{max(paired_full):.2f}"
    )
    if before:
        was = statistics.median(times["before"]) / statistics.median(times["minimal"])
        paired_before = [o / b for o, b in zip(times["ours"], times["before"], strict=True)]
        print(
            f"{label}: before / minimal: {was:.2f}x; ours / before paired per run: median "
            f"{statistics.median(paired_before):.2f}x, {min(paired_before):.2f}..{max(paired_before):.2f}"
        )
    print("CPU time, the child's with its server's (wait4):")
    for name in cpus:
        print(summary(name, cpus[name]))
    cpu_ratio = statistics.median(cpus["ours"]) / statistics.median(cpus["minimal"])
    floor_cpu = statistics.median(cpus["floor"]) / statistics.median(cpus["minimal"])
    line = f"{label}: CPU ours / minimal {cpu_ratio:.2f}x, floor / minimal {floor_cpu:.2f}x"
    if before:
        line += f", before / minimal {statistics.median(cpus['before']) / statistics.median(cpus['minimal']):.2f}x"
    print(line)
    extra = statistics.median(times["ours"]) - statistics.median(times["minimal"])
    imports = statistics.median(times["import cli.main"]) - statistics.median(times["python -c pass"])
    print(
        f"ours takes {extra * 1000:+.0f} ms more; "
        f"importing the CLI costs ~{imports * 1000:.0f} ms over a bare interpreter"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs per variant (default 10)")
    parser.add_argument("--why", action="store_true", help="also show import times and a session breakdown")
    parser.add_argument(
        "--before",
        metavar="DIR",
        help="also run the command from this copy of the repo (e.g. a `git worktree add --detach` of "
        "main), alternating with ours, for before/after in one run",
    )
    parser.add_argument(
        "--server", choices=("everything", "python", "both"), default="both", help="which server(s) (default both)"
    )
    args = parser.parse_args()
    server = server_everything_cmd()
    if server is None and args.server != "python":
        raise SystemExit(
            "server-everything not found: set MCP_SERVER_EVERYTHING or `npm i @modelcontextprotocol/server-everything`"
        )
    print(f"bench_cli_tools: {machine_note()}")
    # Bytecode as an installed package has it: cached after the warm-up run (in a temp dir, not the
    # repo). With PYTHONDONTWRITEBYTECODE=1 every run compiled our modules from source (~400 ms).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmpdir:
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmpdir, "pycache")
        if args.server in ("everything", "both"):
            assert server is not None
            compare("server-everything", server, b"get-sum", args.runs, TARGET, env, args.before)
        if args.server in ("python", "both"):
            compare("small Python server", minimal_server_cmd(), b"add", args.runs, TARGET_PYTHON, env, args.before)
    if args.why:
        server = server or minimal_server_cmd()
        full_env = {**os.environ, "MCP_INSPECTOR_NO_EARLY_START": "1"}
        import_report(server, None, "fast path")
        import_report(server, full_env, "no early start")
        session_breakdown(server)


if __name__ == "__main__":
    main()
