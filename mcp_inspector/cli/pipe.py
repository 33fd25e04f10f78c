"""``pipe``: newline-delimited JSON-RPC from stdin to the server, every server frame to stdout.

Input messages are sent in order, each request only after the previous one's
reply (notifications and responses don't wait). Input bytes are sent as they
are (``send_raw``), so the ids are the user's own. Unless the first input
message is ``initialize``, the handshake is done first, with the id
``"mcp-inspector-initialize"`` so it cannot collide with the user's ids. With
``--era modern`` (or ``--protocol-version 2026-07-28``) there is no handshake:
``server/discover`` is sent first and the input's requests carry their own ``_meta``.
Every frame the server sends is printed as one JSON line as soon as it
arrives; a frame that is not JSON is printed as
``{"invalid": "<text>", "problem": "..."}``. Bad input lines, error replies
and timeouts are reported and do not stop the rest. Requests the server sends
us are answered by the connection as usual (``ping`` -> {}, others -32601), and
their frames are printed like any other.

The exit code is 0 when every request got a result, else the code of the first
failure: 2 error reply, 4 timeout, 3 invalid reply, 64 invalid input line; 3
(at once) if the server dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections import deque
from typing import Any, BinaryIO

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectSendStream

from ..core.base.errors import (
    ConnectError,
    ConnectionLost,
    ProtocolViolation,
    RequestTimeout,
    RpcError,
    TransportFailure,
)
from ..core.base.framing import LineFramer, OverlongLine, is_blank
from ..core.base.json_text import JsonTextError, parse_frame
from ..core.base.jsonrpc import Kind, classify
from ..core.protocol.versions import LEGACY_VERSIONS
from ..core.session.mcp_session import McpSession
from ..core.traffic.entry import Direction, TrafficEntry
from . import exit_codes
from .output.report import PROGRAM, error, write_err
from .runner import Context

HANDSHAKE_ID = "mcp-inspector-initialize"
READ_CHUNK = 1 << 16
SEEN_IDS = 10_000  # request ids remembered for the "reuses id" warning


class FramePrinter:
    """A traffic-store listener that prints each server frame as one JSON line.

    Bytes go straight to the binary stream: a frame is already UTF-8 on the wire,
    so it is written as is, not decoded and re-encoded. One flush per frame (one
    write call), so someone watching sees every frame the moment it arrives.
    """

    def __init__(self, out: BinaryIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout.buffer
        self.broken = False

    def __call__(self, entry: TrafficEntry) -> None:
        if self.broken or entry.direction is not Direction.IN or entry.kind in (Kind.STDERR, Kind.EVENT):
            return
        try:
            self.out.write(frame_bytes(entry))
            self.out.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.broken = True  # the reader went away; keep running, stop printing


def frame_bytes(entry: TrafficEntry) -> bytes:
    """The line printed for a server frame, newline included, in UTF-8."""
    raw = entry.raw
    if entry.kind is Kind.INVALID and not _parses(raw):
        text = raw.decode("utf-8", errors="replace")
        return (
            json.dumps({"invalid": text, "problem": entry.problem}, ensure_ascii=False).encode("utf-8", "replace")
            + b"\n"
        )
    if not raw.isascii():
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:  # printed as text, as before: invalid bytes become U+FFFD
            raw = raw.decode("utf-8", errors="replace").encode("utf-8")
    return raw + b"\n"


def _parses(raw: bytes) -> bool:
    """Whether a frame is JSON we can print as it is (asked only of invalid frames:
    they are rare, so parsing again costs nothing that matters)."""
    try:
        parse_frame(raw)
    except JsonTextError:  # not JSON, too deep, a number too long, the head of an over-long line
        return False
    return True


def _read_stdin(fd: int, send: MemoryObjectSendStream[list[bytes]], token: Any, max_line: int) -> None:
    """In a daemon thread: split stdin into lines with unbuffered reads.

    Each read's complete lines are handed to the event loop in ONE call: a
    hand-over costs a task, a future chain and a self-pipe wake-up, which per
    line was most of pipe's overhead. Typed input still arrives line by line
    (one read, one line), so nothing waits for a chunk to fill. The stream
    holds one batch, so at most about two reads are held ahead of the sender.

    os.read rather than sys.stdin: a daemon thread blocked inside the buffered
    reader would hold its lock and abort the interpreter at exit.
    """
    framer = LineFramer(max_line)  # a longer input line comes out as an OverlongLine: reported, not sent
    try:
        while True:
            chunk = os.read(fd, READ_CHUNK)
            if not chunk:
                break
            lines = framer.feed(chunk)
            if lines:
                anyio.from_thread.run(send.send, lines, token=token)
        tail = framer.flush()
        if tail is not None:
            anyio.from_thread.run(send.send, [tail], token=token)
    except Exception:  # the loop is gone or stdin is unusable: just stop
        pass
    finally:
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(send.close, token=token)


class Pipe:
    """``stdin``/``stdout``: a file descriptor to read and a binary stream to print to (tests)."""

    def __init__(
        self, session: McpSession, ctx: Context, stdin: int | None = None, stdout: BinaryIO | None = None
    ) -> None:
        self.session = session
        self.connection = session.connection
        self.ctx = ctx
        self.stdin = stdin
        self.stdout = stdout
        self.failures: list[int] = []
        # Request ids sent, for the reuse warning: the last SEEN_IDS only (oldest first in
        # sent_order), so a long pipe stays bounded; a late reply comes for a recent request.
        self.sent_ids: set[Any] = set()
        self.sent_order: deque[Any] = deque()
        self.handshaken = False

    def fail(self, code: int, message: str | None = None) -> None:
        self.failures.append(code)
        if message:
            write_err(f"{PROGRAM}: pipe: {message}")

    async def handshake(self) -> int | None:
        """Our own initialize + notifications/initialized (``--era modern``: server/discover,
        the 2026-07-28 era having no handshake); an exit code if it failed."""
        self.handshaken = True
        if self.session.requested_era == "modern":
            return await self.discover()
        params = {
            "protocolVersion": self.ctx.options.protocol_version,
            "capabilities": self.session.client_capabilities(),
            "clientInfo": self.session.client_info,
        }
        self.ctx.step = "initialize"
        pending = await self.connection.send_request("initialize", params, msg_id=HANDSHAKE_ID)
        try:
            result = await pending.wait()
        except RpcError as exc:
            error(f"handshake failed: the server rejected initialize: {exc}")
            return exit_codes.SERVER_FAILURE
        except RequestTimeout as exc:
            error(f"the handshake timed out: no answer to initialize within {exc.seconds:g} s")
            return exit_codes.TIMEOUT
        except ProtocolViolation as exc:
            error(f"handshake failed: {exc}")
            return exit_codes.SERVER_FAILURE
        version = result.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            error(
                f"handshake failed: the server chose protocol version {version!r}, which mcp-inspector does not "
                f"support (supported: {', '.join(LEGACY_VERSIONS)})"
            )
            return exit_codes.SERVER_FAILURE
        await self.connection.notify("notifications/initialized")
        self.ctx.step = ""
        return None

    async def discover(self) -> int | None:
        """The modern era: server/discover sets the version for the transport (MCP-Protocol-Version);
        the input's requests go as they are, so they carry their own ``_meta``."""
        self.ctx.step = "server/discover"
        try:
            await self.session.initialize()
        except RequestTimeout as exc:
            error(f"server/discover timed out: no answer within {exc.seconds:g} s")
            return exit_codes.TIMEOUT
        except (ConnectError, RpcError, ProtocolViolation, TransportFailure) as exc:
            error(f"handshake failed: {exc}")
            return exit_codes.SERVER_FAILURE
        self.ctx.step = ""
        return None

    async def send_line(self, number: int, line: bytes) -> int | None:
        if isinstance(line, OverlongLine):  # only its head was kept: never send a part of a message
            cap = self.ctx.options.max_frame_bytes
            self.fail(exit_codes.USAGE, f"input line {number} skipped: too long: {line.size} bytes (cap {cap})")
            return None
        info = classify(line)
        if info.kind is Kind.INVALID:
            self.fail(exit_codes.USAGE, f"input line {number} skipped: {info.problem}")
            return None
        if info.kind is Kind.BATCH:
            self.fail(
                exit_codes.USAGE,
                f"input line {number} skipped: JSON-RPC batches are not part of MCP; send one message per line",
            )
            return None
        if not self.handshaken:
            if info.kind is Kind.REQUEST and info.method == "initialize":
                self.handshaken = True  # the input brings its own handshake
            else:
                code = await self.handshake()
                if code is not None:
                    return code
        if info.kind is not Kind.REQUEST:
            await self.connection.send_raw(line, info=info)
            return None
        msg_id = info.id  # an int or a str (classify checked): 1 and "1" are distinct
        if msg_id in self.sent_ids:
            self.ctx.warn(
                f"input line {number} reuses id {json.dumps(msg_id)}; a late reply to the earlier request would be "
                "taken for this one's"
            )
        else:
            if len(self.sent_order) >= SEEN_IDS:
                self.sent_ids.discard(self.sent_order.popleft())
            self.sent_ids.add(msg_id)
            self.sent_order.append(msg_id)
        self.ctx.step = f"{info.method} (input line {number})"
        try:
            _, pending = await self.connection.send_raw(line, timeout=self.ctx.options.timeout, info=info)
        except ValueError as exc:  # the same id is still in flight
            self.fail(exit_codes.USAGE, f"input line {number} skipped: {exc}")
            return None
        assert pending is not None
        try:
            await pending.wait()
        except RpcError:
            self.fail(exit_codes.RPC_ERROR)  # the error reply itself is on stdout
        except RequestTimeout as exc:
            self.fail(exit_codes.TIMEOUT, f"input line {number}: {exc}")
        except ProtocolViolation as exc:
            self.fail(exit_codes.SERVER_FAILURE, f"input line {number}: {exc}")
        self.ctx.step = ""
        return None

    async def run(self) -> int:
        printer = FramePrinter(self.stdout)
        for entry in self.ctx.store.since(0):  # frames that came before we got here
            printer(entry)
        self.ctx.store.add_listener(printer)
        send, receive = anyio.create_memory_object_stream[list[bytes]](1)
        fd = self.stdin if self.stdin is not None else sys.stdin.fileno()
        reader = threading.Thread(
            target=_read_stdin,
            args=(fd, send, anyio.lowlevel.current_token(), self.ctx.options.max_frame_bytes),
            name="mcp-inspector stdin",
            daemon=True,
        )
        with anyio.CancelScope() as scope:
            self.connection.add_close_listener(lambda closed: scope.cancel())
            reader.start()
            number = 0
            async with receive:
                async for lines in receive:
                    for line in lines:
                        number += 1
                        if is_blank(line):
                            continue
                        code = await self.send_line(number, line)
                        if code is not None:
                            return code
            if not self.handshaken:  # empty input: still shake hands, so the server is checked
                code = await self.handshake()
                if code is not None:
                    return code
        closed = self.connection.closed
        if closed is not None and scope.cancelled_caught:
            raise ConnectionLost(closed.reason, closed.exit_code, closed.signal, closed.stderr_tail)
        return self.failures[0] if self.failures else exit_codes.OK


async def run_pipe(session: McpSession, ctx: Context) -> int:
    return await Pipe(session, ctx).run()
