"""``mcp-inspector check`` on server-everything: seconds beyond the server's own start-up.

    python bench/bench_check.py [--runs 5]

Each run is a whole new process, from start to exit, against ``@modelcontextprotocol/server-
everything`` over stdio (``$MCP_SERVER_EVERYTHING``, or the repo's node_modules/.bin):

* ``info``  - ``mcp-inspector info -- node server-everything stdio``: start, handshake, close.
              The baseline: what any command pays for the server's start-up and shutdown.
* ``check`` - ``mcp-inspector check -- node server-everything stdio``: the same plus every probe
              (lists twice, 20 reads, prompts, completions, ping, made-up method and tool, the
              non-JSON line, the live rules' schema checks) and the exit-on-eof wait.

The two alternate; the figures are medians over ``--runs`` and the difference check - info is
"seconds beyond its startup".
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time

from common import PYTHON, REPO, machine_note, server_everything_cmd


def timed(argv: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, cwd=REPO, timeout=300)
    return time.perf_counter() - started, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    server = server_everything_cmd()
    if server is None:
        raise SystemExit("server-everything not found (set MCP_SERVER_EVERYTHING): skipped")
    info_cmd = [PYTHON, "-m", "mcp_inspector", "info", "--", *server]
    check_cmd = [PYTHON, "-m", "mcp_inspector", "check", "--json", "--", *server]
    infos, checks = [], []
    summary = None
    for _ in range(options.runs):
        seconds, done = timed(info_cmd)
        if done.returncode != 0:
            raise SystemExit(f"info failed: {done.stderr.decode(errors='replace')[-1000:]}")
        infos.append(seconds)
        seconds, done = timed(check_cmd)
        if done.returncode not in (0, 8):
            raise SystemExit(f"check failed ({done.returncode}): {done.stderr.decode(errors='replace')[-1000:]}")
        checks.append(seconds)
        document = json.loads(done.stdout)
        summary = document["summary"]
    info, check = statistics.median(infos), statistics.median(checks)
    print(machine_note())
    print(f"info  (start-up, handshake, shutdown): median {info:.2f} s  (min {min(infos):.2f}, max {max(infos):.2f})")
    print(
        f"check (everything):                    median {check:.2f} s  (min {min(checks):.2f}, max {max(checks):.2f})"
    )
    print(f"check beyond start-up: {check - info:.2f} s  (ratio check/info {check / info:.2f}x)")
    print(f"findings: {summary}")


if __name__ == "__main__":
    main()
