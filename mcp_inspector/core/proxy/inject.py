"""Frames a viewer sends into a stdio proxy's session (``attach``, the raw frame editor), and their replies.

A viewer's request gets an id of ours, ``mcp-inspector-viewer-TOKEN-N`` (TOKEN random per
proxy), so it cannot collide with an id the host uses; the server's reply to it is taken out of
the stream to the host (the host never sees it), its id put back to the viewer's, and handed to
that viewer only. A notification is written as it is. Both are recorded, marked
``meta["injected"] = "viewer"``.

:class:`Injections` is the bookkeeping (``stdio.StdioProxy`` does the writing, between two of
the host's frames, and the diverting): :meth:`Injections.prepare` checks and rewrites a frame,
:meth:`Injections.divert` recognises a reply to one in a line from the server.
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from ..base.json_text import JsonTextError, dumps_strict, loads_strict, parse_frame

PREFIX = "mcp-inspector-viewer-"
MAX_PENDING = 64  # requests from viewers waiting for the server's reply
MAX_FRAME = 1 << 20  # bytes of a frame a viewer sends
META = {"injected": "viewer"}


class InjectRefused(Exception):
    """The frame is not sent (one line for the viewer)."""


class InjectSink(Protocol):
    """Where the proxy records an injected frame and answers the viewer (``relay.RecordPipe``)."""

    def frame(self, source: str, raw: bytes, meta: dict[str, Any]) -> None: ...

    def answer(self, viewer: int, tag: int, **fields: Any) -> None: ...


@dataclass(slots=True)
class Pending:
    viewer: int
    tag: int
    original: Any  # the viewer's id


class Injections:
    def __init__(self, max_pending: int = MAX_PENDING) -> None:
        self.token = secrets.token_hex(4)
        self.marker = f"{PREFIX}{self.token}-".encode()
        self.max_pending = max_pending
        self._count = 0
        self._pending: dict[str, Pending] = {}
        self._lock = threading.Lock()

    @property
    def active(self) -> bool:
        """A viewer's request waits for its reply (the server's lines are then looked at)."""
        return bool(self._pending)

    def prepare(self, viewer: int, tag: int, text: str) -> tuple[bytes, str | None]:
        """The line to write for a viewer's frame and the id it was given (None: a notification);
        InjectRefused if it is not one request or notification."""
        if len(text.encode("utf-8", "surrogatepass")) > MAX_FRAME:
            raise InjectRefused(f"the frame is larger than {MAX_FRAME} bytes")
        try:
            message = loads_strict(text)
        except JsonTextError as exc:
            raise InjectRefused(f"not JSON: {exc}") from None
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or not isinstance(message.get("method"), str)
        ):
            raise InjectRefused("only a JSON-RPC request or notification (an object with jsonrpc 2.0 and a method)")
        new_id = None
        if "id" in message:
            original = message["id"]
            if type(original) not in (int, str):
                raise InjectRefused("the id must be a string or an integer")
            with self._lock:
                if len(self._pending) >= self.max_pending:
                    raise InjectRefused(f"{self.max_pending} frames from viewers are waiting for a reply already")
                self._count += 1
                new_id = f"{PREFIX}{self.token}-{self._count}"
                self._pending[new_id] = Pending(viewer, tag, original)
            message["id"] = new_id
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        return line.encode("utf-8"), new_id

    def forget(self, new_id: str | None) -> None:
        """The frame was not written after all."""
        if new_id is not None:
            with self._lock:
                self._pending.pop(new_id, None)

    def divert(self, line: bytes) -> tuple[Pending, str] | None:
        """If ``line`` (one whole line from the server) answers a viewer's request: whom, and the
        reply with the viewer's id back; else None (the line goes to the host)."""
        if self.marker not in line:
            return None
        try:
            message, _ = parse_frame(line)  # leniently, as the server's frames are read
        except (JsonTextError, ValueError):
            return None
        if not isinstance(message, dict) or "method" in message or not ("result" in message or "error" in message):
            return None
        new_id = message.get("id")
        if not isinstance(new_id, str):
            return None
        with self._lock:
            pending = self._pending.pop(new_id, None)
        if pending is None:
            return None
        message["id"] = pending.original
        return pending, dumps_strict(message, ensure_ascii=False, separators=(",", ":"))
