"""A legacy stdio MCP server (stdlib only) with one tool whose inputSchema is huge.

    python tests/servers/big_schema_server.py [--properties N]

``wide``: an inputSchema of N (default 20,000) required string properties ``p0`` ... (each with
its own description, as generated schemas have); the call answers ``ok``.
"""

from __future__ import annotations

import json
import sys

COUNT = int(sys.argv[sys.argv.index("--properties") + 1]) if "--properties" in sys.argv else 20_000
out = sys.stdout.buffer
WIDE = {
    "type": "object",
    "properties": {f"p{i}": {"type": "string", "description": f"field {i}"} for i in range(COUNT)},
    "required": [f"p{i}" for i in range(COUNT)],
}


def send(message: dict) -> None:
    try:
        out.write(json.dumps(message).encode() + b"\n")
        out.flush()
    except (BrokenPipeError, ValueError, OSError):
        pass


def handle(message: dict) -> None:
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if rid is None:
        return
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "big-schema", "version": "1"},
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [{"name": "wide", "inputSchema": WIDE}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "ok"}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})


def main() -> None:
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            handle(message)


if __name__ == "__main__":
    main()
