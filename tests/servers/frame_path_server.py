"""Fixture server for the frame path: over-long lines, deep frames, replies racing
their request, duplicate replies, batches, early server requests, a detached
grandchild (stdlib only).

Usage::

    python tests/servers/frame_path_server.py [--early-request] [--detach PIDFILE] [--go-file PATH]

Answers ``initialize`` (the proposed version if it is a legacy one, else
2025-11-25), ``ping``, ``tools/list`` and ``tools/call``; other requests -> -32601.
Replies from the client are ignored. Exits on stdin EOF.

* ``--early-request``: before the initialize result, sends the request
  ``roots/list`` (id ``"early"``) and a ``ping`` (id ``"p"``).
* ``--detach PIDFILE``: at start, spawns a grandchild in a new session (out of
  reach of the client's process-group signals) that keeps stdout and stderr open
  for 30 s and writes its pid to PIDFILE.
* ``--go-file PATH``: a request line longer than 64 KiB is answered from its first
  bytes (text ``"early answer"``), before the rest is read; the server then waits
  until PATH exists before reading on (the client's write is blocked meanwhile).

Tools (``tools/call`` by name; every result is text):

* ``long`` {bytes, stream?}: writes a line of ``bytes`` ``x`` (no newline for the
  whole of it, in 1 MiB writes) to stdout, or to stderr when ``stream`` is
  ``"stderr"``; then the newline and the result ``"after long"``.
* ``huge`` {bytes}: a result whose text is ``bytes`` ``x`` (one line).
* ``deep`` {depth}: writes ``depth`` ``[`` and a newline, then the result ``"after deep"``.
* ``deep-reply`` {depth, id_last}: the reply itself nests ``depth`` levels (in
  ``structuredContent``); with ``id_last`` its ``id`` is its last member, after the result.
* ``dup``: the result ``"dup"`` twice (same id).
* ``batch``: the result inside a batch (with a ``notifications/message``).
* ``crash`` {bytes}: a stderr line of ``bytes`` ``e``, then exit code 3, no answer.
* ``echo`` {text}.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TOOLS = [
    {"name": n, "inputSchema": {"type": "object"}}
    for n in ("long", "huge", "deep", "deep-reply", "dup", "batch", "crash", "echo")
]
out = sys.stdout.buffer


def write(data: bytes, stream=None) -> None:
    stream = stream or out
    stream.write(data)
    stream.flush()


def send(obj) -> None:
    write(json.dumps(obj).encode() + b"\n")


def text(msg_id, value: str) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "result": {"content": [{"type": "text", "text": value}]}}


def long_line(size: int, stream) -> None:
    block = b"x" * (1 << 20)
    left = size
    while left > 0:
        write(block[:left], stream)
        left -= len(block)


def handle(msg: dict, early: bool) -> None:
    method = msg.get("method")
    msg_id = msg.get("id")
    if method is None or "id" not in msg:
        return
    if method == "initialize":
        proposed = (msg.get("params") or {}).get("protocolVersion")
        if early:
            send({"jsonrpc": "2.0", "id": "early", "method": "roots/list"})
            send({"jsonrpc": "2.0", "id": "p", "method": "ping"})
        send(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "result": {
                    "protocolVersion": proposed if proposed in VERSIONS else "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "frame-path", "version": "1"},
                },
            }
        )
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg_id, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        params = msg.get("params") or {}
        name = params.get("name")
        args = params.get("arguments") or {}
        if name == "long":
            stream = sys.stderr.buffer if args.get("stream") == "stderr" else out
            long_line(int(args["bytes"]), stream)
            write(b"\n", stream)
            send(text(msg_id, "after long"))
        elif name == "huge":
            send(text(msg_id, "x" * int(args["bytes"])))
        elif name == "deep":
            write(b"[" * int(args["depth"]) + b"\n")
            send(text(msg_id, "after deep"))
        elif name == "deep-reply":
            depth = int(args["depth"])
            result = b'{"content":[],"structuredContent":{"a":' + b"[" * depth + b"]" * depth + b"}}"
            ident = json.dumps(msg_id).encode()
            if args.get("id_last"):
                write(b'{"jsonrpc":"2.0","result":' + result + b',"id":' + ident + b"}\n")
            else:
                write(b'{"jsonrpc":"2.0","id":' + ident + b',"result":' + result + b"}\n")
        elif name == "dup":
            send(text(msg_id, "dup"))
            send(text(msg_id, "dup"))
        elif name == "batch":
            send(
                [
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/message",
                        "params": {"level": "info", "data": "in a batch"},
                    },
                    text(msg_id, "batched"),
                ]
            )
        elif name == "crash":
            write(b"e" * int(args["bytes"]) + b"\n", sys.stderr.buffer)
            os._exit(3)
        elif name == "echo":
            send(text(msg_id, str(args.get("text"))))
        else:
            send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})
    else:
        send({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})


ID_AT_START = re.compile(rb'^\{"jsonrpc":"2\.0","id":(\d+),')


def main() -> None:
    args = sys.argv[1:]
    early = "--early-request" in args
    go_file = args[args.index("--go-file") + 1] if "--go-file" in args else None
    if "--detach" in args:
        pid_file = args[args.index("--detach") + 1]
        child = subprocess.Popen(
            [sys.executable, "-c", "import time; time.sleep(30)"], start_new_session=True, stdin=subprocess.DEVNULL
        )
        with open(pid_file, "w") as pid_out:
            pid_out.write(str(child.pid))
    buffer = b""
    skip_line = False  # the line in progress was answered early: drop it when it ends
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            return
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if skip_line:
                skip_line = False
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if isinstance(msg, dict):
                handle(msg, early)
        if go_file and not skip_line and len(buffer) > 65536:
            found = ID_AT_START.match(buffer)
            if found:
                send(text(int(found.group(1)), "early answer"))
                skip_line = True
                buffer = b""
                while not os.path.exists(go_file):
                    time.sleep(0.01)
        elif skip_line:
            buffer = b""


if __name__ == "__main__":
    main()
