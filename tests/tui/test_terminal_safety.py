"""A server's text cannot drive the terminal through the TUI: an ESC in its name (OSC 0 retitles
the window), a description (OSC 52 writes the clipboard) or a result never reaches the output;
what Textual writes is filtered by ``ControlCharacters`` last."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from app_helpers import live_app
from rich.segment import Segment
from textual.color import Color
from textual.geometry import Region

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.pilot_steps import wait_for
from mcp_inspector.tui.text.control_filter import ControlCharacters
from mcp_inspector.tui.widgets.status_bar import StatusBar
from mcp_inspector.tui.widgets.tool_list import ToolList

pytestmark = pytest.mark.anyio
SERVER = ServerSpec(
    "escapes",
    [sys.executable, str(Path(__file__).resolve().parents[1] / "servers" / "escapes_server.py")],
    source="command line",
)  # named by its serverInfo, as from the command line


def test_the_filter_removes_control_characters_and_keeps_the_rest():
    segments = [Segment("esc\x1b]0;PWNED\x07 · stdio"), Segment("plain"), Segment("x\x9b2J\x7f")]
    out = ControlCharacters().apply(segments, Color(0, 0, 0))
    assert [s.text for s in out] == ["esc]0;PWNED · stdio", "plain", "x2J"]
    clean = [Segment("nothing to do")]
    assert ControlCharacters().apply(clean, Color(0, 0, 0)) is clean


def rendered(widget) -> str:
    """The widget's lines as the compositor takes them (styles, borders and the app's line filters applied)."""
    strips = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def test_a_server_name_and_tool_description_with_escapes_reach_the_screen_without_them():
    app = live_app(SERVER)
    async with app.run_test(size=(120, 30)) as pilot:
        status = app.query_one(StatusBar)
        await wait_for(pilot, lambda: "PWNED" in rendered(status), what="the server's name in the status bar")
        assert "\x1b" not in rendered(status) and "\x07" not in rendered(status)
        tools = app.query_one(ToolList)
        await wait_for(pilot, lambda: bool(tools.tools), what="the tool list")
        assert not any(ch in rendered(tools) for ch in "\x1b\x07\x9b")


def test_the_terminal_is_not_asked_for_an_image_protocol_inside_tmux_or_screen():
    from mcp_inspector.tui.images import inside_multiplexer

    assert inside_multiplexer({"TMUX": "/tmp/tmux-0/default,1,0", "TERM": "xterm-256color"})
    assert inside_multiplexer({"STY": "1234.pts-0.host"})
    assert inside_multiplexer({"TERM": "screen-256color"})
    assert not inside_multiplexer({"TERM": "xterm-kitty"})


def test_an_image_of_too_many_pixels_is_not_decoded(monkeypatch):
    """A 4 MB PNG can hold 100 megapixels: the header's size is read, the pixels never decoded."""
    import io

    from PIL import Image

    from mcp_inspector.tui import images

    monkeypatch.setattr(images, "_prepared", True)
    monkeypatch.setattr(images, "_kind", "halfcell")
    buffer = io.BytesIO()
    Image.new("1", (5000, 4000)).save(buffer, format="PNG")  # 20 megapixels in a few kB
    data = buffer.getvalue()
    assert len(data) < images.DRAW_MAX_BYTES
    loaded = []
    monkeypatch.setattr(Image.Image, "load", lambda self: loaded.append(self) or None)
    widget, why_not = images.image_widget(data)
    assert widget is None and "5,000×4,000 pixels" in why_not and not loaded
    small = io.BytesIO()
    Image.new("RGB", (40, 20), "red").save(small, format="PNG")
    monkeypatch.undo()
    monkeypatch.setattr(images, "_prepared", True)
    monkeypatch.setattr(images, "_kind", "halfcell")
    widget, why_not = images.image_widget(small.getvalue())
    assert widget is not None and why_not is None
