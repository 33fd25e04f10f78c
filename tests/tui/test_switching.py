"""F7 to another server, by keys alone: the composer never keeps the previous server's tool, the
new server's tools are not compared with the old server's, the working server keeps running until
the new one has answered its handshake, and a switch that fails leaves it as it was."""

from __future__ import annotations

import json
import sys

import pytest
from app_helpers import SIZE, choose_tool, collect_calls, live_app, outgoing, wait_for, wait_for_tools
from conftest import raw_server_command, sdk_server_command

from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.connect import ConnectScreen

DEMO_ONLY = "ask_the_client"


@pytest.fixture(autouse=True)
def servers_json(isolated_state, tmp_path):
    """Our own config file (XDG_CONFIG_HOME/mcp-inspector/servers.json): the sdk server and one that cannot start."""
    sdk, broken = sdk_server_command(), raw_server_command("exit-on-start")
    asker = raw_server_command("ask-on-start")
    config = tmp_path / "config" / "mcp-inspector" / "servers.json"
    config.parent.mkdir(parents=True)
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "sdk": {"command": sdk[0], "args": sdk[1:]},
                    "broken": {"command": broken[0], "args": broken[1:]},
                    "asker": {"command": asker[0], "args": asker[1:]},
                }
            }
        )
    )
    return config


async def f7_choose(pilot, app, name: str) -> None:
    """F7, then down to the server called ``name`` and enter (the keyboard only)."""
    await pilot.press("f7")
    await wait_for(pilot, lambda: isinstance(app.screen, ConnectScreen), what="the connect screen")
    screen = app.screen
    await wait_for(pilot, lambda: any(spec.name == name for spec in screen.specs.values()), what=f"{name} in the list")
    options = screen.query_one("#connect-servers")
    if app.focused is not options:
        await pilot.press("tab")
    await wait_for(pilot, lambda: app.focused is options, what="the server list focused")
    target = next(i for i, spec in enumerate(screen.specs.values()) if spec.name == name)
    while options.highlighted != target:
        await pilot.press("down" if (options.highlighted or 0) < target else "up")
    await pilot.press("enter")
    await wait_for(pilot, lambda: not isinstance(app.screen, ConnectScreen), what="the connect screen closed")


def tool_names(app) -> set[str]:
    return {t["name"] for t in app.main.tool_list.tools}


def server_of(app) -> str:
    spec = app.main.connection.spec
    return spec.name if spec is not None else ""


@pytest.mark.anyio
async def test_switch_demo_sdk_demo_by_keys_keeps_each_servers_composer():
    app = live_app()
    calls: list = []
    async with app.run_test(size=SIZE, message_hook=collect_calls(calls)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, DEMO_ONLY)
        await main.composer.set_arguments({"kind": "roots"})
        demo_pid = main.status_bar.status.pid
        demo_names = tool_names(app)

        await f7_choose(pilot, app, "sdk")
        # until the sdk server answers, the demo stays connected and the bar says what it waits for
        assert server_of(app) != "demo" or "switching to sdk" in str(main.status_bar.render())
        await wait_for(
            pilot,
            lambda: (
                server_of(app) == "sdk" and main.status_bar.status.state == "connected" and "greet" in tool_names(app)
            ),
            what="the sdk server's tools",
        )
        # the composer holds one of this server's tools, never the demo's
        await wait_for(pilot, lambda: main.composer.tool is not None, what="a tool of the sdk server")
        assert main.composer.tool["name"] in tool_names(app) and main.composer.tool["name"] != DEMO_ONLY
        assert main.current_tool["name"] != DEMO_ONLY
        # the sdk server's list is its own baseline: nothing added or removed "since the demo"
        assert main.tool_list.marks == {} and main.tool_list.removed == []
        assert "connected to sdk" in str(main.status_bar.render())
        # the demo server ran until the sdk server had answered its handshake
        sdk_init = [
            e for e in app.store if e.direction is Direction.IN and e.msg_id is not None and b'"sdk-fixture"' in e.raw
        ]
        await wait_for(
            pilot,
            lambda: any(e.text.startswith("the server exited") for e in app.store if e.direction is Direction.LOCAL),
            what="the demo server closed",
        )
        demo_closed = [
            e for e in app.store if e.direction is Direction.LOCAL and e.text.startswith("the server exited")
        ]
        assert sdk_init, "the sdk server's initialize result"
        assert demo_closed[0].seq > sdk_init[0].seq
        # ctrl+s sends an sdk tool to the sdk server
        await choose_tool(pilot, app, "add")
        await main.composer.set_arguments({"a": 2, "b": 3})
        before = len(calls)
        await pilot.press("escape")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(calls) > before, what="the call")
        assert isinstance(calls[-1], CallFinished) and not calls[-1].outcome.is_error
        assert all(json.loads(e.raw)["params"]["name"] != DEMO_ONLY for e in outgoing(app, "tools/call"))

        await f7_choose(pilot, app, "demo")
        await wait_for(
            pilot,
            lambda: (
                server_of(app) == "demo"
                and main.status_bar.status.state == "connected"
                and tool_names(app) == demo_names
            ),
            what="the demo's tools again",
        )
        # back on the demo: its tool and its arguments are where they were
        await wait_for(
            pilot, lambda: (main.composer.tool or {}).get("name") == DEMO_ONLY, what="the demo's tool restored"
        )
        await wait_for(pilot, lambda: main.composer.schema_form is not None, what="its form")
        assert main.composer.get_arguments().get("kind") == "roots"
        assert main.tool_list.marks == {} and main.tool_list.removed == []
        assert main.status_bar.status.pid not in (demo_pid, None)  # a new demo process


@pytest.mark.anyio
async def test_a_switch_that_fails_leaves_the_working_server_usable():
    app = live_app()
    calls: list = []
    async with app.run_test(size=SIZE, message_hook=collect_calls(calls)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "add")
        await main.composer.set_arguments({"a": 2, "b": 3})
        pid = main.status_bar.status.pid
        names = tool_names(app)

        await f7_choose(pilot, app, "broken")
        await wait_for(
            pilot,
            lambda: any("switch to broken failed" in e.text for e in app.store if e.direction is Direction.LOCAL),
            what="the failed switch",
        )
        # it said why (the server's stderr), and that the demo is still there
        shown = [n for n in shown_notifications(app) if "Could not switch to broken" in (n.title or "")]
        assert shown and "missing API_KEY" in shown[-1].message and "Still connected to demo" in shown[-1].message
        status = main.status_bar.status
        assert status.state == "connected" and status.pid == pid and server_of(app) == "demo"
        assert "switching to" not in str(main.status_bar.render())
        assert tool_names(app) == names and main.current_tool["name"] == "add"
        # and a call still works, on the same server
        before = len(calls)
        await pilot.press("escape")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(calls) > before, what="the call")
        assert isinstance(calls[-1], CallFinished) and not calls[-1].outcome.is_error
        assert main.status_bar.status.pid == pid


@pytest.mark.anyio
async def test_status_bar_names_a_command_line_server_by_its_server_info():
    from mcp_inspector.core.config.servers import ServerSpec

    spec = ServerSpec("python3", [sys.executable, "-m", "mcp_inspector.demo"], source="command line")
    app = live_app(spec)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await wait_for(
            pilot, lambda: "MCP Inspector Demo" in str(app.main.status_bar.render()), what="the server's name"
        )
        line = str(app.main.status_bar.render())
        assert "connected to MCP Inspector Demo" in line and "python3" not in line


@pytest.mark.anyio
async def test_a_request_from_the_server_switched_to_names_it_over_the_old_servers_screen():
    """The new server asks during its start (the switch still waits): the modal says who asks."""
    from mcp_inspector.core.base.jsonrpc import Kind
    from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await f7_choose(pilot, app, "asker")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the asker's elicitation")
        screen = app.screen
        assert server_of(app) == "demo" and "switching to asker" in str(main.status_bar.render())
        assert (screen.origin, screen.origin_hidden) == ("asker", True)
        said = str(screen.query_one("#request-server").render())
        assert said == "From asker: the server being switched to, not the one on screen behind this"
        await wait_for(pilot, lambda: app.focused is not None and app.focused.screen is screen, what="the form focused")
        await pilot.press(*"Ada", "ctrl+s")
        await wait_for(pilot, lambda: server_of(app) == "asker" and "echo" in tool_names(app), what="the switch done")
        asked = next(e for e in app.store if e.direction is Direction.IN and e.method == "elicitation/create")
        reply = app.store.get(asked.reply_seq)
        assert reply.kind is Kind.RESPONSE and json.loads(reply.raw)["result"] == {
            "action": "accept",
            "content": {"name": "Ada"},
        }


@pytest.mark.anyio
async def test_the_server_on_screen_is_named_too():
    from mcp_inspector.tui.screens.answer.server_request import ServerRequestScreen

    app = live_app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, DEMO_ONLY)
        await app.main.composer.set_arguments({"kind": "elicitation"})
        app.main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ServerRequestScreen), what="the demo's elicitation")
        assert (app.screen.origin, app.screen.origin_hidden) == ("demo", False)
        assert str(app.screen.query_one("#request-server").render()) == "From demo"
        await pilot.press("escape")


@pytest.mark.anyio
async def test_the_tool_filter_and_the_composer_status_stay_with_their_server():
    """A filter typed for the demo's tools does not hide the next server's; "sent" is not carried over."""
    app = live_app()
    async with app.run_test(size=(80, 24)) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await choose_tool(pilot, app, "echo")
        await main.composer.set_arguments({"message": "hi"})
        main.tool_list.option_list.focus()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "sent" in str(main.composer._status_label.render()), what="sent")
        await pilot.press("slash", *"ech")
        assert main.tool_list.filter_input.value == "ech"

        await f7_choose(pilot, app, "sdk")
        await wait_for(pilot, lambda: server_of(app) == "sdk" and "greet" in tool_names(app), what="the sdk's tools")
        await wait_for(pilot, lambda: main.tool_list.option_list.option_count >= 2, what="the sdk's tools shown")
        assert main.tool_list.filter_input.value == ""
        # the composer is set for the new server after its tools arrive (a worker): wait for it
        await wait_for(
            pilot, lambda: "sent" not in str(main.composer._status_label.render()), what="the status cleared"
        )

        await f7_choose(pilot, app, "demo")
        await wait_for(pilot, lambda: server_of(app) == "demo" and "echo" in tool_names(app), what="the demo again")
        assert main.tool_list.filter_input.value == "ech"
