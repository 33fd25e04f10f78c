"""A running proxy's session, published live on a Unix socket for viewers (``mcp-inspector attach``).

Where: ``$XDG_RUNTIME_DIR/mcp-inspector/NAME.sock`` (else ``/tmp/mcp-inspector-UID/``), the
directory 0700 and the socket 0600; a directory that is not ours, not a directory (a symbolic
link) or open to others is refused, never repaired. Two proxies with the same name: the second
gets ``NAME-2.sock`` (a socket left by a proxy that is gone is replaced). No TCP.

What: the session file's format, one JSON line at a time (``recording.entry_to_record``): a
header line, then every entry. A viewer that falls behind gets ``{"type": "dropped", "count":
N}`` in place of what it missed; the session's end is ``{"type": "end"}``. The HTTP proxy's
exchanges come as ``{"type": "http", ...}`` lines (``http_feed``) among the entries.

A viewer may send frames into the session (``{"type": "inject", "tag": N, "frame": TEXT}``, see
``inject``): only a peer of our own user (``SO_PEERCRED``, on top of the 0600 socket), only to a
proxy that takes them (``on_inject``); what became of each comes back to that viewer alone,
``{"type": "injected", "tag": N, ...}`` (``reply``, ``sent`` or ``refused``), among the feed's lines.

How the forward path stays first: the store's listener (the recorder thread) encodes each entry
once into a ring bounded in entries and bytes, and returns. Each viewer has a thread of its own
that sends from the ring at its own pace; what the ring dropped before a slow viewer got to it
is counted for that viewer. A viewer that attaches late starts at the ring's oldest line: the
session from its start, as far as the ring reaches.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import socket
import stat
import struct
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base.json_text import dumps_strict, loads_strict
from ..traffic.entry import TrafficEntry
from ..traffic.recording import FORMAT_NAME, FORMAT_VERSION, entry_to_record, record_line

RING_ENTRIES = 100_000
RING_BYTES = 64 << 20
SEND_BATCH = 1000  # lines per send
SOCKET_SUFFIX = ".sock"
SAME_NAME_TRIES = 50
INPUT_LINE = 2 << 20  # bytes of a line a viewer sends us (a frame to inject)
OUTBOX_CAP = 1000  # answers waiting for one viewer


class FeedError(Exception):
    """The live view cannot be published or reached (one line for the user)."""


def socket_dir() -> Path:
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base:
        return Path(base) / "mcp-inspector"
    return Path(tempfile.gettempdir()) / f"mcp-inspector-{os.getuid()}"


def checked_dir(directory: Path | None = None, create: bool = True) -> Path:
    """The socket directory, made 0700 if missing; FeedError if it is not safely ours."""
    directory = directory or socket_dir()
    if create:
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise FeedError(f"cannot make {directory}: {exc.strerror or exc}") from None
    try:
        info = os.lstat(directory)
    except OSError as exc:
        raise FeedError(f"cannot use {directory}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise FeedError(f"{directory} is not a directory (a symbolic link or a file): refused")
    if info.st_uid != os.getuid():
        raise FeedError(f"{directory} belongs to another user (uid {info.st_uid}): refused")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise FeedError(
            f"{directory} is open to other users (mode {stat.S_IMODE(info.st_mode):04o}, must be 0700): refused"
        )
    return directory


def _alive(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fspath(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _bind(directory: Path, name: str) -> tuple[socket.socket, Path, str]:
    """A listening socket named ``name`` (or ``name-2``...), 0600; a stale one of ours is replaced."""
    for number in range(1, SAME_NAME_TRIES + 1):
        taken = name if number == 1 else f"{name}-{number}"
        path = directory / (taken + SOCKET_SUFFIX)
        with contextlib.suppress(FileNotFoundError):
            info = os.lstat(path)
            if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.getuid() or _alive(path):
                continue
            os.unlink(path)  # a socket left by a proxy that is gone
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(os.fspath(path))
        except OSError as exc:
            listener.close()
            if exc.errno == errno.EADDRINUSE:
                continue  # another proxy took it just now
            raise FeedError(f"cannot listen on {path}: {exc.strerror or exc}") from None
        os.chmod(path, 0o600)
        listener.listen(16)
        return listener, path, taken
    raise FeedError(f"{SAME_NAME_TRIES} proxies named {name} are running already")


def _peer_is_us(connection: socket.socket) -> bool:
    """The other end runs as our user (Linux ``SO_PEERCRED``; elsewhere the socket's 0600 mode is the check)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    try:
        _pid, uid, _gid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    except OSError:
        return False
    return bool(uid == os.getuid())


class FeedPublisher:
    """The proxy's end: a store listener (:meth:`publish`), the ring and a thread per viewer."""

    def __init__(
        self,
        name: str,
        header: dict[str, Any],
        directory: Path | None = None,
        ring_entries: int = RING_ENTRIES,
        ring_bytes: int = RING_BYTES,
    ) -> None:
        self._listener, self.path, self.name = _bind(checked_dir(directory), name)
        head = {"type": "header", "format": FORMAT_NAME, "version": FORMAT_VERSION, "started": time.time()}
        head.update(header, name=self.name)
        head.setdefault("pid", os.getpid())  # the proxy's, when it records in a process of its own
        self._header = (dumps_strict(head) + "\n").encode("utf-8")
        self._ring: deque[bytes] = deque()
        self._ring_bytes = 0
        self._first = 0  # index of _ring[0]
        self._next = 0  # index of the next line published
        self.ring_entries, self.ring_bytes = ring_entries, ring_bytes
        self._cond = threading.Condition()
        self._closed = False
        self.viewers = 0  # viewers attached now
        self.dropped = 0  # lines viewers missed, all viewers counted
        #: Called (in a viewer's reader thread) with (viewer, tag, frame text) for each frame a
        #: viewer sends into the session (``inject``); None: this proxy takes none (HTTP).
        self.on_inject: Callable[[int, int, str], None] | None = None
        self._viewer_ids = itertools.count(1)
        self._outbox: dict[int, deque[bytes]] = {}  # lines for one viewer only (answers to its frames)
        threading.Thread(target=self._accept, name="proxy-feed", daemon=True).start()

    def __call__(self, entry: TrafficEntry) -> None:
        self.publish(entry)

    def publish(self, entry: TrafficEntry) -> None:
        self._append((record_line(entry_to_record(entry)) + "\n").encode("utf-8"))

    def publish_line(self, line: str) -> None:
        """An entry already encoded as a session file's line (``recording.record_line``, with its newline)."""
        self._append(line.encode("utf-8"))

    def publish_record(self, record: dict[str, Any]) -> None:
        """A line that is not an entry (``http_feed``'s: what happened to an HTTP exchange)."""
        self._append((dumps_strict(record) + "\n").encode("utf-8"))

    def _append(self, line: bytes) -> None:
        with self._cond:
            self._ring.append(line)
            self._ring_bytes += len(line)
            self._next += 1
            while len(self._ring) > self.ring_entries or (self._ring_bytes > self.ring_bytes and len(self._ring) > 1):
                self._ring_bytes -= len(self._ring.popleft())
                self._first += 1
            self._cond.notify_all()

    def close(self, drain: float = 1.0) -> None:
        """No more entries: viewers get what is left, then the end (waiting up to ``drain`` seconds
        for them to take it); the socket is removed."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.viewers == 0, drain)
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(connection,), name="proxy-viewer", daemon=True).start()

    def answer(self, viewer: int, tag: int, **fields: Any) -> None:
        """Say to ``viewer`` alone what became of its frame ``tag`` (``{"type": "injected", ...}``)."""
        line = (dumps_strict({"type": "injected", "tag": tag, **fields}) + "\n").encode("utf-8")
        with self._cond:
            box = self._outbox.get(viewer)
            if box is not None and len(box) < OUTBOX_CAP:
                box.append(line)
                self._cond.notify_all()

    def _listen(self, connection: socket.socket, viewer: int) -> None:
        """A viewer's lines to us: ``{"type": "inject", "tag": N, "frame": TEXT}``, checked, each
        answered by ``answer`` (refused here, or by the proxy once sent or replied to)."""
        ours = _peer_is_us(connection)
        reader = connection.makefile("rb")
        while True:
            try:
                line = reader.readline(INPUT_LINE + 1)
            except (OSError, ValueError):
                return
            if not line:
                return
            if len(line) > INPUT_LINE:
                self.answer(viewer, 0, refused=f"a line longer than {INPUT_LINE} bytes: the viewer is cut off")
                return
            try:
                record = loads_strict(line)
            except ValueError:
                self.answer(viewer, 0, refused="not a JSON line")
                continue
            tag = record.get("tag") if isinstance(record, dict) else None
            frame = record.get("frame") if isinstance(record, dict) else None
            if type(tag) is not int or record.get("type") != "inject" or type(frame) is not str:
                self.answer(viewer, tag if type(tag) is int else 0, refused='not {"type": "inject", "tag", "frame"}')
            elif not ours:
                self.answer(viewer, tag, refused="the viewer is not the proxy's user")
            elif self.on_inject is None:
                self.answer(viewer, tag, refused="this proxy takes no frames from a viewer (only a stdio proxy does)")
            else:
                self.on_inject(viewer, tag, frame)

    def _serve(self, connection: socket.socket) -> None:
        with self._cond:
            self.viewers += 1
            cursor = self._first  # late attach: from the oldest line the ring holds
            viewer = next(self._viewer_ids)
            outbox = self._outbox[viewer] = deque()
        threading.Thread(target=self._listen, args=(connection, viewer), name="proxy-viewer-in", daemon=True).start()
        try:
            connection.sendall(self._header)
            while True:
                with self._cond:
                    while cursor >= self._next and not self._closed and not outbox:
                        self._cond.wait()
                    answers = list(outbox)
                    outbox.clear()
                    missed = max(0, self._first - cursor)
                    cursor += missed
                    start = cursor - self._first
                    batch = list(itertools.islice(self._ring, start, start + SEND_BATCH))
                    cursor += len(batch)
                    ended = self._closed and cursor >= self._next
                    self.dropped += missed
                if answers:
                    connection.sendall(b"".join(answers))
                if missed:
                    connection.sendall((dumps_strict({"type": "dropped", "count": missed}) + "\n").encode())
                if batch:
                    connection.sendall(b"".join(batch))
                if ended:
                    connection.sendall(b'{"type": "end"}\n')
                    return
        except OSError:
            return  # the viewer went away
        finally:
            with self._cond:
                self.viewers -= 1
                self._outbox.pop(viewer, None)
                self._cond.notify_all()
            with contextlib.suppress(OSError):
                connection.close()
