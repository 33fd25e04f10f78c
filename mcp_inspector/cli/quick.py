"""The fast path: ``tools``, ``info``, ``prompts``, ``resources`` and ``ping`` without asyncio.

Importing asyncio and anyio costs more than a whole exchange with a small
server, and a cold ``mcp-inspector tools`` must stay within 1.2x of a minimal
hand-written client. These commands are one request after another, so a
blocking client is enough: the server is spawned as early as possible (its
start-up overlaps our imports), stdout is read with a selector for
per-request timeouts, stderr by a thread (tail kept, echoed with
--show-stderr). Server-to-client requests are answered (``ping`` -> {},
anything else -> -32601). Messages and exit codes match the full path;
``--record`` (and every other command) uses the full path, and so does
everything when MCP_INSPECTOR_NO_FAST_PATH is set.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque

from .. import __version__
from ..core.framing import LineFramer, is_blank
from . import exit_codes
from .early import signal_group as _signal_group

QUICK_COMMANDS = ("tools", "info", "prompts", "resources", "ping")
CLIENT_INFO = {"name": "mcp-inspector", "title": "MCP Inspector", "version": __version__}
STDERR_PREFIX = "[server] "
READ_CHUNK = 1 << 20
CLOSE_GRACE = 2.0
METHOD_NOT_FOUND = -32601
LISTS = {  # kind -> (method, result key, capability)
    "tools": ("tools/list", "tools", "tools"),
    "prompts": ("prompts/list", "prompts", "prompts"),
    "resources": ("resources/list", "resources", "resources"),
    "resource_templates": ("resources/templates/list", "resourceTemplates", "resources"),
}


def fast_path_enabled() -> bool:
    return not os.environ.get("MCP_INSPECTOR_NO_FAST_PATH")


class QuickFailure(Exception):
    def __init__(self, code: int, message: str, tail: list[str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.tail = tail or []


class QuickRpcError(QuickFailure):
    def __init__(self, method: str, error: dict) -> None:
        from ..core.jsonrpc import ERROR_NAMES

        self.error = error
        code, message = error.get("code"), error.get("message")
        name = ERROR_NAMES.get(code) if isinstance(code, int) else None
        self.detail = f"JSON-RPC error {code}{f' ({name})' if name else ''}: {message}"
        super().__init__(exit_codes.RPC_ERROR, f"{method} failed: {self.detail}")


class QuickClient:
    """A blocking stdio MCP client for one short exchange."""

    def __init__(self, process: subprocess.Popen, timeout: float | None, show_stderr: bool) -> None:
        self.process = process
        self.timeout = timeout
        self.show_stderr = show_stderr
        self.stderr_tail: deque[str] = deque(maxlen=50)
        self.framer = LineFramer()
        self.frames: deque[bytes] = deque()
        self.next_id = 1
        self.eof = False
        self.stderr_thread = threading.Thread(target=self._read_stderr, name="server stderr", daemon=True)
        self.stderr_thread.start()
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.process.stdout, selectors.EVENT_READ)

    # -- stderr ---------------------------------------------------------
    def _read_stderr(self) -> None:
        framer = LineFramer()
        fd = self.process.stderr.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            for line in framer.feed(chunk):
                self._stderr_line(line)
        tail = framer.flush()
        if tail:
            self._stderr_line(tail)

    def _stderr_line(self, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace")
        self.stderr_tail.append(text)
        if self.show_stderr:
            try:
                sys.stderr.write(STDERR_PREFIX + text + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

    # -- sending --------------------------------------------------------
    def _write(self, message: dict, step: str) -> None:
        data = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8") + b"\n"
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(step) from None

    def notify(self, method: str, params: dict | None = None) -> None:
        message: dict = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._write(message, method)

    def request(self, method: str, params: dict | None = None) -> dict:
        msg_id = self.next_id
        self.next_id += 1
        message: dict = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self._write(message, method)
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            reply = self._next_reply(msg_id, deadline, method)
            if reply is None:
                self._timed_out(msg_id, method)
            if "error" in reply:
                error = reply["error"]
                raise QuickRpcError(method, error if isinstance(error, dict) else {"code": None, "message": str(error)})
            result = reply.get("result")
            if not isinstance(result, dict):
                raise QuickFailure(exit_codes.SERVER_FAILURE, f"{method}: protocol error: the result of {method} is not an object")
            return result

    def _timed_out(self, msg_id: int, method: str) -> None:
        if method == "initialize":
            raise QuickFailure(exit_codes.TIMEOUT, f"the handshake timed out: no answer to initialize within {self.timeout:g} s")
        try:
            self.notify("notifications/cancelled", {"requestId": msg_id, "reason": "timeout"})
        except QuickFailure:
            pass
        raise QuickFailure(exit_codes.TIMEOUT, f"{method} timed out: no response within the timeout of {self.timeout:g} s "
                                               "(notifications/cancelled was sent)")

    # -- receiving ------------------------------------------------------
    def _next_reply(self, msg_id: int, deadline: float | None, step: str) -> dict | None:
        """The reply to ``msg_id``; None on timeout. Answers server requests meanwhile."""
        while True:
            while self.frames:
                message = self._parse(self.frames.popleft())
                if message is None:
                    continue
                if "method" in message:
                    if "id" in message:
                        self._answer(message)
                    continue
                if message.get("id") == msg_id and type(message.get("id")) is int:
                    return message
            if self.eof:
                raise self._died(step)
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            if not self.selector.select(remaining):
                continue
            chunk = os.read(self.process.stdout.fileno(), READ_CHUNK)
            if not chunk:
                self.eof = True
                tail = self.framer.flush()
                if tail is not None and not is_blank(tail):
                    self.frames.append(tail)
                continue
            self.frames.extend(line for line in self.framer.feed(chunk) if not is_blank(line))

    @staticmethod
    def _parse(frame: bytes) -> dict | None:
        try:
            message = json.loads(frame)
        except ValueError:
            return None
        return message if isinstance(message, dict) else None

    def _answer(self, message: dict) -> None:
        method = message.get("method")
        if method == "ping":
            reply = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
        else:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": METHOD_NOT_FOUND, "message": f"Method not found: {method}"}}
        try:
            self._write(reply, str(method))
        except QuickFailure:
            pass  # the read loop reports the death

    def _died(self, step: str) -> QuickFailure:
        try:
            code = self.process.wait(CLOSE_GRACE)
        except subprocess.TimeoutExpired:
            code = None
        self.stderr_thread.join(0.5)
        if code is None:
            reason = "the server closed its stdout"
        elif code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "unknown"
            reason = f"the server was killed by signal {-code} ({name})"
        else:
            reason = f"the server exited with code {code}"
        return QuickFailure(exit_codes.SERVER_FAILURE, f"{reason} during {step}", list(self.stderr_tail)[-10:])

    # -- lifecycle ------------------------------------------------------
    def close(self) -> None:
        """Close stdin, wait, then SIGTERM, then SIGKILL the process group (as the stdio transport does)."""
        process = self.process
        try:
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(CLOSE_GRACE)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGTERM)
            try:
                process.wait(CLOSE_GRACE)
            except subprocess.TimeoutExpired:
                _signal_group(process.pid, signal.SIGKILL)
                process.wait()
        _signal_group(process.pid, signal.SIGKILL)
        self.selector.close()
        process.stdout.close()


class QuickSession:
    """What the quick commands need: the handshake's outcome and paged lists."""

    def __init__(self, client: QuickClient, protocol_version: str, quiet: bool) -> None:
        self.client = client
        self.protocol_version = protocol_version
        self.quiet = quiet
        self.result: dict = {}

    def initialize(self) -> None:
        from ..core.versions import LEGACY_VERSIONS

        try:
            result = self.client.request("initialize", {"protocolVersion": self.protocol_version, "capabilities": {},
                                                         "clientInfo": CLIENT_INFO})
        except QuickRpcError as exc:
            raise QuickFailure(exit_codes.SERVER_FAILURE, f"handshake failed: the server rejected initialize: {exc.detail}") from None
        version = result.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            raise QuickFailure(exit_codes.SERVER_FAILURE, f"handshake failed: the server chose protocol version {version!r}, which "
                               f"mcp-inspector does not support (supported: {', '.join(LEGACY_VERSIONS)})")
        self.result = result
        self.client.notify("notifications/initialized")

    @property
    def capabilities(self) -> dict:
        caps = self.result.get("capabilities")
        return caps if isinstance(caps, dict) else {}

    def note(self, message: str) -> None:
        if not self.quiet:
            sys.stderr.write(f"mcp-inspector: {message}\n")

    def list_all(self, kind: str) -> list[dict]:
        method, key, capability = LISTS[kind]
        if capability not in self.capabilities:
            self.note(f"the server does not declare the {capability} capability; nothing to list")
            return []
        items: list[dict] = []
        cursor = None
        seen: set[str] = set()
        while True:
            result = self.client.request(method, {"cursor": cursor} if cursor is not None else None)
            page = result.get(key)
            if not isinstance(page, list):
                raise QuickFailure(exit_codes.SERVER_FAILURE, f"{method}: protocol error: {method} result has no `{key}` array")
            items.extend(item for item in page if isinstance(item, dict))
            cursor = result.get("nextCursor")
            if cursor is None or cursor == "":
                return items
            if not isinstance(cursor, str):
                raise QuickFailure(exit_codes.SERVER_FAILURE, f"{method}: protocol error: nextCursor must be a string, got {cursor!r}")
            if cursor in seen:
                raise QuickFailure(exit_codes.SERVER_FAILURE, f"{method}: protocol error: cursor loop, the server returned cursor "
                                                              f"{cursor!r} twice (stopped after {len(seen) + 1} pages)")
            seen.add(cursor)


def run_quick(client: QuickClient, command: str, *, protocol_version: str, as_json: bool, quiet: bool) -> int:
    """Run one quick command on an already spawned server; always closes it."""
    from .report import error

    if as_json:
        render = None  # not even imported: --json output is plain json.dumps
    else:
        from . import render
    session = QuickSession(client, protocol_version, quiet)
    try:
        session.initialize()
        output = _COMMANDS[command](session, as_json, render)
    except QuickFailure as exc:
        error(exc.message, exc.tail)
        return exc.code
    finally:
        client.close()
    sys.stdout.write(output + "\n")
    return exit_codes.OK


def _dump(document: dict) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False)


def _tools(session: QuickSession, as_json: bool, render) -> str:
    items = session.list_all("tools")
    return _dump({"tools": items}) if as_json else render.tools(items)


def _prompts(session: QuickSession, as_json: bool, render) -> str:
    items = session.list_all("prompts")
    return _dump({"prompts": items}) if as_json else render.prompts(items)


def _resources(session: QuickSession, as_json: bool, render) -> str:
    items = session.list_all("resources")
    templates: list[dict] = []
    if "resources" in session.capabilities:
        try:
            templates = session.list_all("resource_templates")
        except QuickRpcError as exc:
            if exc.error.get("code") != METHOD_NOT_FOUND:
                raise
            session.note("the server does not implement resources/templates/list")
    return _dump({"resources": items, "resourceTemplates": templates}) if as_json else render.resources(items, templates)


def _info(session: QuickSession, as_json: bool, render) -> str:
    result = session.result
    server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {}
    instructions = result.get("instructions") if isinstance(result.get("instructions"), str) else None
    version = result.get("protocolVersion")
    if as_json:
        return _dump({"serverInfo": server_info, "protocolVersion": version, "capabilities": session.capabilities,
                      "instructions": instructions})
    return render.info(server_info, version, session.capabilities, instructions)


def _ping(session: QuickSession, as_json: bool, render) -> str:
    started = time.perf_counter()
    session.client.request("ping")
    elapsed_ms = (time.perf_counter() - started) * 1000
    return _dump({"ok": True, "roundTripMs": round(elapsed_ms, 3)}) if as_json else f"pong: round trip {elapsed_ms:.2f} ms"


_COMMANDS = {"tools": _tools, "prompts": _prompts, "resources": _resources, "info": _info, "ping": _ping}
