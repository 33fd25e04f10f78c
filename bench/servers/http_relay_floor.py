"""The floor of an HTTP relay in Python: a process in the middle that does the least it can.

    python bench/servers/http_relay_floor.py --mode tcp|h11 --url UPSTREAM

Listens on 127.0.0.1 (a free port), says ``listening on http://127.0.0.1:PORT/PATH`` on stderr
(as ``mcp-inspector proxy --listen`` does) and serves until killed. Per host connection it opens
one connection to the upstream's host and port, then:

* ``tcp``: copies bytes both ways as they come (asyncio ``Protocol``s, no parsing, no awaits):
  the cost of any extra process, two more socket hops and event-loop wake-ups per round trip.
* ``h11``: parses each request with ``h11`` (server side), writes it upstream with a second
  ``h11`` connection (client side: ``Host`` replaced, ``Accept-Encoding`` dropped), parses the
  response and writes it back chunk by chunk: the least an HTTP-aware relay does, still with no
  recording, no session bookkeeping, no error handling beyond closing.

No TLS, no keep-alive loss handling: a bench helper, not a proxy. ``bench_proxy.py`` shows the
proxy against both.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from urllib.parse import urlsplit

import h11

READ_SIZE = 1 << 16


class _Pipe(asyncio.Protocol):
    """One side of a byte relay: what it receives is written to ``peer``'s transport."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.peer: _Pipe | None = None
        self.pending: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        peer = self.peer
        if peer is not None and peer.transport is not None:
            peer.transport.write(data)
        else:
            self.pending.append(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.peer is not None and self.peer.transport is not None:
            self.peer.transport.close()


async def tcp_relay(host: str, port: int) -> asyncio.AbstractServer:
    loop = asyncio.get_running_loop()

    class Downstream(_Pipe):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            transport.pause_reading()  # type: ignore[attr-defined]
            loop.create_task(self._connect())

        async def _connect(self) -> None:
            up = _Pipe()
            try:
                await loop.create_connection(lambda: up, host, port)
            except OSError:
                assert self.transport is not None
                self.transport.close()
                return
            up.peer, self.peer = self, up
            assert self.transport is not None and up.transport is not None
            for data in self.pending:
                up.transport.write(data)
            self.pending.clear()
            self.transport.resume_reading()  # type: ignore[attr-defined]

    return await loop.create_server(Downstream, "127.0.0.1", 0)


async def h11_relay(host: str, port: int, host_header: bytes) -> asyncio.AbstractServer:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(host, port)
        down = h11.Connection(h11.SERVER)
        up = h11.Connection(h11.CLIENT)
        try:
            while True:
                while True:  # the request
                    event = down.next_event()
                    if event is h11.NEED_DATA:
                        data = await reader.read(READ_SIZE)
                        down.receive_data(data)
                        continue
                    if isinstance(event, h11.Request):
                        headers = [(b"host", host_header)] + [
                            (k, v) for k, v in event.headers if k not in (b"host", b"accept-encoding")
                        ]
                        up_writer.write(up.send(h11.Request(method=event.method, target=event.target, headers=headers)))
                    elif isinstance(event, h11.Data):
                        up_writer.write(up.send(h11.Data(data=event.data)))
                    elif isinstance(event, h11.EndOfMessage):
                        up_writer.write(up.send(h11.EndOfMessage()))
                        break
                    else:  # closed
                        return
                while True:  # the response
                    event = up.next_event()
                    if event is h11.NEED_DATA:
                        up.receive_data(await up_reader.read(READ_SIZE))
                        continue
                    if isinstance(event, h11.Response):
                        headers = [(k, v) for k, v in event.headers if k not in (b"connection", b"transfer-encoding")]
                        writer.write(down.send(h11.Response(status_code=event.status_code, headers=headers)))
                    elif isinstance(event, h11.Data):
                        writer.write(down.send(h11.Data(data=event.data)))
                    elif isinstance(event, h11.EndOfMessage):
                        writer.write(down.send(h11.EndOfMessage()))
                        break
                    else:
                        return
                if down.our_state is h11.MUST_CLOSE:
                    return
                down.start_next_cycle()
                if up.our_state is h11.MUST_CLOSE or up.their_state is h11.MUST_CLOSE:
                    up_writer.close()
                    up_reader, up_writer = await asyncio.open_connection(host, port)
                    up = h11.Connection(h11.CLIENT)
                else:
                    up.start_next_cycle()
        except (h11.ProtocolError, OSError, ConnectionError):
            return
        finally:
            writer.close()
            up_writer.close()

    return await asyncio.start_server(serve, "127.0.0.1", 0)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=("tcp", "h11"), required=True)
    parser.add_argument("--url", required=True)
    args = parser.parse_args()
    parts = urlsplit(args.url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    if args.mode == "tcp":
        server = await tcp_relay(host, port)
    else:
        server = await h11_relay(host, port, parts.netloc.encode())
    ours = server.sockets[0].getsockname()
    sys.stderr.write(f"listening on http://127.0.0.1:{ours[1]}{parts.path}\n")
    sys.stderr.flush()
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
