"""MCP fixture server over HTTP, built with the official ``mcp`` SDK (2.3.0), on 127.0.0.1 only.

Usage::

    python tests/servers/sdk_http_server.py [--mode stateful|stateless|json|sse] [--json]
        [--port 0] [--path /mcp] [--resumable] [--retry-interval MS] [--idle-timeout S] [--access-log]
        [--exit-on-eof]

Prints ``PORT <n>`` (then ``URL <url>``) on stdout once the server accepts connections;
logs go to stderr. Stops on SIGTERM/SIGINT, and with ``--exit-on-eof`` when its stdin reaches
EOF (the test fixtures keep a pipe open, so a killed test run does not leave it behind).

Modes (the transport):

* ``stateful`` (default): Streamable HTTP at ``/mcp`` with ``Mcp-Session-Id`` sessions;
  POST replies are SSE streams (``text/event-stream``), GET opens the standalone stream,
  DELETE ends the session, an unknown session id gets 404.
* ``stateless``: Streamable HTTP, no sessions (each POST stands alone; server-to-client
  requests such as elicitation are impossible, notifications still ride the reply stream).
* ``json``: stateful, but POST replies are plain ``application/json`` bodies (notifications
  sent during a request are not delivered). ``--json`` with ``--mode stateless`` gives
  stateless JSON.
* ``sse``: the legacy HTTP+SSE transport (2024-11-05): ``GET /sse`` streams an
  ``endpoint`` event naming ``/messages/?session_id=...``; POST messages there (202).

Eras: the SDK serves BOTH protocol eras on the same Streamable HTTP endpoint and routes
each request by its ``MCP-Protocol-Version`` header: absent or a handshake version
(2024-11-05 .. 2025-11-25) -> the legacy session flow (``initialize`` first); a
2026-07-28 header -> the single-exchange modern flow (no ``initialize``, no session,
``server/discover``, per-request ``_meta`` envelope with
``io.modelcontextprotocol/protocolVersion`` etc.; ``inputRequests`` results for
elicitation). There is no SDK option to serve only one era over HTTP.

``--resumable`` keeps every SSE event in memory (event ids ``<stream>-<n>``, ``Last-Event-ID``
replay; the SDK sends id'd priming events only to sessions initialized at >= 2025-11-25);
``--retry-interval`` makes the server send ``retry:`` and lets tools close the stream.
``--access-log`` writes ``ACCESS <METHOD> <path> <status> <JSON-RPC methods> from <ip>:<port>``
on stderr as each response starts (the client port tells the TCP connections apart).
Modern-era log notifications are sent only when the request's ``_meta`` carries
``io.modelcontextprotocol/logLevel``; progress needs ``_meta.progressToken`` in both eras.

Server name ``sdk-http-fixture`` (version ``1.0.0``). Capabilities: tools (legacy
``listChanged: true``), resources, prompts, logging.

Tools:

* ``echo(text: str)`` -> text ``text`` (unchanged).
* ``add(a: int, b: int)`` -> structured output ``{"sum": a+b}`` (plus a JSON text block).
* ``progress_and_log(steps: int = 3, delay: float = 0.0)`` -> sends ``steps``
  ``notifications/progress`` (progress 1..steps, total steps, message ``"step i"``; only
  when the request carries ``_meta.progressToken``) and one ``notifications/message``
  per step (level info, logger ``sdk-http-fixture``, data ``"step i"``) before replying
  text ``"done <steps> steps"``.
* ``change_tools()`` -> registers a new tool ``extra_<n>`` (n = 1, 2, ...; it returns text
  ``"extra <n>"``), sends ``notifications/tools/list_changed`` (legacy: on the session;
  2026-07-28: to ``subscriptions/listen`` streams) and replies text ``"added extra_<n>"``.
* ``ask_user()`` -> elicits ``{"name": str}`` with message ``"What is your name?"``
  (legacy: an ``elicitation/create`` request to the client, needs the client's
  ``elicitation`` capability and a stateful session; 2026-07-28: an ``input_required``
  result with ``inputRequests``, answered by retrying with ``inputResponses``). Replies
  ``"Hello, <name>!"`` on accept, ``"declined"`` / ``"cancelled"`` otherwise.
* ``sleep(seconds: float = 1.0)`` -> waits, then text ``"slept <seconds>"`` (for
  cancellation tests).
* ``close_stream()`` -> (needs ``--resumable --retry-interval`` and a session initialized at
  protocol version >= 2025-11-25, otherwise the SDK never closes the stream) sends
  ``"before"`` as a log message, closes the SSE response stream (after a priming event
  ``id: <n>`` / ``data:`` / ``retry: <ms>``), sends ``"after"``, then replies text
  ``"resumed"``: a client must GET with ``Last-Event-ID`` to get the log messages and the reply.

Resources: ``info://server`` (text/plain, ``"sdk http fixture server"``); template
``greeting://{name}`` -> ``"Hello, <name>!"``. Prompt: ``greet_prompt(name: str)`` -> one
user message ``"Please greet <name>."``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import socket
import sys
import threading
import warnings
from collections import OrderedDict
from typing import Annotated, Any

import anyio
import mcp_types as types
import uvicorn
from mcp.server.elicitation import AcceptedElicitation, ElicitationResult
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore")  # logging is deprecated as of 2026-07-28; the fixture still sends it

NAME = "sdk-http-fixture"
server = MCPServer(NAME, version="1.0.0", instructions="SDK HTTP fixture server", log_level="WARNING")
low = server._lowlevel_server
# Legacy sessions learn that the tool list can change (the modern era derives it by itself).
low.create_initialization_options = functools.partial(  # type: ignore[method-assign]
    low.create_initialization_options, NotificationOptions(tools_changed=True)
)


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    return types.EmptyResult()


low.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)


class AddResult(BaseModel):
    sum: int = Field(description="a + b")


class Name(BaseModel):
    name: str


@server.tool(description="Echo the text back", structured_output=False)
def echo(text: str) -> str:
    return text


@server.tool(description="Add two integers (structured output)")
def add(a: int, b: int) -> AddResult:
    return AddResult(sum=a + b)


@server.tool(description="Send progress and log notifications, then reply", structured_output=False)
async def progress_and_log(ctx: Context, steps: int = 3, delay: float = 0.0) -> str:
    for i in range(1, steps + 1):
        if delay:
            await anyio.sleep(delay)
        await ctx.report_progress(i, steps, f"step {i}")
        await ctx.log("info", f"step {i}", logger_name=NAME)
    return f"done {steps} steps"


extra_count = 0


@server.tool(description="Add a tool and send notifications/tools/list_changed", structured_output=False)
async def change_tools(ctx: Context) -> str:
    global extra_count
    extra_count += 1
    n = extra_count
    server.add_tool(
        lambda: f"extra {n}", name=f"extra_{n}", description=f"Added by change_tools ({n})", structured_output=False
    )
    if (ctx.protocol_version or "") >= "2026":
        await ctx.notify_tools_changed()
    else:
        await ctx.session.send_tool_list_changed()
    return f"added extra_{n}"


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool(description="Ask the client for a name (elicitation)", structured_output=False)
async def ask_user(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
    if isinstance(answer, AcceptedElicitation):
        return f"Hello, {answer.data.name}!"
    return "declined" if answer.action == "decline" else "cancelled"


@server.tool(description="Wait, then reply (for cancellation)", structured_output=False)
async def sleep(seconds: float = 1.0) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds}"


@server.tool(description="Close the SSE response stream mid-call (needs --resumable)", structured_output=False)
async def close_stream(ctx: Context) -> str:
    await ctx.log("info", "before", logger_name=NAME)
    await ctx.close_sse_stream()
    await anyio.sleep(0.2)
    await ctx.log("info", "after", logger_name=NAME)
    return "resumed"


@server.resource("info://server", name="server-info", mime_type="text/plain", description="Static info")
def server_info() -> str:
    return "sdk http fixture server"


@server.resource("greeting://{name}", name="greeting", mime_type="text/plain", description="Greeting for a name")
def greeting(name: str) -> str:
    return f"Hello, {name}!"


@server.prompt(description="Ask to greet someone")
def greet_prompt(name: str) -> str:
    return f"Please greet {name}."


class MemoryEventStore(EventStore):
    """Every event kept in memory (bounded), replayed after a Last-Event-ID of the same stream."""

    def __init__(self, limit: int = 10_000) -> None:
        self.events: OrderedDict[str, tuple[str, Any]] = OrderedDict()
        self.limit = limit
        self.counter = 0

    async def store_event(self, stream_id: str, message: Any) -> str:
        self.counter += 1
        event_id = f"{stream_id}-{self.counter}"
        self.events[event_id] = (stream_id, message)
        while len(self.events) > self.limit:
            self.events.popitem(last=False)
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        if last_event_id not in self.events:
            return None
        stream_id = self.events[last_event_id][0]
        found = False
        for event_id, (sid, message) in list(self.events.items()):
            if found and sid == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
            if event_id == last_event_id:
                found = True
        return stream_id


def build_app(args: argparse.Namespace) -> Any:
    if args.mode == "sse":
        return server.sse_app()
    return server.streamable_http_app(
        streamable_http_path=args.path,
        json_response=args.mode == "json" or args.json,
        stateless_http=args.mode == "stateless",
        event_store=MemoryEventStore() if args.resumable else None,
        retry_interval=args.retry_interval,
        session_idle_timeout=args.idle_timeout,
    )


def access_logged(app: Any) -> Any:
    """ASGI wrapper: one stderr line per HTTP request when its response starts:
    ``ACCESS <METHOD> <path> <status> <JSON-RPC methods in the body, or -> from <client ip>:<port>``
    (the client port tells which TCP connection carried the request)."""
    import re

    async def wrapper(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        body = bytearray()

        async def receive_logged() -> Any:
            message = await receive()
            if message["type"] == "http.request" and len(body) < 65536:
                body.extend(message.get("body", b""))
            return message

        async def send_logged(message: Any) -> None:
            if message["type"] == "http.response.start":
                methods = re.findall(rb'"method"\s*:\s*"([^"]*)"', bytes(body)) or [b"-"]
                client = scope.get("client") or ("?", 0)
                sys.stderr.write(
                    f"ACCESS {scope['method']} {scope['path']} {message['status']} "
                    f"{','.join(m.decode(errors='replace') for m in methods)} "
                    f"from {client[0]}:{client[1]}\n"
                )
                sys.stderr.flush()
            await send(message)

        await app(scope, receive_logged, send_logged)

    return wrapper


async def serve(args: argparse.Namespace) -> None:
    # proto IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY on accepted sockets only when the listening
    # socket says TCP (with proto 0, Nagle + delayed ACKs made every keep-alive request take 40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    port = sock.getsockname()[1]
    app = build_app(args)
    config = uvicorn.Config(
        access_logged(app) if args.access_log else app,
        log_level="warning",
        lifespan="on",
        timeout_graceful_shutdown=1,
        access_log=False,
    )
    uv = uvicorn.Server(config)

    async def announce() -> None:
        while not uv.started:
            await anyio.sleep(0.01)
        path = "/sse" if args.mode == "sse" else args.path
        sys.stdout.write(f"PORT {port}\nURL http://127.0.0.1:{port}{path}\n")
        sys.stdout.flush()

    if args.exit_on_eof:

        def watch_stdin() -> None:
            while sys.stdin.buffer.read(65536):
                pass
            uv.should_exit = True  # the parent is gone (or closed the pipe): stop

        threading.Thread(target=watch_stdin, daemon=True).start()

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await uv.serve(sockets=[sock])
        tg.cancel_scope.cancel()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("stateful", "stateless", "json", "sse"), default="stateful")
    parser.add_argument("--json", action="store_true", help="JSON replies instead of SSE (with --mode stateless)")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--path", default="/mcp")
    parser.add_argument("--resumable", action="store_true", help="keep SSE events for Last-Event-ID replay")
    parser.add_argument("--retry-interval", type=int, default=None, help="SSE retry: value in ms")
    parser.add_argument("--exit-on-eof", action="store_true", help="stop when stdin reaches EOF (the parent died)")
    parser.add_argument("--access-log", action="store_true", help="an ACCESS line per HTTP request on stderr")
    parser.add_argument("--idle-timeout", type=float, default=1800.0, help="stateful session idle timeout (s)")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(serve, args)


if __name__ == "__main__":
    main()
