"""The viewer's end of a proxy's live feed (``feed``): find running proxies, read one's session.

The feed comes from another process of the same user, but it is read like a file from
outside all the same: every line through ``json_text.loads_strict`` and the session file's
field checks (``recording.parse_record``), no line past ``MAX_LINE`` bytes, an unreadable
line skipped and counted.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..base.json_text import dumps_strict, loads_strict
from ..traffic.entry import TrafficEntry
from ..traffic.recording import FORMAT_NAME, MAX_LINE, parse_record
from . import http_feed
from .feed import SOCKET_SUFFIX, FeedError, checked_dir, socket_dir
from .http_feed import HttpOp

MAX_HEADER = 1 << 20
CONNECT_TIMEOUT = 2.0


@dataclass(slots=True)
class Dropped:
    """Lines this viewer missed (it fell behind the proxy's ring)."""

    count: int


@dataclass(slots=True)
class Ended:
    """The proxy ended the session (or the connection was lost: ``lost``)."""

    lost: bool = False


@dataclass(slots=True)
class Injected:
    """What became of a frame this viewer sent (``FeedReader.send``, tag ``tag``): the server's
    ``reply`` (its id back to the one sent), ``sent`` (a notification), or ``refused`` (why)."""

    tag: int
    reply: str | None = None
    sent: bool = False
    refused: str | None = None


FeedEvent = TrafficEntry | HttpOp | Injected | Dropped | Ended


class LiveFeed(Protocol):
    """What a viewer needs of a proxy's feed (:class:`FeedReader` is one)."""

    header: dict[str, Any]

    def events(self) -> Iterator[FeedEvent]: ...

    def send(self, frame: str) -> int: ...

    def close(self) -> None: ...


@dataclass(slots=True)
class RunningProxy:
    name: str
    path: Path
    header: dict[str, Any]

    def describe(self) -> str:
        server = self.header.get("server") or ""
        return f"{self.name}  pid {self.header.get('pid', '?')}  {server}"


class FeedReader:
    """One connection to a proxy's feed: its header, then :meth:`events`."""

    def __init__(self, path: Path, timeout: float = CONNECT_TIMEOUT) -> None:
        self.path = path
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.settimeout(timeout)
        try:
            self._socket.connect(os.fspath(path))
            self._file = self._socket.makefile("rb")
            first = self._file.readline(MAX_HEADER + 1)
        except OSError as exc:
            self._socket.close()
            raise FeedError(f"cannot attach to {path}: {exc.strerror or exc}") from None
        try:
            header = loads_strict(first)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
            self.close()
            raise FeedError(f"{path} is not an mcp-inspector proxy")
        self.header: dict[str, Any] = header
        self.skipped = 0
        self._socket.settimeout(None)
        self._tags = itertools.count(1)
        self._send_lock = threading.Lock()

    def send(self, frame: str) -> int:
        """Send ``frame`` (JSON-RPC text) into the host's session; its tag (the ``Injected`` event
        that answers it has it). A deliberate act: the server sees it as the host's (``inject``).
        FeedError if the proxy is gone."""
        tag = next(self._tags)
        line = (dumps_strict({"type": "inject", "tag": tag, "frame": frame}) + "\n").encode("utf-8", "surrogatepass")
        try:
            with self._send_lock:
                self._socket.sendall(line)
        except OSError as exc:
            raise FeedError(f"cannot send to the proxy: {exc.strerror or exc}") from None
        return tag

    def events(self) -> Iterator[FeedEvent]:
        """Entries as they come (blocking), ``HttpOp`` for what the HTTP proxy's exchanges did (``http_feed``),
        ``Dropped`` where this viewer fell behind, ``Ended`` last."""
        while True:
            try:
                line = self._file.readline(MAX_LINE + 1)
            except (OSError, ValueError):
                yield Ended(lost=True)
                return
            if not line:
                yield Ended(lost=True)
                return
            if len(line) > MAX_LINE:
                self.skipped += 1
                while line and not line.endswith(b"\n"):
                    line = self._file.readline(1 << 20)
                continue
            try:
                record = loads_strict(line)
                if isinstance(record, dict) and record.get("type") == "dropped":
                    count = record.get("count")
                    yield Dropped(count if type(count) is int else 0)
                    continue
                if isinstance(record, dict) and record.get("type") == "end":
                    yield Ended()
                    return
                if isinstance(record, dict) and record.get("type") == "injected":
                    yield _injected(record)
                    continue
                if isinstance(record, dict) and record.get("type") == http_feed.TYPE:
                    yield http_feed.parse(record)
                    continue
                parsed = parse_record(record)
            except ValueError:
                self.skipped += 1
                continue
            if isinstance(parsed, TrafficEntry):
                yield parsed

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._socket.close()


def _injected(record: dict[str, Any]) -> Injected:
    tag, reply, refused = record.get("tag"), record.get("reply"), record.get("refused")
    if type(tag) is not int or not isinstance(reply, (str, type(None))) or not isinstance(refused, (str, type(None))):
        raise ValueError("an answer to a frame sent with fields of the wrong type")
    return Injected(tag, reply, record.get("sent") is True, refused)


def running_proxies(directory: Path | None = None) -> list[RunningProxy]:
    """The proxies publishing a live view now (a socket left by one that is gone is not listed)."""
    directory = directory or socket_dir()
    if not os.path.lexists(directory):  # no proxy ever ran here
        return []
    directory = checked_dir(directory, create=False)
    found = []
    for path in sorted(directory.glob("*" + SOCKET_SUFFIX)):
        try:
            reader = FeedReader(path, timeout=1.0)
        except FeedError:
            continue
        found.append(RunningProxy(path.name.removesuffix(SOCKET_SUFFIX), path, reader.header))
        reader.close()
    return found


def find_proxy(name: str | None, directory: Path | None = None) -> RunningProxy:
    """The proxy named ``name``, or the only one running; FeedError (one line) otherwise."""
    running = running_proxies(directory)
    if name is not None:
        for proxy in running:
            if proxy.name == name:
                return proxy
        names = ", ".join(p.name for p in running) or "none"
        raise FeedError(f"no proxy named {name!r} is running (running: {names})")
    if len(running) == 1:
        return running[0]
    if not running:
        raise FeedError("no proxy is running (start one: mcp-inspector proxy -- SERVER_COMMAND)")
    raise FeedError(f"{len(running)} proxies are running: name one ({', '.join(p.name for p in running)})")
