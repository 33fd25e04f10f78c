"""How the traffic log copes with a notification flood, against Textual's own Log.

    python bench/bench_tui_flood.py [--count 100000] [--presses 50] [--variant traffic|log]
    python bench/bench_tui_flood.py --views [--count 100000] [--rounds 3] [--every 0.25]

Each variant runs in its own process (so peak RSS is its own): a minimal app
hosting the view and a real McpSession on ``python -m mcp_inspector.demo``,
which is asked to send ``count`` notifications/message (tool
``flood_notifications``). Measured:

* time from the tools/call until the view shows every notification;
* key-press latency during the flood: from delivering an "up"/"down" key (as
  the terminal driver does) until the next frame is composed with the moved
  cursor / scrolled view (p50/p95/max over ``presses`` keys, one every 40 ms);
* peak RSS (ru_maxrss) of the process.

The baseline ("log") is ``textual.widgets.Log`` fed the same one-line texts on
the same 15 Hz timer (its ``max_lines`` left unbounded, like the store's cap is
large). Without ``--variant`` both run and the figures are printed with ratios.

``--views`` measures view switching instead, in the whole InspectorApp on the
demo server (each run a fresh process, variants alternating over ``rounds``):

* ``still``: the Main view only, the other views never mounted;
* ``mounted``: every view mounted once, then back to Main for the flood;
* ``switch``: every ``every`` seconds during the flood, the next view is shown
  (main, notifications, console, traffic, overview, main, ...).

Measured: ingestion time (from the tools/call until the store holds every
notification and the call's result is in), the process's CPU time over that
span, and how many frames were composed. The rows to read are the ratios
mounted/still and switch/still (target: switch <= ~1.3x still): views that are
not shown must cost nothing per frame. ``--compare DIR`` also runs mcp_inspector from
DIR (a ``git archive`` of another commit), interleaved with this copy, for
before/after figures in one run (``BENCH_SOURCE=DIR`` alone measures only DIR).

``--updates`` measures a flood of ``notifications/resources/updated`` instead: the whole app
on ``tests/servers/hostile_surface_server.py``, the Resources view mounted, ``flood://x``
subscribed (the server sends its updates as fast as the pipe takes them) for ``--seconds``.
View switches by key (f3 f4 f5 f6 f2, like a user) are timed from the key until the frame
that shows the new view, first with no flood (the baseline, same process), then during
the flood; the row is flood/quiet. Also: the updates ingested per second, how many
messages the connection posted to the screen for them, and whether the Resources row's
count equals the session's once the flood stops (``exact``). ``--uri flood://lists``
subscribes to a flood of tools/prompts/resources ``list_changed`` instead. With ``--compare DIR`` the
same runs use mcp_inspector from DIR, interleaved.
Nothing is asserted: these are figures for people.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = os.environ.get("BENCH_SOURCE") or str(REPO)
sys.path.insert(0, SOURCE)

from textual.app import App, ComposeResult  # noqa: E402 - after the sys.path/environment setup above
from textual.widgets import Log  # noqa: E402 - after the sys.path/environment setup above

from mcp_inspector.core.base.jsonrpc import Kind  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.core.session.mcp_session import McpSession  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.core.traffic.store import TrafficStore  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.core.transport.stdio import StdioTransport  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.text.traffic_text import clock_time, preview_text  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog  # noqa: E402 - after the sys.path/environment setup above

DEMO = [sys.executable, "-m", "mcp_inspector.demo"]


class BenchApp(App):
    def __init__(self, store: TrafficStore, variant: str) -> None:
        super().__init__()
        self.store, self.variant = store, variant
        self.frames: list[float] = []  # perf_counter of every composed frame
        self._fed = 0

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        if self.variant == "traffic":
            yield TrafficLog(self.store)
        else:
            yield Log()

    def on_mount(self) -> None:
        self.view = self.query_one(TrafficLog if self.variant == "traffic" else Log)
        self.view.focus()
        if self.variant == "log":
            self.set_interval(1 / 15, self.feed_log)

    def feed_log(self) -> None:
        """The baseline: the same one-line texts, appended to a Log on the same 15 Hz timer."""
        new = self.store.since(self._fed)
        if new:
            self.view.write_lines(
                f"{clock_time(e.ts)} {e.direction.value} {e.kind.value} #{e.seq} {e.method or ''} {preview_text(e.raw)}"
                for e in new
            )
            self._fed = new[-1].seq

    def shown(self) -> int:
        """Lines the view has taken in so far."""
        if self.variant == "traffic":
            return self.view.virtual_size.height
        return self.view.line_count

    def position(self) -> tuple:
        """What a key press changes (cursor for the traffic log, scroll for Log)."""
        if self.variant == "traffic":
            return (self.view._cursor_seq, self.view.scroll_y)
        return (self.view.scroll_y,)

    def _display(self, screen, renderable) -> None:  # every composed frame passes here
        self.frames.append(time.perf_counter())
        super()._display(screen, renderable)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def run_variant(variant: str, count: int, presses: int) -> dict:
    store = TrafficStore(cap=200_000)
    app = BenchApp(store, variant)
    result: dict = {"variant": variant, "count": count}
    async with (
        app.run_test(size=(120, 40)) as pilot,
        McpSession(StdioTransport(DEMO), store=store, timeout=600) as session,
    ):
        await session.initialize()
        await pilot.pause(0.3)
        before = store.kind_counts[Kind.NOTIFICATION]
        base_lines = app.shown()
        target = base_lines + count + 2  # notifications + the call's request and response
        expected_notifications = before + count
        started = time.perf_counter()
        call = asyncio.create_task(session.call_tool("flood_notifications", {"count": count, "kind": "message"}))
        done_at: list[float] = []

        async def watch() -> None:
            while (
                store.kind_counts[Kind.NOTIFICATION] < expected_notifications or app.shown() < target
            ) and time.perf_counter() - started < 600:
                await asyncio.sleep(0.002)
            done_at.append(time.perf_counter())

        watcher = asyncio.create_task(watch())
        await asyncio.sleep(0.1)  # let the flood get going
        latencies, during, flood_latencies, unchanged = [], 0, [], 0
        from textual import events

        for i in range(presses):
            position = app.position()
            event = events.Key("up" if i % 2 == 0 else "down", None)
            event.set_sender(app)
            flooding = not done_at
            sent = time.perf_counter()
            app._driver.send_message(event)
            while app.position() == position and time.perf_counter() - sent < 5:
                await asyncio.sleep(0.0005)
            moved = time.perf_counter()
            while (not app.frames or app.frames[-1] < moved) and time.perf_counter() - sent < 5:
                await asyncio.sleep(0.0005)
            if app.position() == position or not app.frames or app.frames[-1] < moved:
                unchanged += 1  # the key had nothing to move (e.g. "down" at the very end): not a latency
            else:
                latencies.append((app.frames[-1] - sent) * 1000)
                during += flooding
                if flooding:
                    flood_latencies.append(latencies[-1])
            await asyncio.sleep(0.04)
        outcome = await call
        await watcher
        result["all_shown_s"] = done_at[0] - started
        result["received"] = store.kind_counts[Kind.NOTIFICATION] - before
        await app.workers.wait_for_complete()  # Log measures widths in thread workers
        await pilot.pause(0.2)
        result["tool_said"] = outcome.result.get("content", [{}])[0].get("text", "")
    result["key_ms"] = {
        "p50": percentile(latencies, 0.5),
        "p95": percentile(latencies, 0.95),
        "max": max(latencies),
        "presses": len(latencies),
        "during_flood": during,
        "unchanged": unchanged,
    }
    if flood_latencies:
        result["key_ms"].update(
            {
                "flood_p50": percentile(flood_latencies, 0.5),
                "flood_p95": percentile(flood_latencies, 0.95),
                "flood_max": max(flood_latencies),
            }
        )
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


VIEW_CYCLE = ["notifications", "console", "traffic", "overview", "main"]
VIEW_VARIANTS = ("still", "mounted", "switch")


async def run_views_variant(variant: str, count: int, every: float) -> dict:
    """The whole app on the demo server; the flood with or without view switching."""
    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig

    app = make_app(timeout=600, config=TuiConfig())
    frames = [0]
    display = app._display

    def counting_display(screen, renderable) -> None:
        frames[0] += 1
        display(screen, renderable)

    app._display = counting_display
    result: dict = {"variant": variant, "count": count}
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        for _ in range(1000):
            if main.tool_list.tools and main.connection.live is not None:
                break
            await pilot.pause(0.02)
        session = main.connection.live
        if variant == "mounted":
            for name in VIEW_CYCLE:
                await app.action_show_view(name)
                await pilot.pause(0.05)
        await pilot.pause(0.3)
        store = app.store
        expected = store.kind_counts[Kind.NOTIFICATION] + count
        frames[0] = 0
        cpu, started = time.process_time(), time.perf_counter()
        # the way the composer sends it: a worker, a row in the in-flight panel, the result panel
        call = main.call_tool(session, "flood_notifications", {"count": count, "kind": "message"})
        switches, step = 0, 0
        next_switch = started + every
        while (
            store.kind_counts[Kind.NOTIFICATION] < expected or not call.is_finished
        ) and time.perf_counter() - started < 600:
            if variant == "switch" and time.perf_counter() >= next_switch:
                await app.action_show_view(VIEW_CYCLE[step % len(VIEW_CYCLE)])
                step += 1
                switches += 1
                next_switch += every
            await asyncio.sleep(0.002)
        result["ingest_s"] = time.perf_counter() - started
        result["cpu_s"] = time.process_time() - cpu
        result["frames"] = frames[0]
        result["switches"] = switches
        result["received"] = store.kind_counts[Kind.NOTIFICATION] - expected + count
        responses = [e for e in store.since(store.last_seq - 5) if e.kind is Kind.RESPONSE]
        result["tool_said"] = (
            preview_text(responses[-1].raw, 2000).split('"text":"')[-1].split('"')[0] if responses else ""
        )
    return result


def views_main(args) -> int:
    sources = {"": SOURCE}
    if args.compare:
        sources = {"this ": SOURCE, "other ": str(Path(args.compare).resolve())}
    runs: dict[tuple[str, str], list[dict]] = {(label, name): [] for label in sources for name in VIEW_VARIANTS}
    for _ in range(args.rounds):
        for label, source in sources.items():  # interleaved, so a burst of load hits every variant
            for variant in VIEW_VARIANTS:
                env = dict(os.environ, BENCH_SOURCE=source)
                child = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--views",
                        "--variant",
                        variant,
                        "--count",
                        str(args.count),
                        "--every",
                        str(args.every),
                    ],
                    capture_output=True,
                    text=True,
                    timeout=900,
                    env=env,
                )
                if child.returncode != 0:
                    print(f"{label}{variant} failed:\n{child.stderr[-2000:]}")
                    return 1
                runs[label, variant].append(json.loads(child.stdout.strip().splitlines()[-1]))
    print(
        f"view switching every {args.every} s during a flood of {args.count} notifications/message, "
        f"whole app on the demo server, 120x40 headless, {args.rounds} rounds (medians; min..max)"
    )
    for label, source in sources.items():
        print(f"  {label or 'mcp_inspector '}from {source}")
    print(f"{'':16}{'ingest s':>18}{'cpu s':>18}{'frames':>8}{'switches':>10}{'ingest/still':>20}{'cpu/still':>20}")

    def spread(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} ({min(values):.1f}..{max(values):.1f})"

    for label in sources:
        still = runs[label, "still"]
        for variant in VIEW_VARIANTS:
            rows = runs[label, variant]
            # paired per round: the ratio to "still" measured next to it
            ratios = [r["ingest_s"] / s["ingest_s"] for r, s in zip(rows, still, strict=True)]
            cpu_ratios = [r["cpu_s"] / s["cpu_s"] for r, s in zip(rows, still, strict=True)]
            print(
                f"{label + variant:16}{spread([r['ingest_s'] for r in rows]):>18}"
                f"{spread([r['cpu_s'] for r in rows]):>18}"
                f"{statistics.median(r['frames'] for r in rows):>8.0f}"
                f"{statistics.median(r['switches'] for r in rows):>10.0f}"
                f"{spread(ratios):>20}{spread(cpu_ratios):>20}"
            )
    print(f"server: {runs[next(iter(sources)), 'still'][-1]['tool_said']}")
    return 0


UPDATE_KEYS = [("f3", "overview"), ("f4", "notifications"), ("f5", "console"), ("f6", "traffic"), ("f2", "main")]
HOSTILE = Path(SOURCE) / "tests" / "servers" / "hostile_surface_server.py"


async def run_updates_variant(seconds: float, switches: int, uri: str = "flood://x") -> dict:
    """The whole app on the hostile server; view switches by key, quiet then during a flood of updates."""
    from textual import events

    from mcp_inspector.core.config.servers import ServerSpec
    from mcp_inspector.tui.app import make_app
    from mcp_inspector.tui.config import TuiConfig

    hostile = HOSTILE if HOSTILE.exists() else REPO / "tests" / "servers" / "hostile_surface_server.py"
    app = make_app(
        ServerSpec("hostile", [sys.executable, str(hostile)], source="bench"), timeout=600, config=TuiConfig()
    )
    frames: list[float] = []
    display = app._display

    def counting_display(screen, renderable) -> None:
        frames.append(time.perf_counter())
        display(screen, renderable)

    app._display = counting_display
    posted: dict[str, int] = {}
    result: dict = {}
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main
        for _ in range(1000):
            if main.connection.live is not None and main.tool_list.tools:
                break
            await pilot.pause(0.02)
        session = main.connection.live
        connection = main.connection
        inner_post = connection._post

        def counting_post(message) -> None:
            posted[type(message).__name__] = posted.get(type(message).__name__, 0) + 1
            inner_post(message)

        connection._post = counting_post
        await app.action_show_view("resources")
        view = main.query_one("#view-resources")
        for _ in range(500):
            if "flood://x" in str(view.resource_list.items):
                break
            await pilot.pause(0.02)
        await app.action_show_view("main")
        await pilot.pause(0.3)

        async def switch_times(count: int, until: float | None = None) -> list[float]:
            times = []
            for i in range(count):
                if until is not None and time.perf_counter() > until:
                    break
                key, name = UPDATE_KEYS[i % len(UPDATE_KEYS)]
                event = events.Key(key, None)
                event.set_sender(app)
                sent = time.perf_counter()
                app._driver.send_message(event)
                while main.current_view != name and time.perf_counter() - sent < 30:
                    await asyncio.sleep(0.0005)
                shown = time.perf_counter()
                while (not frames or frames[-1] < shown) and time.perf_counter() - sent < 30:
                    await asyncio.sleep(0.0005)
                times.append((frames[-1] - sent) * 1000 if frames else float("nan"))
                await asyncio.sleep(0.1)
            return times

        await switch_times(len(UPDATE_KEYS))  # every view mounted once: the first mount is not a switch
        result["quiet_ms"] = await switch_times(switches)
        posted.clear()
        store = app.store
        notifications = store.kind_counts[Kind.NOTIFICATION]
        cpu, started = time.process_time(), time.perf_counter()
        await session.subscribe(uri)
        await asyncio.sleep(0.3)
        result["flood_ms"] = await switch_times(10_000, until=started + seconds)
        await session.unsubscribe(uri)
        result["flood_s"] = time.perf_counter() - started
        result["cpu_s"] = time.process_time() - cpu
        result["updates"] = session.resource_updates.get("flood://x", 0)
        # the flood is over when the count stops moving; then the row must say the same
        last, still = -1, 0
        while still < 5 and time.perf_counter() - started < seconds + 120:
            now = session.resource_updates.get("flood://x", 0) + store.version
            still = still + 1 if now == last else 0
            last = now
            await asyncio.sleep(0.1)
        settled = time.perf_counter()
        while view.resource_list.updates.get("flood://x") != last and time.perf_counter() - settled < 60:
            await asyncio.sleep(0.01)
        result["updates"] = last = session.resource_updates.get("flood://x", 0)
        result["frames_in"] = store.kind_counts[Kind.NOTIFICATION] - notifications
        result["shown"] = view.resource_list.updates.get("flood://x")
        result["exact"] = result["shown"] == last if uri == "flood://x" else "n/a"
        result["posted"] = dict(posted)
    return result


def updates_main(args) -> int:
    sources = {"": SOURCE}
    if args.compare:
        sources = {"this ": SOURCE, "other ": str(Path(args.compare).resolve())}
    runs: dict[str, list[dict]] = {label: [] for label in sources}
    for _ in range(args.rounds):
        for label, source in sources.items():
            env = dict(os.environ, BENCH_SOURCE=source, PYTHONPATH=source)
            child = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--updates",
                    "--variant",
                    "run",
                    "--seconds",
                    str(args.seconds),
                    "--presses",
                    str(args.presses),
                    "--uri",
                    args.uri,
                ],
                capture_output=True,
                text=True,
                timeout=900,
                env=env,
            )
            if child.returncode != 0:
                print(f"{label}failed:\n{child.stderr[-2000:]}")
                return 1
            runs[label].append(json.loads(child.stdout.strip().splitlines()[-1]))
    print(
        f"view switches by key (f3 f4 f5 f6 f2) quiet, then during a flood of notifications/resources/updated "
        f"({args.seconds} s, subscribed to {args.uri}), whole app on hostile_surface_server.py, 120x40 headless, "
        f"{args.rounds} rounds"
    )
    for label, source in sources.items():
        print(f"  {label or 'mcp_inspector '}from {source}")
    print(
        f"{'':8}{'quiet p50':>10}{'flood p50':>10}{'flood max':>10}{'p50 ratio':>10}{'notes/s':>10}"
        f"{'msgs/note':>12}{'cpu/s':>7}  exact"
    )
    for label in sources:
        for r in runs[label]:
            quiet, flood = statistics.median(r["quiet_ms"]), statistics.median(r["flood_ms"])
            messages = sum(r["posted"].values())
            print(
                f"{label or '':8}{quiet:>8.0f}ms{flood:>8.0f}ms{max(r['flood_ms']):>8.0f}ms{flood / quiet:>10.1f}"
                f"{r['frames_in'] / r['flood_s']:>10.0f}{messages / max(1, r['frames_in']):>12.4f}"
                f"{r['cpu_s'] / r['flood_s']:>7.2f}  {r['exact']} ({r['shown']}/{r['updates']}, "
                f"{len(r['flood_ms'])} switches, posted {r['posted']})"
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--presses", type=int, default=50)
    parser.add_argument("--variant", choices=["traffic", "log", *VIEW_VARIANTS, "run"])
    parser.add_argument("--updates", action="store_true", help="measure a flood of notifications/resources/updated")
    parser.add_argument(
        "--uri",
        default="flood://x",
        help="--updates: what to subscribe to (flood://lists: a flood of tools/prompts/resources list_changed instead)",
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="--updates: how long the flood runs")
    parser.add_argument("--views", action="store_true", help="measure view switching in the whole app")
    parser.add_argument("--rounds", type=int, default=3, help="--views/--updates: rounds")
    parser.add_argument("--every", type=float, default=0.25, help="--views: seconds between view switches")
    parser.add_argument(
        "--compare",
        metavar="DIR",
        help="--views/--updates: also run mcp_inspector from DIR (a git archive of "
        "another commit), interleaved with this one",
    )
    args = parser.parse_args()
    if args.updates:
        if args.variant:
            print(json.dumps(asyncio.run(run_updates_variant(args.seconds, min(args.presses, 10), args.uri))))
            return 0
        return updates_main(args)
    if args.views:
        if args.variant:
            print(json.dumps(asyncio.run(run_views_variant(args.variant, args.count, args.every))))
            return 0
        return views_main(args)
    if args.variant:
        print(json.dumps(asyncio.run(run_variant(args.variant, args.count, args.presses))))
        return 0
    results = {}
    for variant in ("traffic", "log"):
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--variant",
                variant,
                "--count",
                str(args.count),
                "--presses",
                str(args.presses),
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if child.returncode != 0:
            print(f"{variant} failed:\n{child.stderr[-2000:]}")
            return 1
        results[variant] = json.loads(child.stdout.strip().splitlines()[-1])
    ours, base = results["traffic"], results["log"]
    print(
        f"flood of {args.count} notifications/message from the demo server, {args.presses} key presses, 120x40 headless"
    )
    print(f"{'':28}{'TrafficLog':>14}{'textual Log':>14}{'ratio':>8}")

    def row(label: str, a: float, b: float, unit: str) -> None:
        print(f"{label:28}{a:>12.1f}{unit:>2}{b:>12.1f}{unit:>2}{a / b if b else float('nan'):>8.2f}")

    row("time until all shown", ours["all_shown_s"], base["all_shown_s"], "s")
    for key in ("p50", "p95", "max"):
        row(f"key -> frame {key}", ours["key_ms"][key], base["key_ms"][key], "ms")
    for key in ("flood_p50", "flood_p95", "flood_max"):
        if key in ours["key_ms"] and key in base["key_ms"]:
            row(f"  during flood only {key[6:]}", ours["key_ms"][key], base["key_ms"][key], "ms")
    row("peak RSS", ours["peak_rss_mb"], base["peak_rss_mb"], "MB")
    for name, figures in results.items():
        print(
            f"{name}: received {figures['received']} notifications; presses during the flood "
            f"{figures['key_ms']['during_flood']}/{figures['key_ms']['presses']} "
            f"(+{figures['key_ms']['unchanged']} that moved nothing); server: {figures['tool_said']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
