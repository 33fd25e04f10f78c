"""ResultPanel and InFlightPanel against real results from the demo server over a real
McpSession, plus a 50 MB result that must not freeze the UI (its speed: bench/bench_result_view.py)."""

from __future__ import annotations

import base64
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import demo_server_command
from textual.app import App, ComposeResult
from textual.widgets import ProgressBar, Static, TextArea

from mcp_inspector.core.base.errors import ConnectionLost, RequestCancelled, RequestTimeout, RpcError
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.session.mcp_session import McpSession, ToolCallOutcome
from mcp_inspector.core.session.results import analyze_tool_result
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.transport.stdio import StdioTransport
from mcp_inspector.tui.look.theme_vars import THEME_VARIABLE_DEFAULTS
from mcp_inspector.tui.pilot_steps import shown_notifications, wait_for
from mcp_inspector.tui.screens.opener import ScreenDialogs
from mcp_inspector.tui.widgets.inflight import InFlightPanel
from mcp_inspector.tui.widgets.result.media import MediaBlock
from mcp_inspector.tui.widgets.result.text_body import TRUNCATE_AT
from mcp_inspector.tui.widgets.result.view import ResultPanel

pytestmark = pytest.mark.anyio


class ResultApp(App):
    @property
    def dialogs(self) -> ScreenDialogs:  # the screens its widgets open (widgets/dialogs.py)
        return ScreenDialogs(self)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield InFlightPanel(linger=0.3)
        yield ResultPanel()


class KeyedResultApp(ResultApp):
    """Records a key, to see the event loop answer while a result is shown."""

    BINDINGS = [("z", "record('z')", "")]

    def __init__(self) -> None:
        super().__init__()
        self.keys: list[str] = []

    def action_record(self, key: str) -> None:
        self.keys.append(key)


async def settle(pilot, app) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def texts(panel) -> str:
    """Everything the panel shows, as plain text (Statics and TextAreas)."""
    parts = [str(w.render()) for w in panel.query(Static)]
    parts += [w.text for w in panel.query(TextArea)]
    return "\n".join(parts)


def demo_session() -> McpSession:
    return McpSession(StdioTransport(demo_server_command()), timeout=10)


async def test_every_content_type_from_the_demo(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # files made to open a block stay in the test's dir
    opened = tmp_path / "opened.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"  # a stand-in system viewer: records what it was asked to open
    opener.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    opener.chmod(opener.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")

    app = ResultApp()
    async with demo_session() as session:
        await session.initialize()
        await session.list_tools()
        outcome = await session.call_tool("all_content_types", {})
        async with app.run_test(size=(120, 80)) as pilot:
            panel = app.query_one(ResultPanel)
            panel.show_outcome(outcome)
            await settle(pilot, app)
            shown = texts(panel)
            assert panel.kind == "ok" and "7 content blocks" in panel.status_text
            assert "Plain text block: every MCP content type follows" in shown
            assert '"numbers": [\n    1,' in shown  # JSON text pretty-printed...
            assert 'annotations: audience=["assistant"], priority=0.3' in shown
            media = list(panel.query(MediaBlock))
            assert [m.info.type for m in media] == ["image", "audio", "resource"]
            assert "image · image/png" in shown and "audio · audio/wav" in shown
            assert "embedded blob · image/png" in shown and "uri: demo://" in shown
            assert "resource link" in shown and "uri: demo://" in shown and "mimeType: text/markdown" in shown
            assert "embedded resource" in shown and '"embedded": true' in shown

            # save the image with its key, and open the audio with the system viewer
            media[0].focus()
            await pilot.press("w", "enter")  # asks where (prefilled), enter saves
            await settle(pilot, app)
            image = outcome.result["content"][2]
            assert media[0].saved_path.parent == tmp_path and media[0].saved_path.suffix == ".png"
            assert media[0].saved_path.read_bytes() == base64.b64decode(image["data"])
            media[1].focus()
            await pilot.press("o")
            await settle(pilot, app)
            assert opened.read_text().strip().endswith(".wav")

            # s saves the whole result as JSON
            panel.focus()
            await pilot.press("s", "enter")
            await settle(pilot, app)
            assert json.loads(panel.saved_path.read_text()) == outcome.result
            assert any("Saved" in n.title for n in shown_notifications(app) if n.title)


async def test_tool_error_rpc_error_and_transport_failures_look_different():
    app = ResultApp()
    async with demo_session() as session:
        await session.initialize()
        await session.list_tools()
        async with app.run_test(size=(120, 40)) as pilot:
            panel = app.query_one(ResultPanel)

            outcome = await session.call_tool("failing_tool", {"reason": "disk full"})
            panel.show_outcome(outcome)
            await settle(pilot, app)
            assert panel.kind == "tool-error"
            assert panel.query_one("#result-status").has_class("tool-error")
            assert "the tool reported an error (isError: true)" in panel.status_text
            assert "disk full" in texts(panel)

            with pytest.raises(RpcError) as caught:
                await session.call_tool("no_such_tool", {})
            panel.show_error(caught.value, 12.0)
            await settle(pilot, app)
            assert panel.kind == "rpc-error" and panel.query_one("#result-status").has_class("rpc-error")
            assert "JSON-RPC error -32602 (Invalid params): Unknown tool: no_such_tool" in panel.status_text
            assert '"name": "no_such_tool"' in texts(panel)  # the error's data
            assert panel.payload["code"] == -32602

            pending = await session.begin_tool_call(
                "long_running_task", {"duration_seconds": 5, "steps": 5}, timeout=0.3
            )
            with pytest.raises(RequestTimeout) as timed_out:
                await session.finish_tool_call(pending)
            panel.show_error(timed_out.value, pending.elapsed * 1000)
            await settle(pilot, app)
            assert panel.kind == "transport" and panel.status_text.startswith("⏱ timed out")

            panel.show_error(RequestCancelled("tools/call", "cancelled by the user"))
            await settle(pilot, app)
            assert "cancelled" in panel.status_text and "notifications/cancelled was sent" in texts(panel)

            panel.show_error(ConnectionLost("the server exited", exit_code=3, stderr_tail=["Traceback", "boom"]))
            await settle(pilot, app)
            assert "connection lost" in panel.status_text and "exit code: 3" in texts(panel) and "boom" in texts(panel)

            panel.clear()
            await settle(pilot, app)
            assert panel.kind == "empty" and panel.payload is None


async def test_structured_content_validation_shown():
    app = ResultApp()
    async with demo_session() as session:
        await session.initialize()
        await session.list_tools()
        async with app.run_test(size=(120, 60)) as pilot:
            panel = app.query_one(ResultPanel)
            panel.show_outcome(await session.call_tool("weather_report", {"city": "Oslo"}))
            await settle(pilot, app)
            assert "✓ valid against outputSchema" in texts(panel) and '"city": "Oslo"' in texts(panel)

            panel.show_outcome(await session.call_tool("broken_structured_output", {}))
            await settle(pilot, app)
            shown = texts(panel)
            assert "✗ does not match the outputSchema (" in shown
            assert "'three' is not of type 'integer'" in shown


async def test_a_tool_error_without_structured_content_shows_no_structured_block():
    """An ``isError`` result of a tool with an ``outputSchema`` need not carry ``structuredContent``
    (raw_server.py ``structured`` + ``is-error``: ``weather`` answers isError, text "bad")."""
    raw = [sys.executable, str(Path(__file__).resolve().parent.parent / "servers" / "raw_server.py")]
    app = ResultApp()
    async with McpSession(StdioTransport([*raw, "--mode", "structured,is-error"]), timeout=10) as session:
        await session.initialize()
        assert any("outputSchema" in tool for tool in await session.list_tools())
        async with app.run_test(size=(120, 40)) as pilot:
            panel = app.query_one(ResultPanel)
            panel.show_outcome(await session.call_tool("weather", {"city": "Oslo"}))
            await settle(pilot, app)
            assert panel.kind == "tool-error" and "bad" in texts(panel)
            assert not panel.query(".structured")  # no empty bold "structuredContent" heading
            assert "structuredContent" not in texts(panel)


async def test_pending_then_in_flight_progress_and_cancel():
    app = ResultApp()
    async with demo_session() as session:
        await session.initialize()
        await session.list_tools()
        async with app.run_test(size=(120, 40)) as pilot:
            inflight = app.query_one(InFlightPanel)
            panel = app.query_one(ResultPanel)
            slow = await session.begin_tool_call(
                "long_running_task", {"duration_seconds": 20, "steps": 200}, timeout=5, reset_on_progress=True
            )
            # 2 s: at load 8 the settle below took longer than 0.6 s and the short call had gone already
            other = await session.begin_tool_call("long_running_task", {"duration_seconds": 2, "steps": 3})
            panel.show_pending(slow)
            slow_row = inflight.track(slow)
            other_row = inflight.track(other)
            await settle(pilot, app)
            assert "waiting for tools/call long_running_task" in panel.status_text
            assert len(inflight.rows) == 2

            await wait_for(pilot, lambda: slow.progress_count >= 3)
            bar = slow_row.query_one(ProgressBar)
            await wait_for(pilot, lambda: bar.total == 200 and bar.progress >= 3, what="the row's next tick")
            assert "step" in str(slow_row.query_one(".inflight-message").render())
            timing = str(slow_row.query_one(".inflight-timing").render())
            assert "times out in" in timing and "(resets on progress)" in timing
            left = float(timing.split("times out in")[1].split("s")[0])
            assert 4.0 < left <= 5.0  # progress keeps resetting the 5 s countdown

            # the short one finishes on its own, then goes away
            await session.finish_tool_call(other)
            await wait_for(pilot, lambda: other_row.has_class("finished-ok"))
            await wait_for(pilot, lambda: other_row not in inflight.rows)

            # cancel the long one with the key
            slow_row.focus()
            await pilot.press("c")
            await settle(pilot, app)
            assert slow.done and isinstance(slow.error, RequestCancelled)
            assert slow_row.has_class("finished-cancelled")
            cancels = [
                e
                for e in session.store
                if e.direction is Direction.OUT
                and e.kind is Kind.NOTIFICATION
                and e.method == "notifications/cancelled"
            ]
            assert len(cancels) == 1
            assert json.loads(cancels[0].raw)["params"] == {"requestId": slow.id, "reason": "cancelled by the user"}
            await wait_for(pilot, lambda: not inflight.rows)
            assert inflight.query_one("#inflight-empty").display


async def test_a_50_mb_result_is_truncated_and_does_not_block(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the pager's 55 MB file is not left in /tmp
    huge = "0123456789abcdef" * (50_000_000 // 16)
    result = {"content": [{"type": "text", "text": huge}], "structuredContent": {"blob": huge[:5_000_000], "n": 1}}
    outcome = ToolCallOutcome("huge", {}, result, analyze_tool_result(result, None), elapsed_ms=1234.0)
    app = KeyedResultApp()
    async with app.run_test(size=(120, 40)) as pilot:
        panel = app.query_one(ResultPanel)
        # Behaviour only (the figures are in bench/bench_result_view.py): the panel formats what
        # it shows, and the event loop answers a key as soon as the result is up.
        panel.show_outcome(outcome)
        await pilot.press("z")
        assert app.keys == ["z"]
        await settle(pilot, app)
        assert panel.truncated
        shown = texts(panel)
        assert (
            f"truncated — showing the first {TRUNCATE_AT // 1000} KB of 50,000,000 characters · s: save whole result "
            "· p: open in $PAGER" in shown
        )
        area = panel.query(TextArea).first()
        assert len(area.text.replace("\n", "")) == TRUNCATE_AT  # the first 100 KB, in display lines
        assert "lines longer than 1,000 characters are broken for display" in shown
        assert len(shown) < 5 * TRUNCATE_AT  # nothing close to 50 MB reached the widgets

        panel.focus()
        await pilot.press("s", "enter")
        await settle(pilot, app)
        assert panel.saved_path.stat().st_size > 55_000_000  # the whole result, not what is shown

        await pilot.press("p")  # headless: cannot suspend, so it says where the file is
        await settle(pilot, app)
        assert any("cannot be suspended" in n.message for n in shown_notifications(app))


async def test_files_named_from_a_hostile_tool_name_stay_in_their_directory(tmp_path, monkeypatch):
    # The pager's temporary file and the system viewer's were named from the tool name as sent:
    # "../../x" made mkstemp write outside the temporary directory.
    temp = tmp_path / "a" / "tmp"
    temp.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    opened = tmp_path / "opened.txt"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"
    opener.write_text(f'#!/bin/sh\necho "$1" >> {opened}\n')
    opener.chmod(opener.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 32).decode()
    result = {"content": [{"type": "text", "text": "hi"}, {"type": "audio", "data": png, "mimeType": "audio/wav"}]}
    name = "../../escaped/../../.hidden\u202e"
    outcome = ToolCallOutcome(name, {}, result, analyze_tool_result(result, None), elapsed_ms=1.0)
    app = ResultApp()
    async with app.run_test(size=(120, 40)) as pilot:
        panel = app.query_one(ResultPanel)
        panel.show_outcome(outcome)
        await settle(pilot, app)
        panel.focus()
        await pilot.press("p")  # headless: cannot suspend, so it says where the file is
        await settle(pilot, app)
        said = [n.message for n in shown_notifications(app) if "cannot be suspended" in n.message]
        assert said, [n.message for n in shown_notifications(app)]
        media = panel.query_one(MediaBlock)
        media.focus()
        await pilot.press("o")
        await wait_for(pilot, opened.exists)
    paged = said[0].rsplit(" is in ", 1)[1]
    viewed = opened.read_text().strip()
    for made in (paged, viewed):
        assert os.path.dirname(made) == str(temp), made
        assert os.path.basename(made).startswith("mcp-result-.._.._escaped_"), made
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == sorted(
        [os.path.basename(paged), os.path.basename(viewed), "opened.txt", "xdg-open"]
    )


async def test_images_in_a_result_are_drawn_where_the_terminal_draws_images(monkeypatch):
    """MCP_INSPECTOR_IMAGES=halfcell (a test has no terminal to ask): the demo's image block and
    its embedded image blob are drawn above nothing lost (save/open stay); an image over
    DRAW_MAX_BYTES (a 50 MB one) is only said, never decoded; without a protocol nothing is drawn."""
    from textual_image.widget import HalfcellImage

    from mcp_inspector.tui import images

    monkeypatch.setenv("MCP_INSPECTOR_IMAGES", "halfcell")
    monkeypatch.setattr(images, "_prepared", False)
    monkeypatch.setattr(images, "_kind", None)
    app = ResultApp()
    async with demo_session() as session:
        await session.initialize()
        await session.list_tools()
        outcome = await session.call_tool("all_content_types", {})
    async with app.run_test(size=(120, 80)) as pilot:
        panel = app.query_one(ResultPanel)
        panel.show_outcome(outcome)
        await settle(pilot, app)
        media = list(panel.query(MediaBlock))
        drawn = [m for m in media if m.query(HalfcellImage)]
        assert [m.info.type for m in drawn] == ["image", "resource"]  # not the audio
        picture = drawn[0].query_one(HalfcellImage)
        await wait_for(pilot, lambda: picture.size.height > 0)
        assert 0 < picture.size.height <= images.MAX_ROWS
        assert drawn[0].query(".save-block") and drawn[0].query(".open-block")

        big = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(50_000_000)).decode()
        result = {
            "content": [
                {"type": "image", "mimeType": "image/png", "data": big},
                {"type": "image", "mimeType": "image/png", "data": base64.b64encode(b"no png").decode()},
            ]
        }
        panel.show_outcome(ToolCallOutcome("big", {}, result, analyze_tool_result(result, None), elapsed_ms=1.0))
        await settle(pilot, app)
        assert not panel.query(HalfcellImage)
        shown = texts(panel)
        assert f"not drawn: over {images.DRAW_MAX_BYTES >> 20} MB" in shown
        assert "not drawn: the image cannot be decoded" in shown
        assert len(panel.query(".save-block")) == 2

    monkeypatch.setattr(images, "_kind", None)  # a terminal without a protocol: size and save only
    monkeypatch.setattr(images, "_prepared", True)
    app = ResultApp()
    async with app.run_test(size=(120, 80)) as pilot:
        panel = app.query_one(ResultPanel)
        panel.show_outcome(outcome)
        await settle(pilot, app)
        assert not panel.query(HalfcellImage) and "not drawn" not in texts(panel)
        assert "image · image/png" in texts(panel)
