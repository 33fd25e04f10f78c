"""Watch and restart in the TUI: a real server file edited on disk restarts the server; the tool
list marks what the edit changed (ctrl+g diff), the traffic log, the result and the drafts are
kept; a broken file shows its stderr and keeps the tools; the next save recovers; re-run sends
the last call again; ctrl+b turns watching off."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, choose_tool, live_app, outgoing, wait_for, wait_for_tools
from textual.notifications import Notify
from textual.widgets import Input
from watch_helpers import add_tool, break_file, fix_file, server_command, set_description, watched_copy

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.pilot_steps import shown_notifications
from mcp_inspector.tui.screens.dialogs.tool_diff import ToolDiffScreen

pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("isolated_state")]
WAIT = 60  # seconds: each restart starts an SDK server (1-2 s on a busy machine)


def tool_names(main) -> list[str]:
    return [t["name"] for t in main.tool_list.tools]


async def test_an_edit_restarts_the_server_and_the_tool_list_shows_what_it_changed(tmp_path):
    script = watched_copy(tmp_path)
    finished: list[CallFinished] = []
    titles: list[str] = []  # every notification (shown_notifications(app) drops them when they time out)
    app = live_app(ServerSpec("watched", server_command(script), source="test"), watch=[""], cwd=str(tmp_path))

    def hook(message) -> None:
        if isinstance(message, CallFinished):
            finished.append(message)
        elif isinstance(message, Notify):
            titles.append(str(message.notification.title))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        await wait_for(pilot, lambda: main.file_watch.listening, what="the watcher")
        assert main.file_watch.paths == [str(script.parent)]
        assert main.status_bar.watching_text == "watching 1 path"
        assert "⟳ watching 1 path" in str(main.status_bar.render())

        # a call, whose result and draft survive the restarts
        await choose_tool(pilot, app, "echo")
        field = main.composer.query(Input).first()
        field.focus()
        await pilot.press(*"hi there")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: len(finished) == 1, what="the call", timeout=WAIT)
        assert main.file_watch.last_call is not None and main.file_watch.last_call.arguments == {"text": "hi there"}
        first_seq = app.store.first_seq

        add_tool(script, "shout", "Shout the text")
        await wait_for(
            pilot,
            lambda: main.file_watch.restarts == 1 and "shout" in tool_names(main),
            what="the restart",
            timeout=WAIT,
        )
        assert main.tool_list.marks == {"shout": "added"}
        assert main.status_bar.watching_text.startswith("restarted after edit of server.py (")
        await wait_for(
            pilot, lambda: "Tool list changed after the edit of server.py" in titles, what="the notification"
        )
        # the log is kept, with the restart as a marker line
        assert app.store.first_seq == first_seq and len(outgoing(app, "tools/list")) >= 2
        assert any(
            "restart after edit of server.py" in entry.text for entry in app.store if entry.kind.value == "event"
        )
        assert main.composer.tool["name"] == "echo" and main.composer.get_arguments() == {"text": "hi there"}
        assert main.result_panel.status_text.startswith("✓ echo")

        # a changed description; re-run on: the last call goes again once the tools are listed
        main.file_watch.toggle_rerun()
        set_description(script, "Echo the text", "Echo the text back")
        await wait_for(
            pilot,
            lambda: main.file_watch.restarts == 2 and len(finished) == 2,
            what="the restart and the re-run",
            timeout=WAIT,
        )
        assert main.tool_list.marks == {"echo": "changed"}
        assert main.tool_list.changes["echo"].fields == ["description"]
        assert finished[-1].outcome.name == "echo" and "hi there" in str(finished[-1].outcome.result)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: isinstance(app.screen, ToolDiffScreen), what="the diff")
        assert "+Echo the text back" in str(app.screen.query_one("#diff-body").render())
        await pilot.press("escape")

        # a syntax error: the server fails to start, its stderr is shown, the tools stay
        break_file(script)
        await wait_for(pilot, lambda: main.status_bar.status.state == "failed", what="the failed start", timeout=WAIT)
        # its stderr is in the console view (and in the status bar's tail when the exit status came first)
        await wait_for(
            pilot,
            lambda: any("SyntaxError" in e.text for e in app.store if e.kind.value == "stderr"),
            what="the stderr",
        )
        assert main.status_bar.server_name == "watched"  # still named as it named itself
        assert tool_names(main) == ["echo", "shout"] and main.result_panel.status_text.startswith("✓ echo")
        await wait_for(pilot, lambda: "failed to start" in main.status_bar.watching_text, what="the note")
        assert main.status_bar.watching_text == "server.py: the server failed to start; the next save tries again"

        # the next save recovers, compared with the last tools listed
        fix_file(script)
        await wait_for(
            pilot,
            lambda: main.file_watch.restarts == 3 and main.status_bar.status.state == "connected",
            what="the recovery",
            timeout=WAIT,
        )
        assert tool_names(main) == ["echo", "shout"] and main.tool_list.marks == {}

        # ctrl+b: watching off
        await pilot.press("ctrl+b")
        assert not main.file_watch.watching and main.status_bar.watching_text == ""
        await wait_for(pilot, lambda: "Watch off" in titles, what="the Watch off notification")


async def test_watching_a_server_whose_files_cannot_be_told_says_so(tmp_path):
    app = live_app(ServerSpec("bin", ["npx", "-y", "some-server"], source="test"))
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        await pilot.press("ctrl+b")
        await wait_for(
            pilot, lambda: any(str(n.title) == "Cannot watch" for n in shown_notifications(app)), what="the error"
        )
        message = [str(n.message) for n in shown_notifications(app) if str(n.title) == "Cannot watch"][0]
        assert "--watch PATH" in message and not main.file_watch.watching


async def test_the_palette_turns_watching_and_rerun_on_and_off(tmp_path):
    from mcp_inspector.tui.commands import InspectorCommands

    script = watched_copy(tmp_path)
    app = live_app(ServerSpec("watched", server_command(script), source="test"), cwd=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        await wait_for_tools(pilot, app)
        assert not main.file_watch.watching and main.status_bar.watching_text == ""
        commands = {title: callback for title, callback, _ in InspectorCommands(app.screen)._commands()}
        await commands["watch: Restart the server when its files change (on/off)"]()  # app.run_action
        await wait_for(pilot, lambda: main.file_watch.watching, what="watching on")
        assert main.file_watch.paths == [str(script.parent)]  # inferred from the command: python srv/server.py
        assert main.status_bar.watching_text == "watching 1 path"
        assert not main.file_watch.rerun
        commands["watch: re-run the last call after a restart (on/off)"]()
        assert main.file_watch.rerun
