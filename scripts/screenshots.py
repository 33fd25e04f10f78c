"""Drive the TUI against the demo server and save an SVG of each main view.

    python scripts/screenshots.py [--out screenshots] [--only mrtr-modal,http]

Runs headless (Pilot, 120x40), calls real tools on ``python -m mcp_inspector.demo -v`` (``-v`` makes
it trace to stderr, so the console view has something to show) and writes: main (a tool called, its
result), tools-changed + tool-diff (after toggle_extra_tools), overview, traffic-detail,
notifications, console connect, help and prompts (explain_error got, its error narrowed by the
language); then, on the SDK's Streamable HTTP fixture server (tests/servers/sdk_http_server.py on
127.0.0.1, 2026-07-28): remote-main, mrtr-modal (an input round of ask_user), http (the HTTP view),
http-detail (a tools/call answered on an SSE stream) and remote-overview; then, on the OAuth fixture
(tests/servers/oauth_server.py: a protected MCP server and its authorization server on 127.0.0.1,
authorized with --oauth-open fetch): auth (the Auth view on the token step, its JWT claims decoded)
and auth-metadata (the authorization server metadata step); then checks (the Checks view on
tests/servers/checks_tui_server.py, a server with known defects, after r ran the active checks).
``--only`` writes just the pictures named (and skips a server none of them needs).
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# The pictures show a first run, whoever runs the script: no draft, remembered era, token or config of
# the user's (a remembered era changed the Overview's "how it connected" line from run to run).
_HOME = tempfile.mkdtemp(prefix="mcpi-screenshots-")
atexit.register(shutil.rmtree, _HOME, True)
os.environ["XDG_STATE_HOME"] = os.path.join(_HOME, "state")
os.environ["XDG_CONFIG_HOME"] = os.path.join(_HOME, "config")

from mcp_inspector.core.config.servers import ServerSpec  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.app import make_app  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.config import TuiConfig  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.pilot_steps import wait_for, wait_for_form  # noqa: E402 - after the sys.path/environment setup above
from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog  # noqa: E402 - after the sys.path/environment setup above

SIZE = (120, 40)
LOCAL_SHOTS = (
    "main",
    "tools-changed",
    "tool-diff",
    "overview",
    "traffic",
    "traffic-detail",
    "traffic-query",
    "notifications",
    "console",
    "raw-frame",
    "connect",
    "help",
    "prompts",
    "resources",
    "resources-template",
    "task-running",
    "tasks",
)
REMOTE_SHOTS = ("remote-main", "mrtr-modal", "http", "http-detail", "remote-overview")
AUTH_SHOTS = ("auth", "auth-metadata")
CHECKS_SHOTS = ("checks",)
ONLY: set[str] = set()  # --only: the pictures to write (empty: all)


async def call(pilot, main, tool: str, arguments: dict, linger: bool = True) -> None:
    """Choose the tool, fill its form, send with ctrl+s, and wait for the result."""
    main.tool_list.select_name(tool)
    await wait_for(
        pilot, lambda: main.composer.tool is not None and main.composer.tool.get("name") == tool, what=f"{tool}"
    )
    await wait_for_form(pilot.app)
    await main.composer.set_arguments(arguments)
    before = main.store.method_counts.get("tools/call", 0)
    main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(
        pilot,
        lambda: main.store.method_counts.get("tools/call", 0) > before and not main.calls.in_flight,
        what=f"{tool} result",
        timeout=15,
    )
    if linger:  # finished calls linger in the in-flight panel for a moment; let them go
        await wait_for(pilot, lambda: not main.inflight.rows, timeout=10, what="the in-flight panel to empty")
    await pilot.pause(0.3)


async def take(pilot, out: Path, name: str) -> None:
    if ONLY and name not in ONLY:
        return
    await pilot.pause(0.3)
    path = out / f"{name}.svg"
    path.write_text(pilot.app.export_screenshot(title=f"mcp-inspector: {name}"), encoding="utf-8")
    print(f"wrote {path}")


QUERY_KEYS = {
    " ": "space",
    ".": "full_stop",
    '"': "quotation_mark",
    "(": "left_parenthesis",
    ")": "right_parenthesis",
    "=": "equals_sign",
    "|": "vertical_line",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
}


async def traffic_query_shot(pilot, out: Path, log) -> None:
    """The Traffic view filtered by a jq query, the selected frame's outputs under the log."""
    await pilot.press("vertical_line")
    await pilot.press(*[QUERY_KEYS.get(c, c) for c in 'select(.method == "notifications/message") | .params.data'])
    await pilot.press("enter")
    await wait_for(
        pilot,
        lambda: log.query_run is not None and log.query_run.through >= log.store.last_seq,
        what="the query over the log",
    )
    await pilot.pause(0.3)
    await take(pilot, out, "traffic-query")
    await pilot.press("x")
    await wait_for(pilot, lambda: log.query_run is None, what="the cleared query")


async def raw_frame_shot(pilot, out: Path, app) -> None:
    """A ping sent by hand from the raw frame screen, its reply under the editor."""
    from mcp_inspector.tui.screens.traffic.pick_list import PickList
    from mcp_inspector.tui.screens.traffic.raw_frame import RawFrameScreen

    app.main.tool_list.option_list.focus()
    await pilot.press("ctrl+e")
    await wait_for(pilot, lambda: isinstance(app.screen, RawFrameScreen), what="the raw frame screen")
    screen = app.screen
    await pilot.press("ctrl+t")
    await wait_for(pilot, lambda: isinstance(app.screen, PickList), what="the templates")
    await pilot.press("p")
    await wait_for(pilot, lambda: app.screen is screen, what="the ping template")
    await pilot.press("ctrl+s")

    def sent() -> list:
        return [e for e in app.store if isinstance(e.meta, dict) and e.meta.get("by_hand")]

    await wait_for(pilot, lambda: bool(sent()) and sent()[-1].reply_seq is not None, what="the reply")
    await pilot.pause(0.3)
    await take(pilot, out, "raw-frame")
    await pilot.press("escape")
    await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")


async def prompts_shot(pilot, out: Path) -> None:
    """The Prompts view: explain_error's language completed, its error narrowed by it, then got."""
    from mcp_inspector.tui.widgets.views.prompts.view import PromptsView

    await pilot.press("8")
    await wait_for(pilot, lambda: pilot.app.main.query("#view-prompts"), what="the Prompts view")
    view = pilot.app.main.query_one("#view-prompts", PromptsView)
    await wait_for(pilot, lambda: view.prompt_list.prompts, what="the prompt list")
    view.prompt_list.select_name("explain_error")
    view.prompt_list.option_list.focus()
    await pilot.press("enter", *"rus")
    await wait_for(pilot, lambda: view.fields()[0].suggestions == ["rust"], what="rust")
    await pilot.press("tab", "tab", "down")
    await wait_for(pilot, lambda: view.fields()[1].list_open and view.fields()[1].suggestions, what="rust errors")
    await pilot.press("down", "enter", "ctrl+s")
    await wait_for(pilot, lambda: view.messages.messages, what="the prompt's messages")
    await take(pilot, out, "prompts")


async def resources_shot(pilot, out: Path) -> None:
    """The Resources view: demo://readme subscribed, read, touched since (stale), then a template filled."""
    from mcp_inspector.tui.widgets.views.resources.view import ResourcesView

    main = pilot.app.main
    await pilot.press("7")
    await wait_for(pilot, lambda: main.query("#view-resources"), what="the Resources view")
    view = main.query_one("#view-resources", ResourcesView)
    await wait_for(pilot, lambda: {"resources", "resource_templates"} <= view.resource_list.listed, what="the lists")
    view.resource_list.select_uri("demo://readme")
    view.resource_list.option_list.focus()
    await pilot.press("s")
    await wait_for(pilot, lambda: "demo://readme" in view.session.subscribed, what="the subscription")
    await pilot.press("enter")
    await wait_for(pilot, lambda: view.contents.kind == "ok", what="the read")
    await pilot.press("1")
    await call(pilot, main, "touch_resource", {"uri": "demo://readme"})
    await pilot.press("7")
    await wait_for(pilot, lambda: view.contents.stale.has_class("-stale"), what="the update")
    pilot.app.clear_notifications()
    await take(pilot, out, "resources")
    view.resource_list.select_template("demo://files{/path*}{#section}")
    view.resource_list.option_list.focus()
    await pilot.press("enter", *"docs/gu")
    form = view.template_form
    await wait_for(
        pilot, lambda: form.query("Input") and form.query("Input").first().suggestions, what="path suggestions"
    )
    await pilot.press("tab", "tab", "down")
    fields = list(form.query("Input").results())
    await wait_for(pilot, lambda: fields[1].suggestions, what="section suggestions")
    await pilot.press("tab", "enter")
    await wait_for(
        pilot, lambda: view.contents.kind == "ok" and view.contents.uri == form.uri, what="the template read"
    )
    pilot.app.clear_notifications()
    await take(pilot, out, "resources-template")


async def tasks_shot(pilot, out: Path) -> None:
    """long_job runs as a task (required): its status in the result panel and the in-flight row, then the Tasks view."""
    main = pilot.app.main
    await main.show_view("main")  # (the focus may be in the template form, where "1" would be typed)
    main.tool_list.select_name("long_job")
    await wait_for(
        pilot, lambda: main.composer.tool is not None and main.composer.tool.get("name") == "long_job", what="long_job"
    )
    await wait_for_form(pilot.app)
    await main.composer.set_arguments({"steps": 4, "duration_seconds": 4})
    main.tool_list.option_list.focus()
    await pilot.press("ctrl+s")
    await wait_for(
        pilot,
        lambda: any(
            r.status == "working" and "Step 2" in str(r.task.get("statusMessage"))
            for r in main.connection.session.tasks.values()
        ),
        what="the task's step 2",
        timeout=15,
    )
    await pilot.pause(0.5)
    pilot.app.clear_notifications()
    await take(pilot, out, "task-running")
    await wait_for(pilot, lambda: not main.calls.in_flight, what="the task's result", timeout=20)
    await pilot.press("9")
    await wait_for(pilot, lambda: main.query("#view-tasks"), what="the Tasks view")
    await pilot.pause(0.5)
    await pilot.press("enter")
    await pilot.pause(1.0)
    pilot.app.clear_notifications()
    await take(pilot, out, "tasks")


async def run(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # "python" from this interpreter's folder, so the pictures show no local paths
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    spec = ServerSpec("demo", ["python", "-m", "mcp_inspector.demo", "-v"], source="built-in")
    app = make_app(spec, config=TuiConfig(), snapshot_mode=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        main = app.main
        await wait_for(pilot, lambda: bool(main.tool_list.tools), what="the tool list")
        await call(pilot, main, "emit_logs", {"count": 8})
        await call(
            pilot,
            main,
            "create_ticket",
            {"title": "Login page is slow", "priority": "high", "tags": ["perf"], "labels": ["bug", "ui"]},
        )
        await take(pilot, out, "main")

        await call(pilot, main, "toggle_extra_tools", {}, linger=False)
        await wait_for(pilot, lambda: bool(main.tool_list.marks), what="the tool list change")
        main.tool_list.select_name("echo")
        await take(pilot, out, "tools-changed")
        await pilot.press("ctrl+g")
        await take(pilot, out, "tool-diff")
        await pilot.press("escape")
        app.clear_notifications()  # the list-change toast belongs to the two pictures above

        await pilot.press("2")
        await take(pilot, out, "overview")

        await pilot.press("5")
        await pilot.pause(0.3)
        log = main.query_one("#view-traffic").query_one(TrafficLog)
        ticket = [e for e in main.store if e.method == "tools/call" and b"create_ticket" in e.raw]
        seq = ticket[-1].reply_seq or ticket[-1].seq  # the ticket's response: structured content
        log.move_cursor_to_seq(seq)
        await take(pilot, out, "traffic")
        await pilot.press("enter")
        await take(pilot, out, "traffic-detail")
        await pilot.press("escape")
        await traffic_query_shot(pilot, out, log)

        await pilot.press("3")
        await take(pilot, out, "notifications")
        await pilot.press("4")
        await take(pilot, out, "console")
        await pilot.press("1")
        await raw_frame_shot(pilot, out, app)
        await pilot.press("f7")
        await pilot.pause(0.5)
        await take(pilot, out, "connect")
        await pilot.press("escape")
        await pilot.press("f1")
        await take(pilot, out, "help")
        await pilot.press("escape")
        await prompts_shot(pilot, out)
        await resources_shot(pilot, out)
        await tasks_shot(pilot, out)


async def run_checks(out: Path) -> None:
    """The Checks view on a server with known defects: the live findings, then the active checks'."""
    os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")
    spec = ServerSpec("weather", ["python", "tests/servers/checks_tui_server.py"], source="built-in")
    app = make_app(spec, config=TuiConfig(), snapshot_mode=True, cwd=str(REPO))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        main = app.main
        await wait_for(pilot, lambda: bool(main.tool_list.tools), what="the tool list")
        await wait_for(pilot, lambda: len(main.checks.findings) >= 3, what="the live findings")
        await pilot.press("exclamation_mark")
        await pilot.press("r")
        await wait_for(pilot, lambda: main.checks.runs == 1, what="the active checks")
        app.clear_notifications()
        await take(pilot, out, "checks")


def start_http_server() -> tuple[subprocess.Popen, str]:
    """The SDK fixture server over Streamable HTTP on 127.0.0.1 (a free port)."""
    server = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "servers" / "sdk_http_server.py"), "--mode", "stateful"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    for line in server.stdout:
        if line.startswith("PORT "):
            return server, f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    server.kill()
    raise SystemExit("the HTTP fixture server did not start")


async def run_remote(out: Path) -> None:
    from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen
    from mcp_inspector.tui.screens.traffic.http_detail import HttpExchangeScreen

    server, url = start_http_server()
    try:
        app = make_app(
            ServerSpec("sdk-http-fixture", url=url, transport="http"), config=TuiConfig(), snapshot_mode=True
        )
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            main = app.main
            await wait_for(pilot, lambda: bool(main.tool_list.tools), what="the tool list", timeout=20)
            await call(pilot, main, "echo", {"text": "over Streamable HTTP"})
            await call(pilot, main, "progress_and_log", {"steps": 3, "delay": 0.05})
            await take(pilot, out, "remote-main")

            main.tool_list.select_name("ask_user")
            await wait_for(
                pilot,
                lambda: main.composer.tool is not None and main.composer.tool.get("name") == "ask_user",
                what="ask_user",
            )
            await wait_for_form(app)
            main.tool_list.option_list.focus()
            await pilot.press("ctrl+s")
            await wait_for(
                pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the input round", timeout=15
            )
            modal = app.screen
            await wait_for(
                pilot, lambda: app.focused is not None and app.focused.screen is modal, what="the form's first field"
            )
            await pilot.press(*"Ada")  # the elicitation form, by keyboard
            await take(pilot, out, "mrtr-modal")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: not main.calls.in_flight, what="ask_user's result", timeout=15)
            await wait_for(pilot, lambda: not main.inflight.rows, timeout=10, what="the in-flight panel to empty")
            app.clear_notifications()

            await pilot.press("6")
            view = main.query_one("#view-http")
            progress = [
                ex
                for ex in main.store.http_log.exchanges
                if ex.header("mcp-name", response=False) == "progress_and_log"
            ]
            view.select(progress[-1].id)
            await take(pilot, out, "http")
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, HttpExchangeScreen), what="the exchange detail")
            await take(pilot, out, "http-detail")
            await pilot.press("escape")
            await pilot.press("2")
            await take(pilot, out, "remote-overview")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)


def start_oauth_server() -> tuple[subprocess.Popen, str]:
    """The OAuth fixture (JWT access tokens) on 127.0.0.1, a free port."""
    server = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "servers" / "oauth_server.py"), "--port", "0", "--jwt"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    for line in server.stdout:
        if line.startswith("URL "):
            return server, line.split()[1]
    server.kill()
    raise SystemExit("the OAuth fixture server did not start")


async def run_auth(out: Path) -> None:
    from mcp_inspector.core.auth.model import AuthSettings
    from mcp_inspector.tui.widgets.views.auth.view import AuthView

    server, url = start_oauth_server()
    try:
        spec = ServerSpec(
            "oauth-fixture", url=url, transport="http", auth=AuthSettings(open_mode="fetch", store="none")
        )
        app = make_app(spec, config=TuiConfig(), snapshot_mode=True)
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            main = app.main
            await wait_for(pilot, lambda: bool(main.tool_list.tools), what="the tool list", timeout=20)
            await pilot.press("0")
            view = main.query_one("#view-auth", AuthView)
            await wait_for(
                pilot,
                lambda: [step.kind for step, _ in view.steps()][-2:] == ["token", "retry"],
                what="the token step and the request sent again",
            )
            app.clear_notifications()
            view.step_list.highlighted = view.step_list.option_count - 2  # the token step
            await take(pilot, out, "auth")
            view.step_list.highlighted = 2
            await take(pilot, out, "auth-metadata")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "screenshots"), help="folder for the SVG files")
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated picture names to write (default: all): "
        + ", ".join(LOCAL_SHOTS + REMOTE_SHOTS + AUTH_SHOTS + CHECKS_SHOTS),
    )
    args = parser.parse_args()
    ONLY.update(name.strip() for name in args.only.split(",") if name.strip())
    unknown = ONLY - set(LOCAL_SHOTS + REMOTE_SHOTS + AUTH_SHOTS + CHECKS_SHOTS)
    if unknown:
        parser.error(f"unknown picture(s): {', '.join(sorted(unknown))}")

    async def both() -> None:
        if not ONLY or ONLY & set(LOCAL_SHOTS):
            await run(Path(args.out))
        if not ONLY or ONLY & set(REMOTE_SHOTS):
            await run_remote(Path(args.out))
        if not ONLY or ONLY & set(AUTH_SHOTS):
            await run_auth(Path(args.out))
        if not ONLY or ONLY & set(CHECKS_SHOTS):
            await run_checks(Path(args.out))

    asyncio.run(both())


if __name__ == "__main__":
    main()
