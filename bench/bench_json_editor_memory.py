"""Memory of the JSON editors over form switches: it must stay flat.

    python bench/bench_json_editor_memory.py [--switches 200] [--every 50] [--big-kb 55]

A bare app hosting the composer (ComposerPanel, headless 120x40) is shown the tools of the
real servers' schemas in tests/fixtures/schemas/ in turn (``set_tool``, waiting for each form
to be built: what picking tools in the list does), ``switches`` times; every ``big-kb`` > 0
switch also puts an argument of that many KB into the form (``set_arguments``, as a restored
draft or a replayed call does), so the JSON editor holds a large text. Printed every
``every`` switches: RSS (from /proc, after a gc.collect()) and how many syntax-highlighted
documents are still alive (the editor's current ones are a handful). The switches counted come
after one warm-up pass over every tool (row 0), which fills caches that are built once.

Two variants, each in a fresh process: ``fixed`` (as the app runs: textual_compat.install())
and ``unfixed`` (textual_compat.install made a no-op, i.e. Textual's TextArea as it is).
Rows to read: RSS growth from switch ``every`` to the last (flat: a few MB), and the alive
documents (flat). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

from common import PYTHON, REPO

CHILD = r"""
import asyncio, gc, json, os, sys, tempfile
from pathlib import Path
from textual.app import App
from textual.widgets.text_area import SyntaxAwareDocument
from mcp_inspector.core.config.drafts import DraftStore
from mcp_inspector.tui import textual_compat
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.widgets.composer import ComposerPanel

variant, switches, every, big_kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
if variant == "unfixed":
    textual_compat.install = lambda: False
REAL = ("mcp-server-fetch", "mcp-server-git", "mcp-server-time", "server-everything", "server-filesystem",
        "server-github", "server-memory", "server-postgres", "server-sequential-thinking")
tools = []
for name in REAL:
    tools += json.loads((Path("tests/fixtures/schemas") / f"{name}.json").read_text())["tools"]

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6

def alive_documents():
    return sum(1 for o in gc.get_objects() if isinstance(o, SyntaxAwareDocument))

class Host(App):
    def get_theme_variable_defaults(self):
        return dict(THEME_VARIABLE_DEFAULTS)
    def compose(self):
        yield ComposerPanel(DraftStore(Path(tempfile.mkdtemp()) / "drafts.json"), draft_delay=60)
    def on_mount(self):
        self.query_one(ComposerPanel).set_server("bench")

async def main():
    app = Host()
    big = "x" * (big_kb * 1024)
    async with app.run_test(size=(120, 40)) as pilot:
        composer = app.query_one(ComposerPanel)
        warm = len(tools)  # one pass over every tool first: Textual's and our caches fill once per schema
        for n in range(1 - warm, switches + 1):
            tool = tools[n % len(tools)]
            composer.set_tool(tool)
            await pilot.pause()
            await app.workers.wait_for_complete([w for w in app.workers if w.group == "composer-load"])
            if big_kb:
                props = (tool.get("inputSchema") or {}).get("properties") or {}
                key = next((k for k, v in props.items() if isinstance(v, dict) and v.get("type") == "string"), None)
                if key is not None:
                    await composer.set_arguments({key: big})
            if n >= 0 and n % every == 0:
                await pilot.pause()
                gc.collect()
                print(json.dumps({"switch": n, "rss_mb": rss_mb(), "documents": alive_documents()}), flush=True)

asyncio.run(main())
"""


def run(variant: str, switches: int, every: int, big_kb: int) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(REPO), XDG_STATE_HOME="/tmp/mcp-inspector-bench-state")
    out = subprocess.run(
        [PYTHON, "-c", CHILD, variant, str(switches), str(every), str(big_kb)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=1800,
    )
    if out.returncode != 0:
        sys.exit(f"{variant} failed:\n{out.stderr[-3000:]}")
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--switches", type=int, default=200)
    parser.add_argument("--every", type=int, default=50)
    parser.add_argument("--big-kb", type=int, default=55, help="KB of argument put in each form (0: none)")
    parser.add_argument("--variants", default="fixed,unfixed")
    args = parser.parse_args()
    results = {variant: run(variant, args.switches, args.every, args.big_kb) for variant in args.variants.split(",")}
    print(f"{args.switches} form switches over the real servers' tools, {args.big_kb} KB argument each")
    print(f"{'switch':>7} " + " ".join(f"{v + ' RSS':>14} {v + ' docs':>13}" for v in results))
    for i, row in enumerate(next(iter(results.values()))):
        cells = []
        for rows in results.values():
            cells.append(f"{rows[i]['rss_mb']:>11.1f} MB {rows[i]['documents']:>13}")
        print(f"{row['switch']:>7} " + " ".join(cells))
    for variant, rows in results.items():
        if len(rows) >= 2:
            print(
                f"{variant}: RSS {rows[-1]['rss_mb'] - rows[0]['rss_mb']:+.1f} MB from switch {rows[0]['switch']} "
                f"to {rows[-1]['switch']}; documents alive {rows[0]['documents']} -> {rows[-1]['documents']}"
            )


if __name__ == "__main__":
    main()
