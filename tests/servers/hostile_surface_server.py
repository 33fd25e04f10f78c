"""A hostile legacy stdio MCP server (stdlib only) for tests/cli/test_hostile_issue9.py.

    python tests/servers/hostile_surface_server.py [--log FILE]

``--log FILE``: every subscribe, unsubscribe, tasks/* request and cancellation is
appended to FILE as one line (``subscribe URI``, ``tasks/cancel ID`` ...), flushed at once.

``completion/complete``, by the argument's value:

- ``notlist``: ``values`` is a string; ``nocompletion``: the result has no ``completion``;
- ``huge``: 1,000,000 values (``item0`` ...); ``nonstr``: numbers, null, an object, a
  string with a newline; ``longstr``: one 5 MB string; anything else: ``["ok"]``.

Resources (``subscribe: true``): subscribing to

- ``flood://x`` floods ``notifications/resources/updated`` of it, as fast as the pipe takes
  them, until it is unsubscribed; ``flood://lists`` floods ``notifications/tools/list_changed``,
  ``prompts/list_changed`` and ``resources/list_changed`` (in turn) the same way;
- ``burst://x``: 12,000 updates of it written before the subscribe's answer (more than a
  client buffers: how many it drops does not depend on how fast this machine is), then floods
  as ``flood://x``;
- ``odd://x`` sends malformed updates (``uri`` a number, no params, params a string), then
  a good one with an extra member;
- ``die://x`` is answered, gets one update, then the server exits (status 7);
- ``hang://x`` is never answered; ``stuck-unsub://x`` is answered, its unsubscribe never is.

Tools, each with ``execution.taskSupport: "required"``:

- ``never_ends``: a task that stays ``working`` for ever (``tasks/result`` is never answered;
  ``tasks/cancel`` makes it cancelled);
- ``bad_task``: a CreateTaskResult whose ``task`` is malformed (``taskId`` a number, no status);
- ``no_task``: a CreateTaskResult with no ``task`` at all;
- ``stuck_cancel``: task ``stuck``, working for ever; its tasks/cancel is never answered;
- ``tasks/result`` of the task ``accented`` answers a text ``café`` (written ``caf\\u00e9``);
- ``bad_poll``: task ``malformed``, whose every tasks/* answer is malformed (tasks/get: a
  numeric taskId and no status; tasks/result: content not a list, isError not a boolean).

``--bad-list``: tasks/list answers a page of junk (a Task without status, a string) and a
numeric nextCursor.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time

LIST_MALFORMED = "--bad-list" in sys.argv
LOG = sys.argv[sys.argv.index("--log") + 1] if "--log" in sys.argv else None
BURST = 12_000  # burst://x: updates before the answer (the CLI buffers 10,000)
lock = threading.Lock()
out = sys.stdout.buffer
flooding: dict[str, threading.Event] = {}
TASK = {
    "taskId": "t-1",
    "status": "working",
    "createdAt": "2026-01-01T00:00:00Z",
    "lastUpdatedAt": "2026-01-01T00:00:00Z",
    "ttl": 60000,
    "pollInterval": 100,
}


def log(line: str) -> None:
    if LOG:
        with open(LOG, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def send(message: dict) -> None:
    data = json.dumps(message).encode() + b"\n"
    with lock:
        try:
            out.write(data)
            out.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass


def result(rid, value: dict) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def flood(uri: str, stop: threading.Event) -> None:
    frame = (
        json.dumps({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}}).encode()
        + b"\n"
    )
    if uri == "flood://lists":
        frame = b"".join(
            json.dumps({"jsonrpc": "2.0", "method": f"notifications/{kind}/list_changed"}).encode() + b"\n"
            for kind in ("tools", "prompts", "resources")
        )
    while not stop.is_set():
        with lock:
            try:
                out.write(frame * 50)
                out.flush()
            except (BrokenPipeError, ValueError, OSError):
                return


def complete(rid, value: str) -> None:
    if value == "notlist":
        result(rid, {"completion": {"values": "not a list"}})
    elif value == "nocompletion":
        result(rid, {})
    elif value == "huge":
        result(rid, {"completion": {"values": [f"item{i}" for i in range(1_000_000)], "total": 1_000_000}})
    elif value == "nonstr":
        result(rid, {"completion": {"values": [1, None, {"a": 1}, "two\nlines", True]}})
    elif value == "longstr":
        result(rid, {"completion": {"values": ["x" * 5_000_000]}})
    else:
        result(rid, {"completion": {"values": ["ok"]}})


TOOLS = [
    {"name": name, "description": text, "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}
    for name, text in (
        ("never_ends", "A task that never ends"),
        ("bad_task", "A malformed Task"),
        ("no_task", "A CreateTaskResult without task"),
        ("bad_poll", "A task whose tasks/get answers are malformed"),
        ("stuck_cancel", "A task that never ends whose tasks/cancel is never answered"),
    )
]


def handle(message: dict) -> None:
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "initialize":
        result(
            rid,
            {
                "protocolVersion": params.get("protocolVersion", "2025-11-25"),
                "capabilities": {
                    "resources": {"subscribe": True},
                    "completions": {},
                    "tools": {},
                    "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
                },
                "serverInfo": {"name": "hostile-surface", "version": "1"},
            },
        )
    elif method == "notifications/cancelled":
        log(f"cancelled {params.get('requestId')}")
    elif rid is None:
        return
    elif method == "completion/complete":
        complete(rid, str((params.get("argument") or {}).get("value", "")))
    elif method == "resources/subscribe":
        uri = params.get("uri")
        log(f"subscribe {uri}")
        if uri == "hang://x":
            return
        if uri == "burst://x":  # BURST updates before the answer: they wait in the client's buffer
            frame = json.dumps({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
            with lock:
                out.write((frame + "\n").encode() * BURST)
                out.flush()
        result(rid, {})
        if uri == "odd://x":  # malformed updates, then a good one
            for params in ({"uri": 5}, None, "str", {"uri": "odd://x", "extra": [1, 2]}):
                send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/resources/updated",
                        **({} if params is None else {"params": params}),
                    }
                )
        if uri == "die://x":  # one update, then the server dies
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
            sys.stderr.write("dying now\n")
            sys.stderr.flush()
            os._exit(7)
        if uri in ("flood://x", "flood://lists", "burst://x"):
            stop = flooding[uri] = threading.Event()
            threading.Thread(target=flood, args=(uri, stop), daemon=True).start()
    elif method == "resources/unsubscribe":
        uri = params.get("uri")
        log(f"unsubscribe {uri}")
        if uri in flooding:
            flooding.pop(uri).set()
        if uri != "stuck-unsub://x":
            result(rid, {})
    elif method == "resources/list":  # the one that floods, for the Resources view
        result(rid, {"resources": [{"uri": "flood://x", "name": "flood"}]})
    elif method == "tools/list":
        result(rid, {"tools": TOOLS})
    elif method == "tools/call":
        name = params.get("name")
        log(f"tools/call {name}")
        if name == "never_ends":
            result(rid, {"task": dict(TASK)})
        elif name == "bad_task":
            result(rid, {"task": {"taskId": 5}})
        elif name == "stuck_cancel":
            result(rid, {"task": dict(TASK, taskId="stuck")})
        elif name == "bad_poll":
            result(rid, {"task": dict(TASK, taskId="malformed")})
        else:
            result(rid, {"_meta": {}})
    elif method in ("tasks/get", "tasks/result", "tasks/cancel", "tasks/list"):
        log(f"{method} {params.get('taskId', '')}")
        if params.get("taskId") == "stuck" and method != "tasks/get":
            return  # tasks/cancel (and tasks/result) of it are never answered
        if params.get("taskId") == "stuck":
            result(rid, dict(TASK, taskId="stuck"))
        elif params.get("taskId") == "malformed":  # every tasks/* answer about it is malformed
            result(
                rid,
                {"tasks": "nope"}
                if method == "tasks/list"
                else {"content": "not a list", "isError": "yes"}
                if method == "tasks/result"
                else {"taskId": 3},
            )
        elif method == "tasks/list" and params.get("cursor") is None and LIST_MALFORMED:
            result(rid, {"tasks": [{"taskId": 7}, "junk"], "nextCursor": 5})
        elif method == "tasks/result" and params.get("taskId") == "accented":  # json.dumps: "caf\u00e9"
            result(rid, {"content": [{"type": "text", "text": "café"}], "isError": False})
        elif method == "tasks/get":
            result(rid, dict(TASK))
        elif method == "tasks/cancel":
            TASK["status"] = "cancelled"
            result(rid, dict(TASK))
        elif method == "tasks/list":
            result(rid, {"tasks": [dict(TASK)]})
        # tasks/result: never answered
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
    for stop in flooding.values():
        stop.set()
    time.sleep(0.05)


if __name__ == "__main__":
    main()
