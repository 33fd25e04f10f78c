"""Real MCP servers over HTTP on 127.0.0.1 for tests (a pytest plugin, loaded by tests/conftest.py).

Session-scoped (started once on first use, killed with their process group at the end):

* ``everything_http_url`` -> ``http://127.0.0.1:<port>/mcp``: @modelcontextprotocol/server-everything
  ``streamableHttp`` (stateful Streamable HTTP with ``Mcp-Session-Id``, SSE replies with event ids
  and an in-memory event store for ``Last-Event-ID`` resumption, GET stream, DELETE). Legacy era
  only (initialize). Skips like ``server_everything`` (fails in CI) when it is not installed.
* ``everything_sse_url`` -> ``http://127.0.0.1:<port>/sse``: server-everything ``sse`` (the legacy
  HTTP+SSE transport: GET /sse gives an ``endpoint`` event ``/message?sessionId=...``; POST there).
* ``sdk_http_stateful_url`` / ``sdk_http_stateless_url`` / ``sdk_http_json_url`` ->
  ``http://127.0.0.1:<port>/mcp``: tests/servers/sdk_http_server.py in that ``--mode`` (see its
  docstring for the tools). Each serves BOTH eras on the same URL: no ``MCP-Protocol-Version``
  header or a handshake version -> legacy (initialize), ``MCP-Protocol-Version: 2026-07-28`` ->
  the modern single-exchange flow.
* ``sdk_modern_http_url``: the same server as ``sdk_http_stateful_url`` (the SDK cannot serve the
  modern era alone over HTTP); use it for 2026-07-28 requests.
* ``sdk_http_sse_url`` -> ``http://127.0.0.1:<port>/sse``: the SDK's legacy HTTP+SSE transport.
* ``sdk_http_server``: factory ``sdk_http_server("--mode", "stateful", "--resumable", ...) -> url``,
  one shared process per distinct argument list.
* ``sdk_modern_stdio_command``: argv of tests/servers/sdk_modern_server.py (2026-07-28 only over
  stdio; rejects ``initialize`` with -32022). Add ``"--dual"`` for first-request-decides serving.

Function-scoped: ``fresh_sdk_http_server`` -> factory like ``sdk_http_server`` but every call starts
a new process, killed at the end of the test (for tests that change server state: change_tools,
sessions, resumption).

Plain helpers (``from http_fixtures import ...``): ``start_sdk_http_server(*args)`` and
``start_everything(command, mode)`` return a ``RunningServer`` (``.url``, ``.port``, ``.pid``,
``.stop()``, ``.log()``: the server's stdout and stderr so far), ``sdk_http_command(*args)``.
``start_sdk_http_server("--access-log")`` logs ``ACCESS <METHOD> <path> <status> <JSON-RPC
methods> from <ip>:<port>`` per HTTP request, readable with ``.log()``. A failed start raises
``ServerStartError`` with the server's output (fixtures turn it into a test failure).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
SERVERS_DIR = TESTS_DIR / "servers"
SDK_HTTP_SERVER = SERVERS_DIR / "sdk_http_server.py"
SDK_MODERN_SERVER = SERVERS_DIR / "sdk_modern_server.py"
BIND_LOOPBACK = SERVERS_DIR / "bind_loopback.cjs"
PYTHON = sys.executable
START_TIMEOUT = 30.0

# server-everything mode -> the path of its MCP endpoint
EVERYTHING_PATHS = {"streamableHttp": "/mcp", "sse": "/sse"}


class ServerStartError(RuntimeError):
    pass


class RunningServer:
    """A server process in its own process group, with its output in a log file."""

    def __init__(self, process: subprocess.Popen, log_path: Path, url: str, port: int) -> None:
        self.process = process
        self.log_path = log_path
        self.url = url
        self.port = port

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        _kill_group(self.process)
        with contextlib.suppress(OSError):
            self.log_path.unlink()


def _kill_group(process: subprocess.Popen) -> None:
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()
    if process.poll() is None:
        for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 3.0)):
            try:
                os.killpg(process.pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            try:
                process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
    else:
        # the leader is gone; its children may not be
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(1)


def _wait_accepting(port: int, process: subprocess.Popen, deadline: float) -> None:
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise ServerStartError(f"nothing accepts connections on 127.0.0.1:{port}") from None
            time.sleep(0.02)


def _launch(
    command: list[str], env: dict[str, str], find_port: Callable[[Path], int | None], path: str, name: str
) -> RunningServer:
    fd, log_name = tempfile.mkstemp(prefix=f"mcpi-{name}-", suffix=".log")
    log_path = Path(log_name)
    with os.fdopen(fd, "wb") as log:
        # stdin: a pipe only this process holds (close-on-exec), so the server sees EOF and exits
        # when the test run dies without its teardown.
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    deadline = time.monotonic() + START_TIMEOUT
    try:
        port = None
        while port is None:
            port = find_port(log_path)
            if port is None:
                if process.poll() is not None:
                    raise ServerStartError(f"exited with {process.returncode} before listening")
                if time.monotonic() > deadline:
                    raise ServerStartError(f"no port after {START_TIMEOUT:.0f} s")
                time.sleep(0.02)
        _wait_accepting(port, process, deadline)
    except ServerStartError as exc:
        output = log_path.read_text(errors="replace")[-2000:]
        _kill_group(process)
        log_path.unlink(missing_ok=True)
        raise ServerStartError(f"{name} ({' '.join(command)}): {exc}\n--- its output ---\n{output}") from None
    return RunningServer(process, log_path, f"http://127.0.0.1:{port}{path}", port)


def sdk_http_command(*args: str) -> list[str]:
    return [PYTHON, str(SDK_HTTP_SERVER), *args]


def start_sdk_http_server(*args: str) -> RunningServer:
    """Start tests/servers/sdk_http_server.py with ``args``; it prints ``PORT <n>`` when listening."""

    def find_port(log_path: Path) -> int | None:
        match = re.search(rb"^PORT (\d+)$", log_path.read_bytes(), re.MULTILINE)
        return int(match.group(1)) if match else None

    path = "/sse" if "sse" in args and args[args.index("sse") - 1] == "--mode" else "/mcp"
    if "--path" in args:
        path = args[args.index("--path") + 1]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return _launch(sdk_http_command("--exit-on-eof", *args), env, find_port, path, "sdk-http")


def start_everything(command: list[str], mode: str) -> RunningServer:
    """Start server-everything (``command[0]``) in ``mode`` (streamableHttp or sse) on 127.0.0.1, a free port.

    PORT=0 and a preload (tests/servers/bind_loopback.cjs) that forces every listen onto 127.0.0.1 and
    writes the port it got into a report file.
    """
    fd, report_name = tempfile.mkstemp(prefix="mcpi-everything-port-")
    os.close(fd)
    report = Path(report_name)

    def find_port(_log: Path) -> int | None:
        text = report.read_text().split()
        return int(text[0]) if text else None

    env = dict(os.environ)
    env["PORT"] = "0"
    env["MCP_BIND_LOOPBACK_REPORT"] = str(report)
    env["NODE_OPTIONS"] = (env.get("NODE_OPTIONS", "") + f" --require {BIND_LOOPBACK}").strip()
    env["MCP_EXIT_ON_STDIN_EOF"] = "1"
    try:
        return _launch([command[0], mode], env, find_port, EVERYTHING_PATHS[mode], f"everything-{mode}")
    finally:
        report.unlink(missing_ok=True)


def _start_or_fail(start: Callable[[], RunningServer]) -> RunningServer:
    try:
        return start()
    except ServerStartError as exc:
        pytest.fail(f"fixture server did not start: {exc}", pytrace=False)


@pytest.fixture(scope="session")
def everything_http_url(server_everything: list[str]) -> Iterator[str]:
    server = _start_or_fail(lambda: start_everything(server_everything, "streamableHttp"))
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def everything_sse_url(server_everything: list[str]) -> Iterator[str]:
    server = _start_or_fail(lambda: start_everything(server_everything, "sse"))
    yield server.url
    server.stop()


@pytest.fixture(scope="session")
def sdk_http_server() -> Iterator[Callable[..., str]]:
    """``sdk_http_server("--mode", "json")`` -> url; one process per distinct argument list, shared."""
    running: dict[tuple[str, ...], RunningServer] = {}

    def get(*args: str) -> str:
        if args not in running:
            running[args] = _start_or_fail(lambda: start_sdk_http_server(*args))
        return running[args].url

    yield get
    for server in running.values():
        server.stop()


@pytest.fixture
def fresh_sdk_http_server() -> Iterator[Callable[..., RunningServer]]:
    """``fresh_sdk_http_server("--mode", "stateful", "--resumable")`` -> a new RunningServer, killed after the test."""
    started: list[RunningServer] = []

    def start(*args: str) -> RunningServer:
        server = _start_or_fail(lambda: start_sdk_http_server(*args))
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def sdk_http_stateful_url(sdk_http_server: Callable[..., str]) -> str:
    return sdk_http_server("--mode", "stateful")


@pytest.fixture(scope="session")
def sdk_http_stateless_url(sdk_http_server: Callable[..., str]) -> str:
    return sdk_http_server("--mode", "stateless")


@pytest.fixture(scope="session")
def sdk_http_json_url(sdk_http_server: Callable[..., str]) -> str:
    return sdk_http_server("--mode", "json")


@pytest.fixture(scope="session")
def sdk_http_sse_url(sdk_http_server: Callable[..., str]) -> str:
    return sdk_http_server("--mode", "sse")


@pytest.fixture(scope="session")
def sdk_modern_http_url(sdk_http_stateful_url: str) -> str:
    """The 2026-07-28 era over Streamable HTTP: the stateful SDK server (it routes by MCP-Protocol-Version)."""
    return sdk_http_stateful_url


@pytest.fixture(scope="session")
def sdk_modern_stdio_command() -> list[str]:
    return [PYTHON, str(SDK_MODERN_SERVER)]
