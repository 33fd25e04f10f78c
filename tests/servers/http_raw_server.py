"""A hand-written, misbehaving MCP server over HTTP for the HTTP transport tests.

Binds 127.0.0.1 only, port 0, and prints ``PORT <n>`` on stdout. Plain asyncio
(no framework) so it can cut a stream mid-event, never close one, send a wrong
content type, and so on. Every response closes its connection.

The first path segment picks the behaviour (``http://127.0.0.1:<port>/<mode>``):

- ``ok``: a well-behaved legacy Streamable HTTP server (JSON replies, session id, GET 405).
- ``sse``: like ok, but requests are answered on an SSE stream (a notification first).
- ``html500``: every POST gets 500 with an HTML page; ``endless500``: one that never ends.
- ``cut``: tools/call gets an SSE stream cut in the middle of the reply (no event ids).
- ``wrongtype``: tools/call gets 200 text/plain.
- ``notjson`` / ``otherid``: tools/call gets 200 application/json that is not JSON / answers another id.
- ``expire``: the first session expires: requests (not notifications) with session ``s1`` get 404.
- ``slow``: tools/call streams keep-alive comments for ``slow_ms`` then replies.
- ``silent``: tools/call opens an SSE stream and sends nothing, ever.
- ``huge``: tools/call sends one SSE event of ``huge_bytes`` (default 3 MB), then the reply.
- ``neverclose``: tools/call sends the reply on an SSE stream that then stays open.
- ``resume``: tools/call sends a priming event (id, retry 100, empty data) and closes;
  GET with Last-Event-ID gets the reply. GET without it: 405.
- ``noresume``: like resume, but GET always gets 405.
- ``together``: tools/call is answered only once ``n`` calls are waiting at once.
- ``poll``: like resume, but every GET only primes (a new id) and closes: polling with no reply.
- ``badtools``: tools/list has tools with invalid x-mcp-header annotations; tools/call
  echoes the Mcp-* headers it received.
- ``sseonly``: a 2024-11-05 HTTP+SSE server: POST to the URL gets 404; GET gives an
  ``endpoint`` event, messages POSTed there are answered on the stream.
- ``sseforeign``: HTTP+SSE whose endpoint is on another origin.
- ``ssenoendpoint``: GET opens an SSE stream that never sends the endpoint event.
- ``ssehtml``: GET answers 200 with an HTML page.
- ``modern``: 2026-07-28: checks MCP-Protocol-Version/Mcp-Method/Mcp-Name against the
  body (400 + -32020 when they differ); ``slow_tool`` streams until the client closes.
- ``badredirect`` / ``loop``: POST redirected to a URL with a bad port / to itself forever.
- ``redirect`` / ``redirect-far``: POST answered 307 to ``/ok`` on this origin / on
  ``localhost`` (another origin).
- ``pushget``: GET opens a stream that stays open; tools/call sends a notification on it
  (dropped when no GET stream is open, as the TS SDK does) and replies.
- ``badjson``: tools/call gets an SSE event whose data is not JSON, then the reply.
- ``status400json``: every POST gets 400 with a JSON-RPC error (-32020) body.

With ``--tls`` it also serves the same modes over HTTPS with a self-signed certificate
(prints ``TLSPORT <n>``). ``GET /_log/<mode>`` returns the requests seen for that mode (method, path, headers) as JSON.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import sys
from typing import Any

LOG: dict[str, list[dict[str, Any]]] = {}
STATE: dict[str, Any] = {"sse_queues": {}, "closed_streams": []}  # session counters per mode too
PORT = 0


def reply(msg_id: Any, result: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}).encode()


def error(msg_id: Any, code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}).encode()


def head(status: str, headers: dict[str, str] | None = None, length: int | None = None) -> bytes:
    lines = [f"HTTP/1.1 {status}", "Connection: close"]
    for name, value in (headers or {}).items():
        lines.append(f"{name}: {value}")
    if length is not None:
        lines.append(f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def send_body(
    writer: asyncio.StreamWriter,
    status: str,
    body: bytes = b"",
    content_type: str | None = "application/json",
    headers: dict[str, str] | None = None,
) -> None:
    all_headers = dict(headers or {})
    if content_type and body:
        all_headers["Content-Type"] = content_type
    writer.write(head(status, all_headers, len(body)) + body)
    await writer.drain()


SSE_HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


async def open_sse(writer: asyncio.StreamWriter, headers: dict[str, str] | None = None) -> None:
    writer.write(head("200 OK", {**SSE_HEADERS, **(headers or {})}))
    await writer.drain()


async def event(
    writer: asyncio.StreamWriter, data: bytes, event_id: str | None = None, name: str | None = None
) -> None:
    out = b""
    if name:
        out += b"event: " + name.encode() + b"\n"
    if event_id:
        out += b"id: " + event_id.encode() + b"\n"
    out += b"data: " + data + b"\n\n"
    writer.write(out)
    await writer.drain()


def tools_for(mode: str) -> list[dict]:
    echo = {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
    if mode != "badtools":
        return [echo]
    return [
        {
            "name": "valid_tool",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "priority": {"type": "integer", "x-mcp-header": "Priority"},
                    "note": {"type": "string", "x-mcp-header": "Note"},
                },
            },
        },
        {
            "name": "invalid_empty_header",
            "inputSchema": {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": ""}}},
        },
        {
            "name": "invalid_number_header",
            "inputSchema": {"type": "object", "properties": {"v": {"type": "number", "x-mcp-header": "V"}}},
        },
        {
            "name": "invalid_duplicate",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "string", "x-mcp-header": "Same"},
                    "b": {"type": "string", "x-mcp-header": "same"},
                },
            },
        },
        {
            "name": "invalid_in_items",
            "inputSchema": {
                "type": "object",
                "properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}},
            },
        },
        {
            "name": "invalid_space",
            "inputSchema": {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": "My Region"}}},
        },
    ]


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        raw = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    lines = raw.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    body = b""
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    path = target.split("?", 1)[0]
    parts = [p for p in path.split("/") if p]
    mode = parts[0] if parts else "ok"
    try:
        if mode == "_log":
            await send_body(writer, "200 OK", json.dumps(LOG.get(parts[1], [])).encode())
            return
        LOG.setdefault(mode, []).append(
            {"method": method, "path": target, "headers": headers, "body": body.decode("utf-8", "replace")}
        )
        await route(mode, method, parts, headers, body, writer, reader)
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def route(
    mode: str,
    method: str,
    parts: list[str],
    headers: dict,
    body: bytes,
    writer: asyncio.StreamWriter,
    reader: asyncio.StreamReader,
) -> None:
    if mode == "ssenoendpoint" and method == "GET":
        await open_sse(writer)
        for _ in range(600):  # keep-alives, never an endpoint event
            writer.write(b": waiting\n\n")
            await writer.drain()
            await asyncio.sleep(0.05)
        return
    if mode == "ssehtml" and method == "GET":
        await send_body(writer, "200 OK", b"<html><body><h1>Welcome</h1></body></html>", "text/html")
        return
    if mode in ("sseonly", "sseforeign"):
        await legacy_sse(mode, method, parts, body, writer)
        return
    if mode == "redirect" and method == "POST":
        await send_body(writer, "307 Temporary Redirect", b"", headers={"Location": "/ok"})
        return
    if mode == "badredirect" and method == "POST":
        await send_body(writer, "307 Temporary Redirect", b"", headers={"Location": "http://127.0.0.1:99999/x"})
        return
    if mode == "loop" and method == "POST":
        await send_body(writer, "307 Temporary Redirect", b"", headers={"Location": "/loop"})
        return
    if mode == "redirect-far" and method == "POST":
        await send_body(writer, "307 Temporary Redirect", b"", headers={"Location": f"http://localhost:{PORT}/ok"})
        return
    if method == "DELETE":
        await send_body(writer, "200 OK")
        return
    if method == "GET" and mode == "pushget":
        queue: asyncio.Queue = asyncio.Queue()
        STATE["sse_queues"][mode] = queue
        await open_sse(writer)
        while True:
            await event(writer, await queue.get())
    if method == "GET":
        last = headers.get("last-event-id")
        if mode == "poll" and last:  # 2025-11-25 polling: a new priming event, then close again; never a reply
            count = STATE["poll"] = STATE.get("poll", 0) + 1
            await open_sse(writer)
            writer.write(f"id: poll-{count}\nretry: 100\ndata: \n\n".encode())
            await writer.drain()
            return
        if mode == "resume" and last:
            pending = STATE.get("resume_pending")
            await open_sse(writer)
            await event(writer, b"", "e2")
            if pending is not None:
                await event(
                    writer, reply(pending, {"content": [{"type": "text", "text": f"resumed after {last}"}]}), "e3"
                )
            await asyncio.sleep(30)  # stays open: the client closes it once it has the reply
            return
        await send_body(writer, "405 Method Not Allowed", b"GET not supported", "text/plain")
        return
    if mode == "html500":
        page = (
            b"<html><head><title>500</title></head><body><h1>Internal Server Error</h1><p>"
            + b"x" * 2000
            + b"</p></body></html>"
        )
        await send_body(writer, "500 Internal Server Error", page, "text/html")
        return
    if mode == "endless500":  # an error page that never ends
        writer.write(head("500 Internal Server Error", {"Content-Type": "text/html"}) + b"<html><body><h1>Broken</h1>")
        for _ in range(100_000):
            writer.write(b"<p>" + b"z" * 8000 + b"</p>")
            await writer.drain()
        return
    if mode == "status400json":
        await send_body(
            writer,
            "400 Bad Request",
            error(None, -32020, "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"),
        )
        return
    try:
        message = json.loads(body)
    except ValueError:
        await send_body(writer, "400 Bad Request", error(None, -32700, "Parse error"))
        return
    if isinstance(message, list):  # a 2025-03-26 batch: one JSON array of replies
        replies = [json.loads(reply(item.get("id"), {})) for item in message if isinstance(item, dict) and "id" in item]
        await send_body(writer, "200 OK", json.dumps(replies).encode())
        return
    rpc = message.get("method")
    msg_id = message.get("id")
    if mode == "modern":
        await modern(headers, message, writer)
        return
    session = headers.get("mcp-session-id")
    if rpc == "initialize":
        count = STATE[f"sessions:{mode}"] = STATE.get(f"sessions:{mode}", 0) + 1
        sid = f"s{count}"
        version = message.get("params", {}).get("protocolVersion", "2025-11-25")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": f"raw-{mode}", "version": "1"},
        }
        await send_body(writer, "200 OK", reply(msg_id, result), headers={"Mcp-Session-Id": sid})
        return
    if mode == "expire" and session == "s1" and "id" in message:  # notifications still get 202
        await send_body(writer, "404 Not Found", b"session not found", "text/plain")
        return
    if "id" not in message:
        await send_body(writer, "202 Accepted")
        return
    if rpc == "tools/list":
        await send_body(writer, "200 OK", reply(msg_id, {"tools": tools_for(mode)}))
        return
    if rpc != "tools/call":
        await send_body(writer, "200 OK", reply(msg_id, {}))
        return
    arguments = message.get("params", {}).get("arguments") or {}
    done = reply(msg_id, {"content": [{"type": "text", "text": json.dumps(arguments)}]})
    progress = json.dumps(
        {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "working"}}
    ).encode()
    if mode == "cut":
        await open_sse(writer)
        await event(writer, progress)
        writer.write(b'data: {"jsonrpc":"2.0","id":' + json.dumps(msg_id).encode() + b',"res')
        await writer.drain()
    elif mode == "notjson":
        await send_body(writer, "200 OK", b"{this is not json")
    elif mode == "otherid":
        await send_body(writer, "200 OK", reply("someone-else", {}))
    elif mode == "wrongtype":
        await send_body(writer, "200 OK", b"this is not JSON", "text/plain")
    elif mode == "slow":
        await open_sse(writer)
        steps = int(arguments.get("steps", 10))
        for _ in range(steps):
            writer.write(b": keep-alive\n\n")
            await writer.drain()
            await asyncio.sleep(float(arguments.get("pause", 0.05)))
        await event(writer, done)
    elif mode == "silent":
        await open_sse(writer)
        await asyncio.sleep(60)
    elif mode == "huge":
        await open_sse(writer)
        size = int(arguments.get("huge_bytes", 3 << 20))
        payload = json.dumps(
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x" * size}}
        ).encode()
        for start in range(0, len(payload), 1 << 16):
            writer.write((b"data: " if start == 0 else b"") + payload[start : start + (1 << 16)])
            await writer.drain()
        writer.write(b"\n\n")
        await event(writer, done)
    elif mode == "neverclose":
        await open_sse(writer)
        await event(writer, done)
        for _ in range(600):
            writer.write(b": still here\n\n")
            await writer.drain()
            await asyncio.sleep(0.1)
    elif mode == "together":  # answers only once ``n`` calls are waiting at the same time
        waiting = STATE.setdefault("together", [])
        arrived = asyncio.Event()
        waiting.append(arrived)
        if len(waiting) >= int(arguments.get("n", 2)):
            for other in waiting:
                other.set()
            waiting.clear()
        await arrived.wait()
        await send_body(writer, "200 OK", done)
    elif mode == "poll":
        await open_sse(writer)
        writer.write(b"id: poll-0\nretry: 100\ndata: \n\n")
        await writer.drain()
    elif mode in ("resume", "noresume"):
        STATE["resume_pending"] = msg_id
        await open_sse(writer)
        writer.write(b"id: e1\nretry: 100\ndata: \n\n")
        await writer.drain()
    elif mode == "pushget":
        queue = STATE["sse_queues"].get(mode)
        if queue is not None:  # like the TS SDK: with no standalone stream open, the message is dropped
            note = {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "on the GET stream"},
            }
            await queue.put(json.dumps(note).encode())
        await send_body(writer, "200 OK", done)
    elif mode == "badjson":
        await open_sse(writer)
        await event(writer, b"{not json")
        await event(writer, done)
    elif mode == "badtools":
        mirrored = {k: v for k, v in headers.items() if k.startswith("mcp-")}
        await send_body(writer, "200 OK", reply(msg_id, {"content": [{"type": "text", "text": json.dumps(mirrored)}]}))
    elif mode == "sse":
        await open_sse(writer)
        await event(writer, progress, "p1")
        await event(writer, done, "p2")
    else:
        await send_body(writer, "200 OK", done)


async def modern(headers: dict, message: dict, writer: asyncio.StreamWriter) -> None:
    msg_id = message.get("id")
    params = message.get("params") or {}
    meta = params.get("_meta") or {}
    version = meta.get("io.modelcontextprotocol/protocolVersion")
    problems = []
    if headers.get("mcp-protocol-version") != version:
        problems.append(f"MCP-Protocol-Version {headers.get('mcp-protocol-version')!r} != body {version!r}")
    if headers.get("mcp-method") != message.get("method"):
        problems.append(f"Mcp-Method {headers.get('mcp-method')!r} != {message.get('method')!r}")
    if message.get("method") == "tools/call" and headers.get("mcp-name") != params.get("name"):
        problems.append(f"Mcp-Name {headers.get('mcp-name')!r} != {params.get('name')!r}")
    if "mcp-session-id" in headers:
        problems.append("a session id was sent")
    if problems:
        await send_body(writer, "400 Bad Request", error(msg_id, -32020, "Header mismatch: " + "; ".join(problems)))
        return
    if message.get("method") == "tools/call" and params.get("name") == "slow_tool":
        await open_sse(writer)
        try:
            for _ in range(600):
                writer.write(b": working\n\n")
                await writer.drain()
                await asyncio.sleep(0.05)
        except ConnectionError:
            STATE["closed_streams"].append(msg_id)
            LOG.setdefault("modern", []).append(
                {"method": "CLOSED", "path": "", "headers": {}, "body": json.dumps(msg_id)}
            )
        return
    await send_body(
        writer, "200 OK", reply(msg_id, {"resultType": "complete", "content": [{"type": "text", "text": "modern ok"}]})
    )


async def legacy_sse(mode: str, method: str, parts: list[str], body: bytes, writer: asyncio.StreamWriter) -> None:
    if method == "GET" and len(parts) == 1:
        queue: asyncio.Queue = asyncio.Queue()
        STATE["sse_queues"][mode] = queue
        await open_sse(writer)
        endpoint = f"/{mode}/messages?session=abc" if mode == "sseonly" else f"http://localhost:{PORT}/{mode}/messages"
        await event(writer, endpoint.encode(), name="endpoint")
        while True:
            data = await queue.get()
            if data is None:
                return  # the server ends the stream
            await event(writer, data, name="message")
    if method == "POST" and len(parts) == 2 and parts[1] == "messages":
        queue = STATE["sse_queues"].get(mode)
        await send_body(writer, "202 Accepted", b"Accepted", "text/plain")
        message = json.loads(body)
        if queue is None or "id" not in message:
            return
        rpc = message.get("method")
        if rpc == "initialize":
            result = {
                "protocolVersion": "2024-11-05",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw-sse", "version": "1"},
            }
        elif rpc == "tools/list":
            result = {"tools": tools_for(mode)}
        elif rpc == "tools/call" and (message.get("params") or {}).get("name") == "goodbye":
            await queue.put(reply(message["id"], {"content": []}))
            await queue.put(None)
            return
        else:
            result = {"content": [{"type": "text", "text": "sse ok"}]} if rpc == "tools/call" else {}
        await queue.put(reply(message["id"], result))
        return
    await send_body(writer, "404 Not Found", b"Not Found", "text/plain")


def self_signed_context(directory: str) -> ssl.SSLContext:
    """A TLS context with a fresh self-signed certificate for 127.0.0.1 (no CA trusts it)."""
    import datetime
    import ipaddress
    import os

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    with open(cert_path, "wb") as out:
        out.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as out:
        out.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context


async def main() -> None:
    """Prints ``PORT <n>``; with ``--tls`` then ``TLSPORT <n>`` (the same modes over HTTPS, self-signed)."""
    global PORT
    import tempfile

    server = await asyncio.start_server(handle, "127.0.0.1", 0, limit=1 << 20)
    PORT = server.sockets[0].getsockname()[1]
    print(f"PORT {PORT}", flush=True)
    servers = [server]
    with tempfile.TemporaryDirectory() as directory:
        if "--tls" in sys.argv:
            tls = await asyncio.start_server(handle, "127.0.0.1", 0, limit=1 << 20, ssl=self_signed_context(directory))
            print(f"TLSPORT {tls.sockets[0].getsockname()[1]}", flush=True)
            servers.append(tls)
        await asyncio.gather(*(s.serve_forever() for s in servers))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
