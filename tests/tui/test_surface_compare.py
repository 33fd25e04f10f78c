"""ctrl+w / palette "surface: compare with a snapshot…": the demo server (a real subprocess)
against a snapshot the real ``snapshot`` command wrote, then edited as if the server had since
lost a tool and made an argument required; by keys alone, at 80x24 (the modal fits)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from app_helpers import live_app, wait_for, wait_for_tools
from textual.containers import VerticalScroll

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.pilot_steps import palette_pick, shown_notifications
from mcp_inspector.tui.screens.dialogs.surface_compare import SnapshotPathScreen, SurfaceDiffScreen

SMALL = (80, 24)

pytestmark = [pytest.mark.usefixtures("isolated_cwd")]


def snapshot_of_the_demo(path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_inspector",
            "snapshot",
            "-o",
            str(path),
            "--",
            sys.executable,
            "-m",
            "mcp_inspector.demo",
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


def older_version(path: Path) -> None:
    """The snapshot as an older server would have had it: a tool ``retired`` the demo lacks and
    ``add``'s ``b`` optional (the demo requires it now)."""
    document = json.loads(path.read_text())
    add = next(tool for tool in document["tools"] if tool["name"] == "add")
    assert add["inputSchema"]["required"] == ["a", "b"]
    add["inputSchema"]["required"] = ["a"]
    document["tools"].append({"name": "retired", "inputSchema": {"type": "object"}})
    path.write_text(json.dumps(document))


async def type_path(pilot, name: str) -> None:
    """The prompt offers the output folder (the test's cwd) + "/": the name is typed after it."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, SnapshotPathScreen), what="the path prompt")
    await pilot.press(*name, "enter")


@pytest.mark.anyio
async def test_compare_with_an_edited_snapshot_marks_the_breaking_changes(tmp_path):
    snapshot = tmp_path / "o"  # short names: each letter is a key press
    snapshot_of_the_demo(snapshot)
    older_version(snapshot)
    (tmp_path / "n").write_text("not a snapshot\n")
    app = live_app()
    async with app.run_test(size=SMALL) as pilot:
        await wait_for_tools(pilot, app)

        # a file that is not there, one that is not JSON: a notification each, back on the main screen
        await pilot.press("ctrl+w")
        await type_path(pilot, "x")
        await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")
        await wait_for(
            pilot,
            lambda: any("no such snapshot file" in str(n.message) for n in shown_notifications(app)),
            what="the missing-file notification",
        )
        await pilot.press("ctrl+w")
        await type_path(pilot, "n")
        await wait_for(
            pilot,
            lambda: any("/n: not JSON" in str(n.message) for n in shown_notifications(app)),
            what="the not-JSON notification",
        )
        assert app.screen is app.main

        # escape cancels the prompt
        await pilot.press("ctrl+w")
        await wait_for(pilot, lambda: isinstance(app.screen, SnapshotPathScreen), what="the path prompt")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")

        # the palette entry, then the real snapshot
        await palette_pick(pilot, "compare with")
        await pilot.press("enter")
        await type_path(pilot, "o")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SurfaceDiffScreen) and app.screen.changes is not None,
            what="the comparison",
        )
        screen = app.screen
        breaking = [(c.path, c.message) for c in screen.changes if c.kind == "breaking"]
        assert breaking == [
            ("/tools/add/inputSchema/properties/b", "b made required"),
            ("/tools/retired", "tool retired removed"),
        ]
        body = str(screen.query_one("#surface-diff-body").render())
        lines = body.splitlines()
        assert lines[0] == "✖ breaking (2)"
        assert "  ✖ /tools/add/inputSchema/properties/b: b made required" in lines
        assert "  ✖ /tools/retired: tool retired removed" in lines
        assert "2 breaking" in str(screen.query_one("#surface-diff-title").render())

        # at 80x24 the modal is on screen whole: its title, the scrolling list and the hint
        frame = screen.query_one("Vertical")
        assert frame.region.right <= SMALL[0] and frame.region.bottom <= SMALL[1]
        for part in ("#surface-diff-title", "#surface-diff-scroll", "#surface-diff-hint"):
            region = screen.query_one(part).region
            assert region.height >= 1 and frame.region.contains_region(region), part
        scroll = screen.query_one(VerticalScroll)
        assert screen.focused is scroll

        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")

        # a two-era snapshot (snapshot --era both): the era the demo speaks (legacy) is compared,
        # the modern one is named as not compared
        legacy = json.loads(snapshot.read_text())
        legacy.pop("snapshotFormat")
        modern = dict(legacy, era="modern", protocolVersion="2026-07-28")
        both = {"snapshotFormat": 2, "eras": {"legacy": legacy, "modern": modern}, "erasNotSpoken": []}
        (tmp_path / "b").write_text(json.dumps(both))
        await pilot.press("ctrl+w")
        await type_path(pilot, "b")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SurfaceDiffScreen) and app.screen.changes is not None,
            what="the two-era comparison",
        )
        screen = app.screen
        assert [c.path for c in screen.changes if c.kind == "breaking"] == [
            "/eras/legacy/tools/add/inputSchema/properties/b",
            "/eras/legacy/tools/retired",
        ]
        notes = str(screen.query_one("#surface-diff-notes").render())
        assert "note: the modern era was not compared: only b records it (the server has the legacy era only)" in (
            " ".join(notes.split())
        )
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")


@pytest.mark.anyio
async def test_compare_without_a_server_says_so():
    app = make_app(None, use_demo=False, config=TuiConfig())
    async with app.run_test(size=SMALL) as pilot:
        await wait_for(pilot, lambda: app.screen is app.main, what="the main screen")
        await pilot.press("ctrl+w")
        await wait_for(
            pilot,
            lambda: any("No server is connected" in str(n.message) for n in shown_notifications(app)),
            what="the not-connected notification",
        )
        assert app.screen is app.main
