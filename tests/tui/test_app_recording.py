"""The app on a recorded session (``--open``) and the house conventions that need
no live server: keymap remapping, palette, themes, connect screen, help."""

from __future__ import annotations

import io
import json

import pytest
from app_helpers import DEMO_SESSION, SIZE, settle, wait_for
from textual.widgets import Input

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.connect import ConnectScreen
from mcp_inspector.tui.screens.dialogs.tool_diff import ToolDiffScreen
from mcp_inspector.tui.screens.help import HelpScreen, bindings_table
from mcp_inspector.tui.widgets.views.overview import capabilities_table


def rendered(renderable) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def recorded(**options):
    options.setdefault("config", TuiConfig())
    return make_app(open_file=str(DEMO_SESSION), **options)


async def loaded(pilot):
    """The recording is in and the first tool's form is built (so no worker is left mid-way)."""
    app = pilot.app
    await wait_for(pilot, lambda: app.main.replay is not None and app.main.tool_list.tools, what="the recording")
    await wait_for(pilot, lambda: app.main.composer.schema_form is not None, what="the first form")
    await settle(app)


@pytest.mark.anyio
async def test_open_rebuilds_every_view_read_only(tmp_path):
    app = recorded()
    notices: list[tuple[str, str, str]] = []  # every notice as it is given: a toast is gone after 6 s, and on a
    notify = app.notify  # loaded machine the form below can take longer than that to be built

    def kept(message: str, *, title: str = "", severity: str = "information", **options: object) -> None:
        notices.append((title, message, severity))
        notify(message, title=title, severity=severity, **options)  # type: ignore[arg-type]

    app.notify = kept  # type: ignore[method-assign,assignment]
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        main = app.main
        assert main.status_bar.status.state == "read-only"
        assert main.composer.disabled
        assert main.facts.server_info["name"] == "mcp-inspector-demo"
        # the recording contains a list change: the last two tools/list results are compared
        assert main.tool_list.marks == {"weather_forecast": "added", "echo": "changed"}
        # and the notice says what it means, in the words of mcp-inspector diff
        title = "The tool list changed during the recording"
        await wait_for(pilot, lambda: any(n[0] == title for n in notices), what="the notice")
        ((_, message, severity),) = [n for n in notices if n[0] == title]
        assert (message, severity) == (
            "added weather_forecast; changed echo: description, inputSchema changed\n"
            "2 compatible, 1 cosmetic  (ctrl+g shows the diff)",
            "information",
        )
        # choosing a tool shows its last recorded result, and its recorded arguments in the form
        main.tool_list.select_name("add")
        await wait_for(
            pilot, lambda: main.composer.tool is not None and main.composer.tool["name"] == "add", what="add"
        )
        await wait_for(
            pilot,
            lambda: main.composer.schema_form is not None and main.composer.get_arguments() == {"a": 2, "b": 40},
            what="the recorded arguments",
        )
        for key, view_id in (
            ("2", "#view-overview"),
            ("3", "#view-notifications"),
            ("4", "#view-console"),
            ("5", "#view-traffic"),
        ):
            await pilot.press(key)
            await wait_for(
                pilot,
                lambda view_id=view_id: main.query_one(view_id).display and main.query_one(view_id).region.area > 0,
                what=view_id,
            )
        overview = rendered(capabilities_table(main.facts))
        assert "the server announces tool list changes" in overview
        await pilot.press("1")
        await pilot.press("ctrl+s")  # sending from a recording is refused with a message, not a crash
        await wait_for(
            pilot, lambda: any("read-only" in str(n.message) for n in shown_notifications(app)), what="the note"
        )
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolDiffScreen), what="the diff")
    assert not (tmp_path / "state" / "mcp-inspector" / "drafts.json").exists()  # a recording saves no drafts


@pytest.mark.anyio
async def test_open_a_file_that_is_not_a_session(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello\n")
    app = make_app(open_file=str(bad), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.status_bar.status.state == "failed", what="the error")
        assert "not an mcp-inspector session file" in app.main.status_bar.status.detail


@pytest.mark.anyio
async def test_keymap_from_config_remaps_bindings_by_id():
    app = recorded(config=TuiConfig(keymap={"view-overview": "f9", "help": "f10"}))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("f9")
        await wait_for(pilot, lambda: app.main.current_view == "overview", what="the overview")
        await pilot.press("f10")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        # the help screen shows the remapped keys
        keys = rendered(bindings_table(app.keymap))
        assert "f9" in keys and "f10" in keys


@pytest.mark.anyio
async def test_every_bound_action_is_in_the_command_palette():
    from mcp_inspector.tui.commands import InspectorCommands
    from mcp_inspector.tui.keymap import APP_KEYS

    app = recorded()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        provider = InspectorCommands(app.screen)
        titles = [title for title, _, _ in provider._commands()]
        for spec in APP_KEYS:
            assert f"{spec.group.lower()}: {spec.description}" in titles
        assert "theme: inspector-light" in titles
        # widget actions too: sending, cancelling, saving results, traffic copy/export
        for title in (
            "request: send the composer's request",
            "request: cancel the newest call in flight",
            "result: save the whole result to a file",
            "traffic: export the session (JSONL)",
        ):
            assert title in titles
        callback = dict((t, c) for t, c, _ in provider._commands())["theme: inspector-light"]
        callback()
        await wait_for(pilot, lambda: app.theme == "inspector-light", what="the light theme")
        await pilot.pause()
        # the app's own colours follow the theme
        assert app.theme_variables["tool-added"] == "#008700"


@pytest.mark.anyio
async def test_user_theme_file_and_config_theme(tmp_path):
    themes = tmp_path / "config" / "mcp-inspector" / "themes"
    themes.mkdir(parents=True)
    (themes / "solar.json").write_text(
        json.dumps({"name": "solar", "primary": "#b58900", "variables": {"traffic-in": "#859900"}})
    )
    (themes / "broken.toml").write_text("not toml = = =")
    app = recorded(config=TuiConfig(theme="solar"))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.theme == "solar"
        assert app.theme_variables["traffic-in"] == "#859900"
        assert app.theme_variables["tool-removed"]  # defaults fill what the file leaves out
        assert any("broken.toml" in str(n.message) for n in shown_notifications(app))


@pytest.mark.anyio
async def test_connect_screen_lists_configured_servers_and_takes_a_command_line(tmp_path):
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"files": {"command": "npx", "args": ["-y", "files-server"]}}})
    )
    app = recorded()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("f7")
        await wait_for(pilot, lambda: isinstance(app.screen, ConnectScreen), what="the connect screen")
        screen = app.screen
        await wait_for(pilot, lambda: len(screen.specs) == 2, what="the discovered servers")
        names = sorted(spec.name for spec in screen.specs.values())
        assert names == ["demo", "files"]
        chosen = []
        screen.dismiss = chosen.append  # see what would be chosen without switching the recording
        screen.query_one("#connect-command", Input).focus()
        await pilot.press(*"python -m my_server --flag")
        await pilot.press("enter")
        assert chosen[0].command == ["python", "-m", "my_server", "--flag"]


@pytest.mark.anyio
async def test_copy_commands_use_the_clipboard():
    app = recorded()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.main.tool_list.select_name("add")
        await wait_for(pilot, lambda: app.main.current_tool["name"] == "add", what="the selection")
        await settle(app)
        commands = {title: callback for title, callback, _ in app.extra_commands()}
        commands["copy: selected tool definition (JSON)"]()
        assert json.loads(app.clipboard)["name"] == "add"


@pytest.mark.anyio
async def test_the_view_bar_is_clickable():
    app = recorded()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.click("#nav", offset=(11, 0))  # " 2 Info"
        await wait_for(pilot, lambda: app.main.current_view == "overview", what="the click")


@pytest.mark.anyio
async def test_slash_focuses_the_tool_filter_and_snapshot_mode_stops_blinking():
    app = recorded(snapshot_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("2")
        await pilot.press("slash")
        await wait_for(pilot, lambda: app.focused is app.main.tool_list.filter_input, what="the filter focused")
        assert app.main.current_view == "main"
        assert app.focused.cursor_blink is False


@pytest.mark.anyio
async def test_copy_as_cli_command_works_on_a_recording():
    from mcp_inspector.tui.widgets.views.traffic.log import TrafficLog

    app = recorded()
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        log = app.main.query_one("#live-traffic", TrafficLog)
        call = next(e for e in app.store if e.method == "tools/call" and b'"add"' in e.raw)
        assert log.move_cursor_to_seq(call.seq)
        log.action_copy_cli()
        assert app.clipboard.startswith("mcp-inspector call add")
        assert app.clipboard.endswith("-- python -m mcp_inspector.demo -v")
        assert "--config" not in app.clipboard


@pytest.mark.anyio
async def test_open_a_crafted_recording_skips_bad_lines_and_says_which(tmp_path):
    lines = DEMO_SESSION.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    crafted = lines + [
        '"an entry that is a JSON string"',
        json.dumps({**last, "seq": last["seq"] + 1, "raw": 5}),  # a field of the wrong type
        '{"seq": 1, "meta": ' + "[" * 3000 + "]" * 3000 + "}",  # nesting json.loads cannot take
        json.dumps({**last, "seq": 10**12}),  # the old loader made a placeholder per missing seq
    ]
    path = tmp_path / "crafted.jsonl"
    path.write_text("\n".join(crafted) + "\n", encoding="utf-8")
    app = make_app(open_file=str(path), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.status_bar.status.state in ("read-only", "failed"), what="the load")
        status = app.main.status_bar.status
        assert status.state == "read-only" and "3 unreadable lines skipped" in status.detail
        first_bad = len(lines) + 1
        said = [str(n.message) for n in shown_notifications(app)]
        assert any(
            f"lines {first_bad}, {first_bad + 1}, {first_bad + 2})" in text and "not an object" in text for text in said
        )
        # every good entry and the places of the three skipped lines: nothing made up for the seq jump
        assert app.store.total == len(lines) - 1 + 3 + 1
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), what="the tools")
        await settle(app)


@pytest.mark.anyio
async def test_open_a_recording_larger_than_memory_copies_nothing_and_leaves_nothing(tmp_path):
    from mcp_inspector.core.traffic.store import TrafficStore
    from mcp_inspector.tui.app import InspectorApp

    store = TrafficStore(cap=10, spill_dir=tmp_path / "spill")
    app = InspectorApp(None, open_file=str(DEMO_SESSION), config=TuiConfig(), store=store)
    first = json.loads(DEMO_SESSION.read_text(encoding="utf-8").splitlines()[1])
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        total = len(DEMO_SESSION.read_text(encoding="utf-8").splitlines()) - 1
        assert app.store.total == total and len(app.store) <= 11
        assert app.main.facts.server_info["name"] == "mcp-inspector-demo"  # from an entry that left memory
        assert app.main.tool_list.marks == {"weather_forecast": "added", "echo": "changed"}
        assert not (tmp_path / "spill").exists()  # the old loader copied the evicted entries to a spill file
        assert app.store.fetch(1).raw == first["raw"].encode()  # read back from the opened file
    assert not (tmp_path / "spill").exists() and DEMO_SESSION.exists()


TOKEN = "s3cret-bearer-of-the-tui-test-0123456789"


@pytest.fixture
def http_recording(tmp_path, sdk_http_stateful_url):
    """A session with a remote server recorded by the CLI's runner: (the file, the live HttpLog)."""
    from mcp_inspector.cli.runner import RunOptions, run
    from mcp_inspector.core.config.servers import ServerSpec

    path = tmp_path / "remote.jsonl"
    stores = []

    async def body(session, context) -> int:
        await session.list_tools()
        await session.call_tool("echo", {"text": "over http"})
        return 0

    spec = ServerSpec(name="remote", url=sdk_http_stateful_url, transport="streamable-http", era="legacy", no_auth=True)
    spec.headers = {"Authorization": f"Bearer {TOKEN}"}
    assert run(spec, RunOptions(record=str(path), quiet=True, on_store=stores.append), body) == 0
    return path, stores[0].http_log


@pytest.mark.anyio
async def test_the_http_view_of_an_opened_recording_shows_its_exchanges(http_recording):
    """Issue 24: a recording of a remote server opens with the HTTP view it had live."""
    from traffic_apps import screen_text

    path, live = http_recording
    app = make_app(open_file=str(path), config=TuiConfig())
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        await wait_for(pilot, lambda: main.replay is not None, what="the recording")
        await pilot.press("f9")  # the HTTP view
        view = main.query_one("#view-http")
        await wait_for(pilot, lambda: view.exchange_list.row_count == len(live.exchanges), what="the HTTP view")
        log = main.store.http_log
        assert [(e.id, e.method, e.status, e.rpc_method, e.frame_seqs) for e in log.exchanges] == [
            (e.id, e.method, e.status, e.rpc_method, e.frame_seqs) for e in live.exchanges
        ]
        text = screen_text(app)
        assert TOKEN not in text
        row = next(line for line in text.splitlines() if "tools/call" in line and " POST " in line)
        assert "200" in row and "echo" in row and "done" in row
        assert any(" GET " in line and "stream" in line for line in text.splitlines())
        call = next(e for e in log.exchanges if e.rpc_method == "tools/call")
        assert main.store.exchange_of(main.store.get(call.sent_seq)) == call.id  # the frame finds its exchange
