"""Minimal raw MCP stdio server for benchmarks (stdlib only, as fast as possible).

``python bench/servers/minimal_server.py`` -- no flags.  Answers ``initialize`` (echoes the
proposed protocolVersion, capabilities ``{"tools": {}}``), ignores notifications, serves
``tools/list`` (one tool ``add`` {a, b}) and ``tools/call`` ``add`` -> text ``str(a+b)``.
Any other request gets -32601.  Exits 0 on stdin EOF.
"""

import json
import sys

TOOLS = {
    "tools": [
        {
            "name": "add",
            "description": "Add two numbers",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        }
    ]
}
out, dumps, loads = sys.stdout.buffer, json.dumps, json.loads
for line in sys.stdin.buffer:
    msg = loads(line)
    if "id" not in msg:
        continue
    method, params = msg.get("method"), msg.get("params") or {}
    if method == "tools/call":
        a = params["arguments"]
        reply = {"result": {"content": [{"type": "text", "text": str(a["a"] + a["b"])}]}}
    elif method == "tools/list":
        reply = {"result": TOOLS}
    elif method == "initialize":
        reply = {
            "result": {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "minimal-server", "version": "1.0.0"},
            }
        }
    else:
        reply = {"error": {"code": -32601, "message": f"Method not found: {method}"}}
    reply["jsonrpc"], reply["id"] = "2.0", msg["id"]
    out.write(dumps(reply).encode() + b"\n")
    out.flush()
