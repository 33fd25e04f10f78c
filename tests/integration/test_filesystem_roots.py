"""The roots fix against @modelcontextprotocol/server-filesystem (Node), in the TUI.

server-filesystem, started with a folder, asks the client for its roots right after the
handshake (when the client declares ``roots``) and replaces its allowed folders with the
roots it is told; on an empty list it keeps the folders it was started with. The inspector
once answered with its working directory, so the server refused the folder it was started
with. Now: no roots given, the server keeps its folder; ``--root`` (``ServerSpec.roots``) or
the Roots editor (ctrl+f, which sends ``notifications/roots/list_changed``) gives others.

The server says on stderr when it has handled the roots answer ("No valid root directories
provided by client" / "Updated allowed directories from MCP roots"); the tests wait for that
line before calling ``list_allowed_directories``, so they do not race its handling.

Found through MCP_SERVER_FILESYSTEM (scripts/run-tests sets it) or ./node_modules; skipped
when it is not installed, but a failure in CI (CI=true).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.tui.app import make_app
from mcp_inspector.tui.config import TuiConfig
from mcp_inspector.tui.messages import CallFinished
from mcp_inspector.tui.pilot_steps import wait_for

pytestmark = pytest.mark.anyio

REPO_ROOT = Path(__file__).resolve().parents[2]
FALLBACK = REPO_ROOT / "node_modules" / ".bin" / "mcp-server-filesystem"
KEPT = "No valid root directories provided by client"
UPDATED = "Updated allowed directories from MCP roots"


@pytest.fixture(scope="module")
def server_filesystem() -> str:
    configured = os.environ.get("MCP_SERVER_FILESYSTEM")
    path = (shutil.which(configured) or configured) if configured else str(FALLBACK)
    reason = None
    if not os.path.exists(path):
        reason = (
            f"MCP_SERVER_FILESYSTEM={configured!r} does not exist"
            if configured
            else "@modelcontextprotocol/server-filesystem not found: set MCP_SERVER_FILESYSTEM to its command, "
            "or run scripts/run-tests (it installs it with server-everything)"
        )
    elif shutil.which("node") is None:
        reason = "server-filesystem needs `node` on PATH"
    if reason is not None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (required in CI)")
        pytest.skip(reason)
    return path


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def folders(tmp_path) -> dict[str, Path]:
    made = {name: (tmp_path / name).resolve() for name in ("started", "other", "later", "cwd")}
    for folder in made.values():
        folder.mkdir()
    return made


def stderr_lines(app, text: str) -> list:
    return [e for e in app.store if e.kind is Kind.STDERR and text in e.text]


async def allowed_directories(pilot, app, finished: list) -> list[str]:
    """Call list_allowed_directories through the composer; the folders it lists."""
    main = app.main
    assert main.tool_list.select_name("list_allowed_directories")
    await wait_for(
        pilot,
        lambda: (main.composer.tool or {}).get("name") == "list_allowed_directories",
        what="the tool in the composer",
    )
    count = len(finished)
    main.action_send_request()
    await wait_for(pilot, lambda: len(finished) > count, timeout=20, what="list_allowed_directories")
    result = finished[-1].outcome.result
    text = "".join(block.get("text", "") for block in result.get("content", []))
    assert text.startswith("Allowed directories:"), json.dumps(result)
    return text.splitlines()[1:]


def filesystem_app(command: str, started: Path, cwd: Path, roots: list[str] | None = None):
    spec = ServerSpec("filesystem", [command, str(started)], roots=list(roots or []), source="test")
    # cwd: the inspector's working directory, which it once answered roots/list with
    return make_app(spec, config=TuiConfig(), timeout=20.0, cwd=str(cwd))


def hook(into: list):
    return lambda message: into.append(message) if isinstance(message, CallFinished) else None


async def test_without_roots_the_server_keeps_the_folder_it_was_started_with(server_filesystem, folders):
    finished: list = []
    app = filesystem_app(server_filesystem, folders["started"], folders["cwd"])
    async with app.run_test(size=(120, 40), message_hook=hook(finished)) as pilot:
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), timeout=20, what="the tool list")
        await wait_for(
            pilot,
            lambda: stderr_lines(app, KEPT) or stderr_lines(app, UPDATED),
            timeout=20,
            what="the server's handling of the roots answer",
        )
        assert stderr_lines(app, KEPT) and not stderr_lines(app, UPDATED)
        assert await allowed_directories(pilot, app, finished) == [str(folders["started"])]


async def test_root_given_replaces_the_servers_folders(server_filesystem, folders):
    finished: list = []
    app = filesystem_app(server_filesystem, folders["started"], folders["cwd"], roots=[str(folders["other"])])
    async with app.run_test(size=(120, 40), message_hook=hook(finished)) as pilot:
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), timeout=20, what="the tool list")
        await wait_for(pilot, lambda: stderr_lines(app, UPDATED), timeout=20, what="the roots taken")
        assert await allowed_directories(pilot, app, finished) == [str(folders["other"])]


async def test_roots_editor_change_reaches_the_server(server_filesystem, folders):
    from mcp_inspector.tui.screens.dialogs.roots_editor import RootsEditor

    finished: list = []
    app = filesystem_app(server_filesystem, folders["started"], folders["cwd"])
    async with app.run_test(size=(120, 40), message_hook=hook(finished)) as pilot:
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), timeout=20, what="the tool list")
        await wait_for(pilot, lambda: stderr_lines(app, KEPT), timeout=20, what="the empty roots handled")
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: isinstance(app.screen, RootsEditor), what="the roots editor")
        await pilot.press(*str(folders["later"]), "enter", "ctrl+s")
        # notifications/roots/list_changed -> the server asks roots/list again -> takes the new root
        await wait_for(pilot, lambda: stderr_lines(app, UPDATED), timeout=20, what="the new roots taken")
        assert await allowed_directories(pilot, app, finished) == [str(folders["later"])]


async def test_switching_to_a_config_entry_with_roots_gives_that_servers_roots(server_filesystem, folders, tmp_path):
    """The roots answered during a switch's handshake are the new server's (from its config entry),
    not the working server's; the working server's roots stay its own."""
    from mcp_inspector.core.config.servers import load_config

    config = tmp_path / "servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fs2": {
                        "command": server_filesystem,
                        "args": [str(folders["cwd"])],
                        "roots": [str(folders["other"])],
                    }
                }
            }
        )
    )
    second = load_config(config)["fs2"]
    finished: list = []
    app = filesystem_app(server_filesystem, folders["started"], folders["cwd"])
    async with app.run_test(size=(120, 40), message_hook=hook(finished)) as pilot:
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), timeout=20, what="the tool list")
        await wait_for(pilot, lambda: stderr_lines(app, KEPT), timeout=20, what="the empty roots handled")
        app.main.connect(second, reason="switch server")
        await wait_for(pilot, lambda: stderr_lines(app, UPDATED), timeout=20, what="the second server's roots taken")
        await wait_for(
            pilot,
            lambda: app.main.connection.live is not None and app.main.connection.spec.key == second.key,
            timeout=20,
            what="the switch",
        )
        await wait_for(pilot, lambda: bool(app.main.tool_list.tools), timeout=20, what="the tool list")
        assert await allowed_directories(pilot, app, finished) == [str(folders["other"])]
        assert app.roots.paths(app.main.spec) == [str(folders["other"])]
