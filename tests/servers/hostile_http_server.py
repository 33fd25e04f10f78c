"""A hostile MCP server over HTTP for tests/integration/test_http_hostile*.py.

Binds 127.0.0.1 only, port 0, prints ``PORT <n>`` on stdout, and exits when its
stdin closes (the test run died). Plain asyncio, so it can send what no framework
would: absurd SSE fields, bombs, streams that never end, headers that never finish.

It speaks just enough legacy Streamable HTTP (JSON replies, a session id, GET 405,
DELETE 200) for the CLI to get through ``initialize`` and ``tools/list``; the first
path segment picks how it misbehaves (``http://127.0.0.1:<port>/<mode>``):

- ``ok``: nothing hostile.
- ``retryhuge`` / ``retrylong``: tools/call gets an SSE priming event (an id, empty data)
  with ``retry:`` 10^12 / a 5000-digit number, then the stream closes; a GET with
  ``Last-Event-ID`` gets the reply.
- ``standaloneretry``: the standalone GET stream sends ``retry:`` with 5000 digits and a
  ``notifications/message`` in the same chunk, then stays open.
- ``endlessjson``: tools/call gets 200 application/json whose body never ends (spaces,
  as fast as the client reads).
- ``gzipjson``: tools/call gets a gzip-encoded JSON reply that inflates to 1 GB (the
  reply, then whitespace).
- ``gzipsse`` / ``gzipsse200``: tools/call gets a gzip-encoded SSE stream: one event of 1 GB /
  200 MB, then the reply. ``badgzip``: a corrupt gzip body; ``manygzip``: six gzip layers.
- ``session``: initialize answers with an ``Mcp-Session-Id`` of 60 KB.
- ``sessionlatin``: the session id has a non-ASCII character (obs-text, which h11 accepts).
- ``echo401``: tools/call gets 401 with an HTML page echoing the request target and headers, and a
  60 KB ``WWW-Authenticate``; ``ansi500``: 500 with terminal escape sequences in the body.
- ``badutf8``: tools/call gets SSE events with invalid UTF-8 in their data.
- ``flood``: the standalone GET stream sends notifications as fast as the client reads.
- ``slowheaders`` / ``cutheaders`` / ``badchunk`` / ``bigheader``: tools/call gets response
  headers that never end (a byte every 0.2 s) / are cut off / a bad chunk size / a 1 MB header.
- ``slowcall``: tools/call is answered after 12 s (``/slowcall/<seconds>``: that many).
- ``bigother``: tools/call's SSE stream first carries a 2 MB reply to another id, then 1.5 s
  later the real reply.
- ``notifstream``: every notification gets 200 with an SSE stream that stays open (not 202).
- ``utf8id``: tools/call gets a priming event whose id is not ASCII, then the stream ends.
- ``poll0``: tools/call gets a priming event with ``retry: 0`` and ends; every GET with
  ``Last-Event-ID`` the same with a new id, never the reply. ``GET /_polls``: how many so far.
- ``pingflood``: the standalone GET sends ping requests as fast as the client reads; tools/call
  takes 5 s.
- ``ssepingflood``: HTTP+SSE whose stream floods ping requests after ``initialized``; replies
  go on the stream, tools/call's after 5 s.
- ``s101`` / ``s103`` / ``s204`` / ``s304`` / ``s999``: tools/call gets that status (103 then 200).
- ``floodslow``: the standalone GET floods (as ``flood``) and tools/call takes 5 s.
- ``endpointfile`` / ``endpointbad`` / ``endpointhuge``: a 2024-11-05 HTTP+SSE server
  (POST to the URL gets 404) whose ``endpoint`` event is a ``file://`` URI / a URI
  with a control character / a 3 MB path on the same origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import zlib
from typing import Any

PORT = 0
STATE: dict[str, Any] = {}
SESSION = "hostile-session-1"


def reply(msg_id: Any, result: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode()


def head(status: str, headers: dict[str, str] | None = None, length: int | None = None, close: bool = True) -> bytes:
    lines = [f"HTTP/1.1 {status}"]
    if close:
        lines.append("Connection: close")
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def send(
    writer: asyncio.StreamWriter,
    status: str,
    body: bytes = b"",
    kind: str = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    extra = dict(headers or {})
    if body:
        extra["Content-Type"] = kind
    writer.write(head(status, extra, len(body)) + body)
    await writer.drain()


SSE = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


def answer(mode: str, message: dict) -> dict | None:
    method = message.get("method")
    if method == "initialize":
        return {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "logging": {}},
            "serverInfo": {"name": f"hostile-{mode}", "version": "1.0"},
        }
    if method == "tools/list":
        return {
            "tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]
        }
    if method == "tools/call":
        return {"content": [{"type": "text", "text": "the reply"}]}
    if method == "ping":
        return {}
    return None


def gzip_bomb(prefix: bytes, inflated: int) -> bytes:
    """A gzip member that inflates to ``prefix`` followed by whitespace, ``inflated`` bytes in all."""
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    parts = [packer.compress(prefix)]
    block = b" " * (1 << 20)
    left = inflated - len(prefix)
    while left > 0:
        piece = block if left >= len(block) else block[:left]
        parts.append(packer.compress(piece))
        left -= len(piece)
    parts.append(packer.flush())
    return b"".join(parts)


BOMBS: dict[str, bytes] = {}


def gzip_compress(data: bytes) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    return packer.compress(data) + packer.flush()


async def legacy_sse(mode: str, method: str, body: bytes, writer: asyncio.StreamWriter) -> None:
    if method == "POST":
        await send(writer, "404 Not Found", b"Not Found", "text/plain")
        return
    writer.write(head("200 OK", SSE))
    if mode == "endpointfile":
        endpoint = b"file:///etc/passwd"
    elif mode == "endpointbad":
        endpoint = b"/messages?x=1\x07y"
    else:
        endpoint = b"/messages/" + b"a" * (3 << 20)
    writer.write(b"event: endpoint\ndata: " + endpoint + b"\n\n")
    await writer.drain()
    await asyncio.sleep(30)


async def legacy_ping_flood(method: str, parts: list[str], body: bytes, writer: asyncio.StreamWriter) -> None:
    """HTTP+SSE whose stream floods ping requests; messages POSTed to /ssepingflood/messages get
    202 and their replies go on the stream (tools/call's after 5 s)."""
    if method == "POST" and len(parts) == 1:
        await send(writer, "404 Not Found", b"Not Found", "text/plain")
        return
    if method == "POST":
        await send(writer, "202 Accepted")
        message = json.loads(body)
        if isinstance(message, dict) and "method" in message and "id" in message:

            async def later() -> None:
                if message["method"] == "tools/call":
                    await asyncio.sleep(5)
                result = answer("ssepingflood", message)
                STATE["replies"].append(
                    reply(message["id"], result)
                    if result is not None
                    else json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {}}).encode()
                )

            asyncio.ensure_future(later())
        return
    STATE["replies"] = []
    STATE["flooding"] = False
    writer.write(head("200 OK", SSE) + b"event: endpoint\ndata: /ssepingflood/messages\n\n")
    await writer.drain()
    count = 0
    while True:
        block = []
        while STATE["replies"]:
            block.append(b"event: message\ndata: " + STATE["replies"].pop(0) + b"\n\n")
        flood = bool(STATE.get("flooding"))
        for _ in range(200 if flood else 0):
            count += 1
            block.append(b'event: message\ndata: {"jsonrpc":"2.0","id":"p%d","method":"ping"}\n\n' % count)
        writer.write(b"".join(block))
        await writer.drain()
        if not flood:
            await asyncio.sleep(0.01)


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    lines = raw.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    headers[":target"] = target  # echo401 quotes it
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    parts = [p for p in target.split("?", 1)[0].split("/") if p]
    mode = parts[0] if parts else "ok"
    try:
        await route(mode, method, headers, body, writer, parts)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def route(
    mode: str, method: str, headers: dict[str, str], body: bytes, writer: asyncio.StreamWriter, parts: list[str]
) -> None:
    if mode == "ssepingflood":
        if method == "POST" and b'"notifications/initialized"' in body:
            STATE["flooding"] = True  # from now on, as a session would
        await legacy_ping_flood(method, parts, body, writer)
        return
    if mode.startswith("endpoint"):
        await legacy_sse(mode, method, body, writer)
        return
    if method == "DELETE":
        await send(writer, "200 OK")
        return
    if method == "GET":
        last = headers.get("last-event-id")
        if mode == "poll0" and last:  # a new priming event with retry 0, never the reply
            STATE["polls"] = STATE.get("polls", 0) + 1
            writer.write(head("200 OK", SSE) + b"id: poll-%d\nretry: 0\ndata: \n\n" % STATE["polls"])
            await writer.drain()
            return
        if mode == "_polls":
            await send(writer, "200 OK", json.dumps(STATE.get("polls", 0)).encode())
            return
        if mode in ("retryhuge", "retrylong") and last:
            writer.write(head("200 OK", SSE))
            writer.write(b"data: " + reply(2, answer(mode, {"method": "tools/call"}) or {}) + b"\n\n")
            await writer.drain()
            return
        if mode == "pingflood":  # server requests as fast as the client reads: each wants an answer
            writer.write(head("200 OK", SSE))
            count = 0
            while True:
                block = []
                for _ in range(200):
                    count += 1
                    block.append(b'data: {"jsonrpc":"2.0","id":"p%d","method":"ping"}\n\n' % count)
                writer.write(b"".join(block))
                await writer.drain()
        if mode in ("flood", "floodslow"):
            writer.write(head("200 OK", SSE))
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "flood " * 20},
            }
            frame = b"data: " + json.dumps(note).encode() + b"\n\n"
            block = frame * 200
            while True:
                writer.write(block)
                await writer.drain()
        if mode == "standaloneretry":
            writer.write(head("200 OK", SSE))
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "after the long retry"},
            }
            writer.write(b"retry: " + b"9" * 5000 + b"\n\ndata: " + json.dumps(note).encode() + b"\n\n")
            await writer.drain()
            await asyncio.sleep(60)
            return
        await send(writer, "405 Method Not Allowed", b"", "text/plain")
        return
    try:
        message = json.loads(body)
    except ValueError:
        await send(writer, "400 Bad Request", b"not JSON", "text/plain")
        return
    if not isinstance(message, dict) or "id" not in message:
        if mode == "notifstream":  # a notification gets a stream that never ends (the spec says 202)
            writer.write(head("200 OK", SSE))
            await writer.drain()
            await asyncio.sleep(120)
            return
        await send(writer, "202 Accepted")
        return
    msg_id = message["id"]
    rpc = message.get("method")
    if mode == "echo401" and rpc == "tools/call":
        seen = "; ".join(f"{name}: {value}" for name, value in sorted(headers.items()))
        await send(
            writer,
            "401 Unauthorized",
            f"<html><body><p>Unauthorized. You sent: {seen}</p></body></html>".encode(),
            "text/html",
            {"WWW-Authenticate": 'Bearer realm="x", error="invalid_token", ' + "x" * (60 << 10)},
        )
        return
    if mode == "ansi500" and rpc == "tools/call":
        await send(
            writer,
            "500 Internal Server Error",
            b"oops \x1b[2J\x1b]0;pwned\x07\x1b[31mred\x1b[0m \x9b31m done",
            "text/plain",
        )
        return
    if mode in ("s101", "s103", "s204", "s304", "s999") and rpc == "tools/call":
        code = mode[1:]
        if code == "103":
            writer.write(b"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n")
            await send(
                writer, "200 OK", reply(msg_id, answer(mode, message) or {}), headers={"Mcp-Session-Id": SESSION}
            )
            return
        if code == "101":
            writer.write(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
            await writer.drain()
            await asyncio.sleep(30)
            return
        writer.write(head(f"{code} Whatever", {"Content-Type": "application/json"}, 0))
        await writer.drain()
        return
    if mode == "slowheaders" and rpc == "tools/call":
        writer.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        while True:
            writer.write(b"a")
            await writer.drain()
            await asyncio.sleep(0.2)
    if mode == "cutheaders" and rpc == "tools/call":
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: appl")
        await writer.drain()
        return
    if mode == "badchunk" and rpc == "tools/call":
        writer.write(
            head("200 OK", {"Content-Type": "text/event-stream", "Transfer-Encoding": "chunked"}) + b"zz\r\nhello\r\n"
        )
        await writer.drain()
        await asyncio.sleep(1)
        return
    if mode == "bigheader" and rpc == "tools/call":
        writer.write(b"HTTP/1.1 200 OK\r\nX-Big: " + b"b" * (1 << 20) + b"\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(1)
        return
    if mode in ("floodslow", "pingflood") and rpc == "tools/call":
        await asyncio.sleep(5)
    if mode == "slowcall" and rpc == "tools/call":
        await asyncio.sleep(float(parts[1]) if len(parts) > 1 else 12)
    session = {"Mcp-Session-Id": SESSION}
    if rpc == "initialize" and mode == "session":
        session = {"Mcp-Session-Id": "s" * (60 << 10)}
    if rpc == "initialize" and mode == "sessionlatin":
        session = {"Mcp-Session-Id": "caf\xe9-session"}
    if mode == "badutf8" and rpc == "tools/call":
        writer.write(head("200 OK", {**SSE, **session}))
        writer.write(
            b'data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"\xff\xfe '
            b'bad"}}\n\n'
        )
        writer.write(
            b'data: {"jsonrpc":"2.0","id":'
            + json.dumps(msg_id).encode()
            + b',"result":{"content":[{"type":"text","text":"bad \xc3\x28 utf8"}]}}\n\n'
        )
        await writer.drain()
        return
    if rpc == "tools/call":
        if mode == "bigother":  # a 2 MB reply to another id first, the real reply 1.5 s later
            writer.write(head("200 OK", {**SSE, **session}))
            other = reply(999, {"content": [{"type": "text", "text": "x" * (2 << 20)}]})
            writer.write(b"data: " + other + b"\n\n")
            await writer.drain()
            await asyncio.sleep(1.5)
            writer.write(b"data: " + reply(msg_id, answer(mode, message) or {}) + b"\n\n")
            await writer.drain()
            return
        if mode == "utf8id":  # a priming event whose id is not ASCII, then the stream ends
            writer.write(head("200 OK", {**SSE, **session}) + "id: caf\u00e9-1\nretry: 100\ndata: \n\n".encode())
            await writer.drain()
            return
        if mode == "poll0":
            writer.write(head("200 OK", {**SSE, **session}) + b"id: prime-0\nretry: 0\ndata: \n\n")
            await writer.drain()
            return
        if mode in ("retryhuge", "retrylong"):
            digits = b"1" + b"0" * 12 if mode == "retryhuge" else b"9" * 5000
            writer.write(head("200 OK", {**SSE, **session}))
            writer.write(b"id: prime-1\nretry: " + digits + b"\ndata: \n\n")
            await writer.drain()
            return
        if mode == "endlessjson":
            writer.write(
                head("200 OK", {"Content-Type": "application/json", "Transfer-Encoding": "chunked", **session})
            )
            chunk = b" " * (64 << 10)
            frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
            while True:
                writer.write(frame)
                await writer.drain()
        if mode in ("gzipsse", "gzipsse200"):
            key = mode
            bomb = BOMBS.get(key)
            if bomb is None:
                size = (1 << 30) if mode == "gzipsse" else (200 << 20)
                packer = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
                pieces = [packer.compress(b"data: ")]
                block = b"x" * (1 << 20)
                for _ in range(size >> 20):
                    pieces.append(packer.compress(block))
                pieces.append(packer.compress(b"\n\ndata: " + reply(msg_id, answer(mode, message) or {}) + b"\n\n"))
                pieces.append(packer.flush())
                bomb = BOMBS[key] = b"".join(pieces)
            writer.write(head("200 OK", {**SSE, "Content-Encoding": "gzip", **session}, len(bomb)) + bomb)
            await writer.drain()
            return
        if mode == "badgzip":
            writer.write(
                head("200 OK", {"Content-Type": "application/json", "Content-Encoding": "gzip", **session}, 20)
                + b"\x1f\x8b\x08\x00garbage-garbage!"
            )
            await writer.drain()
            return
        if mode == "manygzip":
            data = reply(msg_id, answer(mode, message) or {})
            for _ in range(6):
                data = gzip_compress(data)
            writer.write(
                head(
                    "200 OK",
                    {"Content-Type": "application/json", "Content-Encoding": ", ".join(["gzip"] * 6), **session},
                    len(data),
                )
                + data
            )
            await writer.drain()
            return
        if mode == "gzipjson":
            bomb = BOMBS.get("json")
            if bomb is None:
                bomb = BOMBS["json"] = gzip_bomb(reply(msg_id, answer(mode, message) or {}), 1 << 30)
            writer.write(
                head("200 OK", {"Content-Type": "application/json", "Content-Encoding": "gzip", **session}, len(bomb))
                + bomb
            )
            await writer.drain()
            return
    result = answer(mode, message)
    if result is None:
        data = json.dumps(
            {"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": "Method not found"}}
        ).encode()
    else:
        data = reply(msg_id, result)
    await send(writer, "200 OK", data, headers=session)


async def watch_stdin() -> None:
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.buffer.read)


async def main() -> None:
    global PORT
    server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=1 << 20)
    PORT = server.sockets[0].getsockname()[1]
    print(f"PORT {PORT}", flush=True)
    async with server:
        serving = asyncio.ensure_future(server.serve_forever())
        await watch_stdin()
        serving.cancel()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main())
