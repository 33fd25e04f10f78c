"""A legacy stdio MCP server (stdlib only) whose schemas hold regexes that backtrack for ever in
Python's ``re`` (tests/cli/test_server_regex_cli.py, tests/tui/test_server_regex_form.py).

    python tests/servers/regex_server.py [--log FILE]

``--log FILE``: each tools/call, elicitation answer and cancellation is appended as one line.

``^(a+)+$`` against ``"a" * 34 + "!"`` takes Python's ``re`` longer than anyone waits (2**34
steps) with the GIL held. Tools:

- ``evil_output``: outputSchema ``{v: {pattern: EVIL}}``; structuredContent ``{v: EVIL_TEXT}``;
- ``evil_names``: outputSchema with ``propertyNames: {pattern: EVIL}`` and ``patternProperties:
  {EVIL: {type: integer}}``, ``additionalProperties: false``; structuredContent ``{EVIL_TEXT: 1}``;
- ``evil_input``: inputSchema ``{q: {type: string, pattern: EVIL}}`` (answers ``ok``);
- ``backref_output``: outputSchema ``{v: {pattern: "^(a)\\1$"}}`` (RE2 has no backreferences):
  structuredContent ``{v: "ab"}``;
- ``ask``: sends ``elicitation/create`` whose requestedSchema has ``name: {pattern: EVIL,
  default: EVIL_TEXT}``, then answers the call with the elicitation's answer as text;
- ``ask_then_hang``: the same elicitation, then the call is never answered.
"""

from __future__ import annotations

import json
import sys
import threading

EVIL = "^(a+)+$"
EVIL_TEXT = "a" * 34 + "!"
LOG = sys.argv[sys.argv.index("--log") + 1] if "--log" in sys.argv else None
out = sys.stdout.buffer
lock = threading.Lock()
waiting: dict[object, object] = {}  # our elicitation id -> the tools/call id it belongs to
hang: set[object] = set()


def log(line: str) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def send(message: dict) -> None:
    with lock:
        try:
            out.write(json.dumps(message).encode() + b"\n")
            out.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass


def result(rid, value: dict) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def obj(properties: dict, **more) -> dict:
    return {"type": "object", "properties": properties, **more}


TOOLS = [
    {"name": "evil_output", "inputSchema": obj({}), "outputSchema": obj({"v": {"type": "string", "pattern": EVIL}})},
    {
        "name": "evil_names",
        "inputSchema": obj({}),
        "outputSchema": obj(
            {},
            propertyNames={"pattern": EVIL},
            patternProperties={EVIL: {"type": "integer"}},
            additionalProperties=False,
        ),
    },
    {"name": "evil_input", "inputSchema": obj({"q": {"type": "string", "pattern": EVIL}})},
    {
        "name": "backref_output",
        "inputSchema": obj({}),
        "outputSchema": obj({"v": {"type": "string", "pattern": r"^(a)\1$"}}),
    },
    {"name": "ask", "inputSchema": obj({})},
    {"name": "ask_then_hang", "inputSchema": obj({})},
]
REQUESTED = obj({"name": {"type": "string", "pattern": EVIL, "default": EVIL_TEXT}})
OUTPUTS = {
    "evil_output": {"v": EVIL_TEXT},
    "evil_names": {EVIL_TEXT: 1},
    "backref_output": {"v": "ab"},
}


def handle(message: dict) -> None:
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method is None and rid in waiting:  # the answer to our elicitation/create
        call = waiting.pop(rid)
        answer = message.get("result", message.get("error"))
        log(f"elicitation answer {json.dumps(answer)}")
        if call not in hang:
            result(call, {"content": [{"type": "text", "text": json.dumps(answer)}]})
        return
    if method == "initialize":
        result(
            rid,
            {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "regex-server", "version": "1"},
            },
        )
    elif method == "notifications/cancelled":
        log(f"cancelled {params.get('requestId')}")
    elif rid is None:
        return
    elif method == "tools/list":
        result(rid, {"tools": TOOLS})
    elif method == "tools/call":
        name = params.get("name")
        log(f"tools/call {name}")
        if name in OUTPUTS:
            structured = OUTPUTS[name]
            result(
                rid, {"content": [{"type": "text", "text": json.dumps(structured)}], "structuredContent": structured}
            )
        elif name in ("ask", "ask_then_hang"):
            ask = f"elicit-{rid}"
            waiting[ask] = rid
            if name == "ask_then_hang":
                hang.add(rid)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ask,
                    "method": "elicitation/create",
                    "params": {"message": "Your name?", "requestedSchema": REQUESTED},
                }
            )
        else:
            result(rid, {"content": [{"type": "text", "text": "ok"}]})
    elif method == "ping":
        result(rid, {})
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
