"""Snapshots of the Resources view at 80x24 and 120x40 against the demo server in snapshot
mode (pid masked, no timings): the lists with a resource read (demo://readme, Markdown),
and a template's form filled in with its expanded URI and the contents read.
Regenerate with ``pytest tests/tui/test_resources_snapshots.py --snapshot-update``."""

from __future__ import annotations

import pytest
from app_helpers import SIZE, demo_spec, settle, wait_for

from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.widgets.views.resources.view import ResourcesView

SMALL = (80, 24)


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)


def demo_app():
    return make_app(demo_spec(), snapshot_mode=True, config=TuiConfig(), timeout=20.0)


async def resources_view(pilot) -> ResourcesView:
    app = pilot.app
    await wait_for(pilot, lambda: app.main.status_bar.status.state == "connected", what="the connection")
    await pilot.press("7")
    view = app.main.query_one("#view-resources", ResourcesView)
    await wait_for(pilot, lambda: {"resources", "resource_templates"} <= view.resource_list.listed, what="the lists")
    return view


async def quiet(pilot) -> None:
    await settle(pilot.app)
    pilot.app.clear_notifications()
    await pilot.pause()


def read_readme():
    async def run_before(pilot) -> None:
        view = await resources_view(pilot)
        await pilot.press("enter")  # the first resource: demo://readme
        await wait_for(pilot, lambda: view.contents.kind == "ok", what="the read")
        await quiet(pilot)

    return run_before


def fill_template():
    async def run_before(pilot) -> None:
        view = await resources_view(pilot)
        view.resource_list.select_template("demo://notes/{note_id}")
        await pilot.press("enter")
        await wait_for(pilot, lambda: view.template_form.first_field() is not None, what="the form")
        await pilot.press(*"todo")
        field = view.template_form.first_field()
        await wait_for(pilot, lambda: field.list_open, what="the suggestions")
        await pilot.press("escape")  # no suggestion list in the picture
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: view.contents.kind == "ok" and view.contents.uri == "demo://notes/todo", what="the read"
        )
        await quiet(pilot)

    return run_before


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_resources_list_and_a_read_resource(snap_compare, size):
    assert snap_compare(demo_app(), terminal_size=size, run_before=read_readme())


@pytest.mark.parametrize("size", [SIZE, SMALL], ids=["120x40", "80x24"])
def test_resources_template_form_and_its_read(snap_compare, size):
    assert snap_compare(demo_app(), terminal_size=size, run_before=fill_template())
