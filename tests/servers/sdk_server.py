"""Well-behaved MCP fixture server built with the official ``mcp`` SDK (v2 ``MCPServer``), over stdio.

Usage::

    python tests/servers/sdk_server.py

No flags.  Server name ``sdk-fixture`` (version ``1.0.0``).  The SDK speaks both eras:
the legacy ``initialize`` handshake (2024-11-05 .. 2025-11-25) and the 2026-07-28
stateless envelope (``server/discover``, per-request ``_meta``).  Exits on stdin EOF.

Tools:

* ``add(a: int, b: int)`` -> structured output ``{"sum": a+b}`` (declares an
  ``outputSchema``; the result also has a JSON text block).
* ``greet(person: {name: str, address: {city: str, country: str = "FR"}},
  style: "formal"|"casual"|"pirate" = "casual", tags: list[str] = [])`` -> text, e.g.
  ``"Hello, Ada from Paris [x, y]"`` (formal: ``"Good day, ..."``, pirate: ``"Ahoy, ..."``).
  Its inputSchema has a nested object (via ``$defs``/``$ref``), an enum and an array.
* ``progress_task(steps: int = 3, delay: float = 0.05)`` -> sends
  ``notifications/progress`` (progress 1..steps, total steps, message ``"step i"``) when
  the request carries ``_meta.progressToken``; returns text ``"done <steps> steps"``.
* ``log_messages()`` -> sends ``notifications/message`` at debug, info, warning and
  error (logger ``sdk-fixture``, data ``"<level> message"``), skipping levels below the
  one set by ``logging/setLevel`` (default debug); returns text ``"logged <n>"``.
* ``fail(message: str = "something went wrong")`` -> raises ``ToolError`` => result
  with ``isError: true`` and the message as text.

Only ``add`` has an ``outputSchema``/``structuredContent``; the other tools return a
plain text block (``isError: false``).  Capabilities: tools, resources, prompts and
logging (``logging/setLevel`` -> ``{}``), all with ``listChanged: false``.  Requests are
handled concurrently, so responses may come out of order; on stdin EOF any in-flight
request is answered with error -32000 ``Connection closed`` and requests still queued are
dropped unanswered, so keep stdin open until you have your responses.  An unknown tool
name or invalid arguments give an ``isError: true`` result (not a JSON-RPC error).

Resources: ``info://server`` (static, text/plain, ``"sdk fixture server"``);
template ``greeting://{name}`` (text/plain, ``"Hello, <name>!"``).
Prompt: ``review_code(code: str, language: str = "python")`` -> one user message.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, Field

warnings.filterwarnings("ignore")  # the SDK warns that logging is deprecated as of 2026-07-28

server = MCPServer("sdk-fixture", version="1.0.0", instructions="SDK-based fixture server", log_level="WARNING")

LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
min_level = "debug"


async def set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    # MCPServer has no logging/setLevel hook; registering one on the low-level server also
    # makes the SDK advertise the `logging` capability.
    global min_level
    min_level = params.level
    return types.EmptyResult()


server._lowlevel_server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, set_level)


class AddResult(BaseModel):
    sum: int = Field(description="a + b")


class Address(BaseModel):
    city: str
    country: str = "FR"


class Person(BaseModel):
    name: str
    address: Address


@server.tool(description="Add two integers (structured output)")
def add(a: int, b: int) -> AddResult:
    return AddResult(sum=a + b)


@server.tool(description="Greet a person (nested object, enum and array arguments)", structured_output=False)
def greet(person: Person, style: Literal["formal", "casual", "pirate"] = "casual", tags: list[str] = []) -> str:  # noqa: B006 - the SDK reads the default into the schema; never mutated
    hello = {"formal": "Good day", "casual": "Hello", "pirate": "Ahoy"}[style]
    suffix = f" [{', '.join(tags)}]" if tags else ""
    return f"{hello}, {person.name} from {person.address.city}{suffix}"


@server.tool(description="Report progress over `steps` steps", structured_output=False)
async def progress_task(ctx: Context, steps: int = 3, delay: float = 0.05) -> str:
    for i in range(1, steps + 1):
        await anyio.sleep(delay)
        await ctx.report_progress(i, steps, f"step {i}")
    return f"done {steps} steps"


@server.tool(description="Send log notifications at four levels", structured_output=False)
async def log_messages(ctx: Context) -> str:
    sent = 0
    for level in ("debug", "info", "warning", "error"):
        if LEVELS.index(level) >= LEVELS.index(min_level):
            await ctx.log(level, f"{level} message", logger_name="sdk-fixture")
            sent += 1
    return f"logged {sent}"


@server.tool(description="Always fails with a tool error (isError)", structured_output=False)
def fail(message: str = "something went wrong") -> str:
    raise ToolError(message)


@server.resource("info://server", name="server-info", mime_type="text/plain", description="Static info")
def server_info() -> str:
    return "sdk fixture server"


@server.resource("greeting://{name}", name="greeting", mime_type="text/plain", description="Greeting for a name")
def greeting(name: str) -> str:
    return f"Hello, {name}!"


@server.prompt(description="Ask for a code review")
def review_code(code: str, language: str = "python") -> str:
    return f"Please review this {language} code:\n\n{code}"


if __name__ == "__main__":
    server.run("stdio")
