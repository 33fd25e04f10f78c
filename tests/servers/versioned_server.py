"""An ``mcp`` SDK (2.3.0) server in two versions, for ``snapshot`` / ``diff`` tests.

Usage::

    python tests/servers/versioned_server.py --version 1   # or 2

Server name ``versioned-fixture``, version ``1.0.0`` or ``2.0.0``, over stdio. Between 1 and 2:

* tool ``search(query: str, limit: int = 10)`` -> in 2 ``limit`` has ``ge=1`` (a minimum added)
  and a new required argument ``scope: "all"|"mine"`` (an enum);
* tool ``delete_all()`` exists only in 1 (removed);
* tool ``convert(value: int, unit: "m"|"km"|"mi")`` -> in 2 ``unit`` loses ``"mi"`` and ``value``
  is widened to ``float``; its description changes;
* tool ``ping_me()`` is new in 2, ``describe()`` differs only in its description;
* prompt ``summarise(text, style="short")`` -> in 2 ``style`` is required;
* resource template ``item://{id}`` is kept; resource ``info://v1`` becomes ``info://v2``.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from pydantic import Field

warnings.filterwarnings("ignore")

parser = argparse.ArgumentParser()
parser.add_argument("--version", choices=("1", "2"), required=True)
V2 = parser.parse_args().version == "2"

server = MCPServer("versioned-fixture", version="2.0.0" if V2 else "1.0.0", log_level="WARNING")

if V2:

    @server.tool(description="Search the items", structured_output=False)
    def search(query: str, scope: Literal["all", "mine"], limit: Annotated[int, Field(ge=1)] = 10) -> str:
        return query

    @server.tool(description="Convert a length between units (now with decimals)", structured_output=False)
    def convert(value: float, unit: Literal["m", "km"]) -> str:
        return str(value)

    @server.tool(description="Answer pong", structured_output=False)
    def ping_me() -> str:
        return "pong"

    @server.tool(description="Describe the server, briefly", structured_output=False)
    def describe() -> str:
        return "v2"

    @server.prompt(description="Summarise a text")
    def summarise(text: str, style: str) -> str:
        return text

    @server.resource("info://v2", name="info", mime_type="text/plain")
    def info() -> str:
        return "v2"

else:

    @server.tool(description="Search the items", structured_output=False)
    def search(query: str, limit: int = 10) -> str:
        return query

    @server.tool(description="Delete everything", structured_output=False)
    def delete_all() -> str:
        return "gone"

    @server.tool(description="Convert a length between units", structured_output=False)
    def convert(value: int, unit: Literal["m", "km", "mi"]) -> str:
        return str(value)

    @server.tool(description="Describe the server", structured_output=False)
    def describe() -> str:
        return "v1"

    @server.prompt(description="Summarise a text")
    def summarise(text: str, style: str = "short") -> str:
        return text

    @server.resource("info://v1", name="info", mime_type="text/plain")
    def info() -> str:
        return "v1"


@server.resource("item://{id}", name="item", mime_type="text/plain")
def item(id: str) -> str:
    return id


if __name__ == "__main__":
    server.run("stdio")
