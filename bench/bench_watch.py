"""Watch and restart: from saving a server file to the new tool list on screen.

    python bench/bench_watch.py [--rounds 7] [--sdk]

One fresh process runs the real app headless at 120x40 with ``--watch`` on a temp copy of
a server (``bench/servers/minimal_server.py``, stdlib, starts in ~50 ms; ``--sdk``: the
official SDK's ``tests/servers/watched_server.py``, ~1-2 s). Each round, alternating:

* ``F8 restart`` (the baseline, same run): the restart action, until the new process's
  tool list has been drawn. This is a plain start-to-tools-visible of the same server
  (the old one closed first, as any restart does).
* ``edit -> tools``: the file is rewritten (a comment line changes, so the tools and the
  composer stay as they are and only the restart differs) until the new process's tool
  list has been drawn: the watcher's notice, its debounce (``QUIET`` seconds without a
  change) and the same restart.

Printed: medians (and min..max of the rounds), the ratio edit/F8 (median of the paired
per-round ratios), and the difference, which is what watching adds: the debounce and the
file system's notice. The app's cold start to the first tool list is shown for information.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from common import MINIMAL_SERVER, PYTHON, REPO, Series, machine_note, paired_ratio, print_series_table

SDK_SERVER = REPO / "tests" / "servers" / "watched_server.py"

CHILD = r"""
import asyncio, json, re, sys, time
from pathlib import Path
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig

script, rounds = Path(sys.argv[1]), int(sys.argv[2])
born = time.perf_counter()
app = make_app(ServerSpec("bench", [sys.executable, str(script)]), config=TuiConfig(), watch=[""])
result = {"f8": [], "edit": []}

async def until(condition, what, limit=120.0):
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        await asyncio.sleep(0.002)

async def drawn():
    done = asyncio.Event()
    app.call_after_refresh(done.set)
    await done.wait()

def new_list(main, old_tools, old_pid):
    status = main.status_bar.status
    return main.tool_list.tools is not old_tools and status.state == "connected" and status.pid != old_pid

def first_tools():
    try:
        main = app.main
        return bool(main.tool_list.tools) and main.file_watch.listening
    except Exception:  # the screen is not composed yet
        return False

async def drive():
    await until(first_tools, "the tools")
    main = app.main
    await drawn()
    result["cold"] = time.perf_counter() - born
    for n in range(rounds):
        for variant in (("f8", "edit") if n % 2 == 0 else ("edit", "f8")):
            old_tools, old_pid = main.tool_list.tools, main.status_bar.status.pid
            started = time.perf_counter()
            if variant == "f8":
                app.action_restart()
            else:
                script.write_text(re.sub(r"\n# edit \d+\n$", "", script.read_text()) + f"\n# edit {n}\n")
            await until(lambda: new_list(main, old_tools, old_pid), variant)
            await drawn()
            result[variant].append(time.perf_counter() - started)
    print(json.dumps(result), flush=True)
    app.exit()

app.call_later(lambda: app.run_worker(drive(), exit_on_error=True))
app.run(headless=True, size=(120, 40))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="rounds of each variant (default 7)")
    parser.add_argument("--sdk", action="store_true", help="the official SDK's server instead of the minimal one")
    args = parser.parse_args()
    source = SDK_SERVER if args.sdk else MINIMAL_SERVER
    with tempfile.TemporaryDirectory(prefix="bench-watch-") as folder:
        script = Path(folder) / "server.py"
        shutil.copyfile(source, script)
        env = dict(
            os.environ,
            XDG_STATE_HOME=str(Path(folder) / "state"),
            PYTHONPATH=os.pathsep.join(
                [str(REPO)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
            ),
        )
        child = subprocess.run(
            [PYTHON, "-c", CHILD, str(script), str(args.rounds)],
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,
            timeout=60 + args.rounds * 60,
        )
    lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
    if child.returncode != 0 or not lines:
        raise SystemExit(f"the app failed (exit {child.returncode}):\n{child.stderr[-3000:]}")
    result = json.loads(lines[-1])
    f8, edit = Series("F8 restart (baseline)"), Series("edit -> tools")
    for a, b in zip(result["f8"], result["edit"], strict=True):  # one round = one F8 and one edit, alternating order
        f8.add_round([a])
        edit.add_round([b])
    server = "the SDK's watched_server.py" if args.sdk else "minimal_server.py"
    print(f"Watch and restart, {server}, {args.rounds} rounds; {machine_note()}")
    print_series_table([f8, edit], baseline=f8, p95=False)
    ratio, low, high = paired_ratio(edit, f8)
    print(
        f"  edit -> tools / F8 restart: {ratio:.2f}x (rounds {low:.2f}x..{high:.2f}x); watching adds "
        f"{(edit.median - f8.median) * 1000:.0f} ms (debounce and notice)"
    )
    print(f"  cold start of the app to the first tool list (information): {result['cold'] * 1000:.0f} ms")
    print(
        f"  edit -> tools, all rounds (ms): {', '.join(f'{v * 1000:.0f}' for v in result['edit'])}; "
        f"median {statistics.median(result['edit']) * 1000:.0f}"
    )


if __name__ == "__main__":
    main()
