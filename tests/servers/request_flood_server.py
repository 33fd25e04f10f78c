"""Hand-written raw JSON-RPC/stdio MCP server (stdlib only) that floods the client with requests.

Usage::

    python tests/servers/request_flood_server.py [--flood-on-start N] [--method M]

A legacy (initialize-handshake) server, one thread reading stdin:

* ``initialize`` answers the proposed ``protocolVersion`` if it knows it, else 2025-11-25;
  ``ping`` -> ``{}``; anything else unknown -> -32601.
* tool ``flood`` {count: integer, method?: string}: writes ``count`` requests of ``method``
  (default ``elicitation/create``, a form asking for ``name``; ``sampling/createMessage`` and
  ``roots/list`` too) in ONE write, ids ``f-1``, ``f-2``, ... (strings: never a client id), then
  answers the call with the text ``"asked <count>"``. Nothing waits for the answers.
* tool ``tally`` {}: what came back for those requests so far, as JSON text:
  ``{"asked": N, "answered": A, "results": R, "errors": E, "codes": {"<code>": n},
  "actions": {"accept": n, ...}, "first_result": "f-K" | null}``.
* ``--flood-on-start N``: the same flood of N right after ``notifications/initialized``.
* Exits 0 on stdin EOF.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
PARAMS = {
    "elicitation/create": lambda i: {
        "mode": "form",
        "message": f"Question {i}: who are you?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    },
    "sampling/createMessage": lambda i: {
        "messages": [{"role": "user", "content": {"type": "text", "text": f"Question {i}"}}],
        "maxTokens": 10,
    },
    "roots/list": lambda i: {},
}
TOOLS = [
    {
        "name": "flood",
        "description": "Send `count` requests of `method` to the client in one write",
        "inputSchema": {
            "type": "object",
            "properties": {"count": {"type": "integer"}, "method": {"type": "string"}},
            "required": ["count"],
        },
    },
    {"name": "tally", "description": "What came back for the flood", "inputSchema": {"type": "object"}},
]


class Server:
    def __init__(self, flood_on_start: int, method: str) -> None:
        self.flood_on_start = flood_on_start
        self.method = method
        self.lock = threading.Lock()
        self.asked = 0
        self.answers: dict[str, dict] = {}  # request id -> the response that answered it
        self.order: list[str] = []

    def send(self, obj) -> None:
        self.write(json.dumps(obj, separators=(",", ":")).encode() + b"\n")

    def write(self, data: bytes) -> None:
        with self.lock:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()

    def flood(self, count: int, method: str) -> None:
        make = PARAMS.get(method, PARAMS["elicitation/create"])
        frames = []
        for _ in range(count):
            self.asked += 1
            frames.append(
                json.dumps(
                    {"jsonrpc": "2.0", "id": f"f-{self.asked}", "method": method, "params": make(self.asked)},
                    separators=(",", ":"),
                ).encode()
            )
        self.write(b"\n".join(frames) + b"\n")

    def tally(self) -> dict:
        codes: dict[str, int] = {}
        actions: dict[str, int] = {}
        results = 0
        first_result = None
        for rid in self.order:
            answer = self.answers[rid]
            if isinstance(answer.get("error"), dict):
                code = str(answer["error"].get("code"))
                codes[code] = codes.get(code, 0) + 1
            else:
                results += 1
                first_result = first_result or rid
                result = answer.get("result")
                action = result.get("action") if isinstance(result, dict) else None
                if isinstance(action, str):
                    actions[action] = actions.get(action, 0) + 1
        return {
            "asked": self.asked,
            "answered": len(self.answers),
            "results": results,
            "errors": sum(codes.values()),
            "codes": codes,
            "actions": actions,
            "first_result": first_result,
        }

    def serve(self) -> None:
        for raw in sys.stdin.buffer:
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(msg, dict):
                continue
            method, rid = msg.get("method"), msg.get("id")
            if method is None:
                if isinstance(rid, str) and rid not in self.answers:
                    self.answers[rid] = msg
                    self.order.append(rid)
            elif method == "notifications/initialized":
                if self.flood_on_start:
                    self.flood(self.flood_on_start, self.method)
            elif rid is not None:
                self.on_request(rid, method, msg.get("params") or {})
        sys.stdout.flush()

    def on_request(self, rid, method: str, params: dict) -> None:
        if method == "initialize":
            version = params.get("protocolVersion")
            self.result(
                rid,
                {
                    "protocolVersion": version if version in VERSIONS else "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "request-flood-server", "version": "1.0.0"},
                },
            )
        elif method == "ping":
            self.result(rid, {})
        elif method == "tools/list":
            self.result(rid, {"tools": TOOLS})
        elif method == "tools/call":
            name, args = params.get("name"), params.get("arguments") or {}
            if name == "flood":
                count = args.get("count")
                count = count if isinstance(count, int) and 0 <= count <= 1_000_000 else 0
                method = args.get("method") if isinstance(args.get("method"), str) else "elicitation/create"
                self.flood(count, method)
                self.result(rid, {"content": [{"type": "text", "text": f"asked {count}"}]})
            elif name == "tally":
                self.result(rid, {"content": [{"type": "text", "text": json.dumps(self.tally())}]})
            else:
                self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})
        else:
            self.send(
                {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"Method not found: {method}"}}
            )

    def result(self, rid, result: dict) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood-on-start", type=int, default=0)
    parser.add_argument("--method", default="elicitation/create")
    args = parser.parse_args()
    Server(args.flood_on_start, args.method).serve()


if __name__ == "__main__":
    main()
