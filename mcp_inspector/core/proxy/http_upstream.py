"""The HTTP proxy's way upstream: one raw HTTP/1.1 connection per host connection, spoken with ``h11``.

The host's connection carries one exchange at a time (``h11`` serves them in turn), so the
upstream needs no more than one connection for it: no pool to look it up in, no request object
to build. :meth:`Upstream.send_request` writes the request head and body in one ``send`` (the
body is in hand: the proxy reads it whole), :meth:`Upstream.events` parses what comes back as it
arrives. The connection is opened on first use and opened anew when the upstream closed it (an
answer with ``Connection: close``, a keep-alive it let expire, an exchange cut short); a request
on a reused connection that the upstream turns out to have closed before answering anything is
sent once more on a fresh one (the upstream cannot have seen it: as a browser does).
"""

from __future__ import annotations

import contextlib
import select
import ssl
import time

import anyio
import anyio.abc
import h11

READ_SIZE = 1 << 16
CONNECT_TIMEOUT = 30.0
WRITE_TIMEOUT = 30.0
BIG_WRITE = 1 << 16  # bytes past which a send may wait for the upstream to read: bounded by WRITE_TIMEOUT
IDLE_CHECK = 0.5  # seconds idle after which a kept connection is checked before reuse (closed by the upstream?)
MAX_HEAD = 1 << 20  # bytes of a response head

#: What the upstream can do to an exchange: fail to connect, close, send garbage, time out.
ERRORS = (OSError, TimeoutError, anyio.EndOfStream, anyio.BrokenResourceError, h11.RemoteProtocolError)


class UpstreamClosed(anyio.EndOfStream):
    """The upstream closed the connection before it answered (``h11``'s ``ConnectionClosed``)."""


class Upstream:
    """The upstream connection of one host connection (not shared: one exchange at a time)."""

    def __init__(self, host: str, port: int, ssl_context: ssl.SSLContext | None, tls_host: str) -> None:
        self._host = host
        self._port = port
        self._ssl_context = ssl_context
        self._tls_host = tls_host
        self._stream: anyio.abc.ByteStream | None = None
        self._conn: h11.Connection | None = None
        self._idle_since = 0.0
        self._reused = False  # this exchange went on a kept connection (may be closed under us)
        self._sent: tuple[h11.Request, bytes] = (h11.Request(method="GET", target="/", headers=[("host", "-")]), b"")

    async def _connect(self) -> None:
        with anyio.fail_after(CONNECT_TIMEOUT):
            if self._ssl_context is not None:
                self._stream = await anyio.connect_tcp(
                    self._host, self._port, ssl_context=self._ssl_context, tls_hostname=self._tls_host, tls=True
                )
            else:
                self._stream = await anyio.connect_tcp(self._host, self._port)
        self._conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)

    async def send_request(self, request: h11.Request, body: bytes) -> None:
        """The request head and ``body`` in one send; a kept connection found closed is replaced first."""
        self._reused = self._stream is not None
        if self._stream is not None and time.monotonic() - self._idle_since > IDLE_CHECK and self._closed_by_peer():
            await self.aclose()
            self._reused = False
        if self._stream is None:
            await self._connect()
        assert self._stream is not None and self._conn is not None
        conn = self._conn
        data = conn.send(request) or b""
        if body:
            data += conn.send(h11.Data(data=body)) or b""
        data += conn.send(h11.EndOfMessage()) or b""
        self._sent = (request, body)
        try:
            await self._send(data)
        except (anyio.BrokenResourceError, OSError):
            if not self._reused:
                raise
            await self._retry()

    async def _send(self, data: bytes) -> None:
        assert self._stream is not None
        if len(data) > BIG_WRITE:
            with anyio.fail_after(WRITE_TIMEOUT):
                await self._stream.send(data)
        else:
            await self._stream.send(data)

    async def _retry(self) -> None:
        """Send the request again on a fresh connection (the kept one was closed before it answered)."""
        await self.aclose()
        request, body = self._sent
        await self.send_request(request, body)
        self._reused = False

    async def next_events(self) -> list[h11.Event]:
        """The response's next events: all that the next read of the upstream made whole (a
        ``Response`` first, then ``Data``..., the last batch ending with ``EndOfMessage``, after
        which the connection is kept for the next exchange, or closed). Raises one of ``ERRORS``
        when the upstream breaks off."""
        assert self._stream is not None and self._conn is not None
        conn = self._conn
        batch: list[h11.Event] = []
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                if batch:
                    return batch
                try:
                    data = await self._stream.receive(READ_SIZE)
                except anyio.EndOfStream:
                    data = b""
                except (anyio.BrokenResourceError, OSError):
                    if not self._reused:
                        raise
                    data = b""
                if not data and self._reused:  # a kept connection closed under us, nothing answered: once more
                    await self._retry()
                    assert self._conn is not None
                    conn = self._conn
                    continue
                self._reused = False  # the upstream has answered something: no retry from here on
                conn.receive_data(data)
                continue
            if isinstance(event, h11.InformationalResponse):
                continue  # 1xx: not passed on (as httpcore did)
            if isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                raise UpstreamClosed
            assert isinstance(event, (h11.Response, h11.Data, h11.EndOfMessage))
            batch.append(event)
            if isinstance(event, h11.EndOfMessage):
                if conn.our_state is h11.DONE and conn.their_state is h11.DONE:
                    conn.start_next_cycle()
                    self._idle_since = time.monotonic()
                else:
                    await self.aclose()
                return batch

    def _closed_by_peer(self) -> bool:
        """A kept connection the upstream has closed (or sent something unasked on) reads ready."""
        assert self._stream is not None
        sock = self._stream.extra(anyio.abc.SocketAttribute.raw_socket, None)
        if sock is None:
            return False
        with contextlib.suppress(OSError, ValueError):
            return bool(select.select([sock], [], [], 0)[0])
        return True

    async def aclose(self) -> None:
        """Close the connection (an exchange cut short cannot leave it reusable)."""
        stream, self._stream, self._conn = self._stream, None, None
        if stream is not None:
            with contextlib.suppress(Exception):
                await anyio.aclose_forcefully(stream)
