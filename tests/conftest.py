"""Shared test helpers: fixture-server paths, async test support, server-everything.

Kept small and generic on purpose (TUI, CLI and core tests all load it): the one
autouse fixture gives each test its own $XDG_STATE_HOME.

Async tests: mark them ``@pytest.mark.anyio`` (the plugin ships with anyio); the
``anyio_backend`` fixture below pins them to asyncio. Or call ``run_async(fn)``
from a plain test.

Fixtures: ``raw_server`` (command builder for tests/servers/raw_server.py),
``sdk_server``, ``server_everything`` (skips if absent, fails when CI=true) and
``connect`` (an initialized McpSession over real pipes, collecting its events).
Plain helpers (``run_async``, ``demo_server_command``...) can be imported with
``from conftest import ...``.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = REPO_ROOT / "tests"
SERVERS_DIR = TESTS_DIR / "servers"
RAW_SERVER = SERVERS_DIR / "raw_server.py"
SDK_SERVER = SERVERS_DIR / "sdk_server.py"
PYTHON = sys.executable

pytest_plugins = ["http_fixtures"]  # real HTTP servers on 127.0.0.1 (tests/http_fixtures.py)


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own $XDG_STATE_HOME (the CLI children inherit it): what a command keeps there
    (the era a server spoke, config/eras.py; OAuth tokens; the theme) is never the user's, nor another
    test's, so no test depends on which ran before it. A test that runs a server twice sees what its
    own first run kept."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


# Where server-everything may be installed: the repo root (CI runs `npm install` there),
# then a developer's scratch install as a last resort.
EVERYTHING_FALLBACKS = (
    REPO_ROOT / "node_modules" / ".bin" / "mcp-server-everything",
    Path("/tmp/npmtest/node_modules/.bin/mcp-server-everything"),
)


def raw_server_command(*modes: str, **options: Any) -> list[str]:
    """``[python, raw_server.py, --mode a,b, --flag value...]``; ``delay=0.5`` -> ``--delay 0.5``."""
    command = [PYTHON, str(RAW_SERVER)]
    if modes:
        command += ["--mode", ",".join(modes)]
    for name, value in options.items():
        command += [f"--{name.replace('_', '-')}", str(value)]
    return command


def sdk_server_command() -> list[str]:
    return [PYTHON, str(SDK_SERVER)]


def demo_server_command() -> list[str]:
    return [PYTHON, "-m", "mcp_inspector.demo"]


def run_async(fn: Callable[[], Awaitable[Any]], timeout: float = 30.0) -> Any:
    """Run an async test body on asyncio with a hard time limit (never hangs)."""

    async def guarded() -> Any:
        with anyio.fail_after(timeout):
            return await fn()

    return anyio.run(guarded, backend="asyncio")


def find_server_everything() -> list[str] | None:
    """The command that starts @modelcontextprotocol/server-everything over stdio, or None."""
    configured = os.environ.get("MCP_SERVER_EVERYTHING")
    if configured:
        path = shutil.which(configured) or configured
        return [path, "stdio"] if os.path.exists(path) else None
    for candidate in EVERYTHING_FALLBACKS:
        if candidate.exists():
            return [str(candidate), "stdio"]
    return None


# Test modules do ``from conftest import run_async, ...``. pytest imports every
# directory's conftest.py under the same name ``conftest``, so a subdirectory
# conftest (tests/cli/conftest.py) collected earlier would shadow this one. Point the
# name back at this module before each test module is imported.
_THIS_MODULE = sys.modules[__name__]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before each test: collect what earlier tests left, then freeze the survivors (modules,
    caches) out of the collector's sight. A TUI test allocates a lot; each full collection then
    scanned every object the worker ever kept (0.2-0.3 s each, 35% of a TUI file's CPU) instead
    of this test's own. Garbage is still freed (the collect runs first, refcounts still work);
    a test that checks something is freed calls gc.collect() on its own objects, never frozen."""
    gc.collect()
    gc.freeze()


def pytest_collectstart(collector: pytest.Collector) -> None:
    if isinstance(collector, pytest.Module):
        sys.modules["conftest"] = _THIS_MODULE


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def raw_server() -> Callable[..., list[str]]:
    """``raw_server("crlf", delay=0.5)`` -> the command line for tests/servers/raw_server.py."""
    if not RAW_SERVER.exists():
        pytest.fail(f"fixture server missing: {RAW_SERVER}")
    return raw_server_command


@pytest.fixture(scope="session")
def sdk_server() -> list[str]:
    if not SDK_SERVER.exists():
        pytest.fail(f"fixture server missing: {SDK_SERVER}")
    return sdk_server_command()


@pytest.fixture(scope="session")
def server_everything() -> list[str]:
    """Command for server-everything; skips when absent, but FAILS in CI (CI=true)."""
    command = find_server_everything()
    if command is None:
        configured = os.environ.get("MCP_SERVER_EVERYTHING")
        reason = (
            f"MCP_SERVER_EVERYTHING={configured!r} does not exist"
            if configured
            else "@modelcontextprotocol/server-everything not found: set MCP_SERVER_EVERYTHING to its command, "
            "or run `npm install @modelcontextprotocol/server-everything` in the repo root"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (required in CI)")
        pytest.skip(reason)
    if shutil.which("node") is None:
        message = "server-everything needs `node` on PATH"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return command


class Connected:
    """A live, real-pipe session (``.session``, ``.transport``, ``.store``) plus every event it emitted."""

    def __init__(self, session: Any, transport: Any) -> None:
        self.session = session
        self.transport = transport
        self.store = session.store
        self.events: list[Any] = []
        session.add_listener(self.events.append)

    def of_type(self, cls: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]


@pytest.fixture
def connect() -> Callable[..., Any]:
    """``async with connect(command, env=..., cwd=..., timeout=...) as c:`` -> Connected, initialized.

    Extra keyword arguments go to McpSession (``era`` defaults to "legacy" here);
    ``initialize=False`` skips the handshake.
    """
    from mcp_inspector.core.session.mcp_session import McpSession
    from mcp_inspector.core.transport.stdio import StdioTransport

    @asynccontextmanager
    async def _connect(
        command: list[str],
        *,
        env: dict | None = None,
        cwd: str | None = None,
        initialize: bool = True,
        close_grace: float = 2.0,
        term_grace: float = 2.0,
        idle_close_grace: float | None = None,
        **session_options: Any,
    ) -> AsyncIterator[Connected]:
        graces = {"close_grace": close_grace, "term_grace": term_grace}
        if idle_close_grace is not None:
            graces["idle_close_grace"] = idle_close_grace
        transport = StdioTransport(command, env=env, cwd=cwd, **graces)
        session_options.setdefault("timeout", 10.0)
        session_options.setdefault("init_timeout", 10.0)
        session_options.setdefault("era", "legacy")  # these tests are about the legacy era; era tests pass era="auto"
        session = McpSession(transport, **session_options)
        connected = Connected(session, transport)
        async with session:
            if initialize:
                await session.initialize()
            yield connected

    return _connect
