"""A hostile legacy (2025-11-25) stdio MCP server (stdlib only) whose tasks break the
rules on purpose, one tool per way, each with ``execution.taskSupport: "required"``.

    python tests/servers/hostile_tasks_server.py [--storm N]

Every task answers ``tasks/get`` ``working`` twice, then ``completed`` (unless said
otherwise), and ``tasks/result`` ``done <tool>``. The tools:

- ``poll_zero``, ``poll_negative``, ``poll_huge`` (1e12 ms), ``poll_string`` (``"fast"``),
  ``poll_bigint`` (a 400-digit integer), ``poll_infinity`` (the non-JSON ``Infinity``):
  the task's ``pollInterval``; ``poll_huge``, ``poll_bigint`` and ``poll_infinity`` (polled
  at the 30 s clamp) send ``notifications/tasks/status`` completed 0.3 s after they are
  created instead;
- ``vanishes``: the second ``tasks/get`` (and every later tasks/* request) is the error
  -32602 "Task not found" (the task expired or the server forgot it);
- ``result_error``: ``tasks/result`` answers the JSON-RPC error -32603 "result store broken";
- ``ignores_cancel``: stays ``working`` for ever; ``tasks/cancel`` answers the task, still
  ``working``;
- ``unknown_status``: ``tasks/get`` answers the status ``"paused"``;
- ``status_storm``: 20,000 ``notifications/tasks/status`` (working, "step i") in one write
  right after it is created, then completed at the next poll (``pollInterval`` 100);
- ``strangers_storm``: like ``status_storm``, but each notification is about another task
  (``stranger-i``, never created by a call) before the call's own task completes.

``--storm N``: right after ``notifications/initialized``, N
``notifications/tools/list_changed``, 200 a write every 20 ms (about 10,000 a second; requests
are answered meanwhile).
Each tasks/* request is logged to stderr (``tasks/get ID``).
"""

from __future__ import annotations

import json
import sys
import threading
import time

STORM = int(sys.argv[sys.argv.index("--storm") + 1]) if "--storm" in sys.argv else 0
lock = threading.Lock()
POLLS = {
    "poll_zero": "0",
    "poll_negative": "-5",
    "poll_huge": "1e12",
    "poll_string": '"fast"',
    "poll_bigint": "1" + "0" * 400,
    "poll_infinity": "Infinity",
}
SLOW = ("poll_huge", "poll_bigint", "poll_infinity")
NAMES = [*POLLS, "vanishes", "result_error", "ignores_cancel", "unknown_status", "status_storm", "strangers_storm"]
TOOLS = [{"name": name, "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}} for name in NAMES]
tasks: dict[str, dict] = {}  # id -> {tool, polls}


def write(text: str) -> None:
    with lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def send(message: dict) -> None:
    write(json.dumps(message))


def task_json(task_id: str, status: str) -> str:
    """A Task as JSON text (the pollInterval spliced in as written, Infinity included)."""
    tool = tasks[task_id]["tool"]
    text = json.dumps(
        {
            "taskId": task_id,
            "status": status,
            "createdAt": "2026-01-01T00:00:00Z",
            "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttl": 60000,
        }
    )
    poll = POLLS.get(tool, "100")
    return text[:-1] + f', "pollInterval": {poll}}}'


def answer(rid, result_text: str) -> None:
    write('{"jsonrpc": "2.0", "id": ' + json.dumps(rid) + ', "result": ' + result_text + "}")


def error(rid, code: int, message: str) -> None:
    send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


def later_completed(task_id: str) -> None:
    time.sleep(0.3)
    tasks[task_id]["done"] = True
    write(
        '{"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": ' + task_json(task_id, "completed") + "}"
    )


def status_of(task_id: str) -> str:
    state = tasks[task_id]
    if state["tool"] == "ignores_cancel":
        return "working"
    if state["tool"] == "unknown_status":
        return "paused"
    if state["tool"] in SLOW:
        return "completed" if state.get("done") else "working"
    return "completed" if state["polls"] >= 3 else "working"


def storm() -> None:
    """STORM list_changed notifications, 200 a write every 20 ms (about 10,000 a second)."""
    frame = '{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}'
    for start in range(0, STORM, 200):
        write("\n".join([frame] * min(200, STORM - start)))
        time.sleep(0.02)


def handle(message: dict) -> None:
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method == "notifications/initialized" and STORM:
        threading.Thread(target=storm, daemon=True).start()
    if rid is None:
        return
    if method == "initialize":
        send(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "result": {
                    "protocolVersion": "2025-11-25",
                    "serverInfo": {"name": "hostile-tasks", "version": "1"},
                    "capabilities": {
                        "tools": {"listChanged": True},
                        "logging": {},
                        "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}},
                    },
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "logging/setLevel" or method == "ping":
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
    elif method == "tools/call":
        name = params.get("name")
        if name not in NAMES:
            error(rid, -32602, f"Unknown tool: {name}")
            return
        task_id = f"{name}-{len(tasks) + 1}"
        tasks[task_id] = {"tool": name, "polls": 0}
        answer(rid, '{"task": ' + task_json(task_id, "working") + "}")
        if name in SLOW:
            threading.Thread(target=later_completed, args=(task_id,), daemon=True).start()
        if name in ("status_storm", "strangers_storm"):
            base = task_json(task_id, "working")[:-1]
            if name == "strangers_storm":
                base = base.replace(f'"taskId": "{task_id}"', '"taskId": "stranger-%d"')
            write(
                "\n".join(
                    '{"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": '
                    + base.replace("%d", str(i))
                    + f', "statusMessage": "step {i}"}}}}'
                    for i in range(20000)
                )
            )
            state = tasks[task_id]
            state["polls"] = 2
    elif method in ("tasks/get", "tasks/result", "tasks/cancel"):
        task_id = params.get("taskId")
        sys.stderr.write(f"{method} {task_id}\n")
        sys.stderr.flush()
        state = tasks.get(task_id)
        if state is None or (state["tool"] == "vanishes" and state["polls"] >= 1):
            error(rid, -32602, f"Task not found: {task_id}")
            return
        if method == "tasks/get":
            state["polls"] += 1
            answer(rid, task_json(task_id, status_of(task_id)))
        elif method == "tasks/cancel":
            answer(rid, task_json(task_id, status_of(task_id)))
        elif state["tool"] == "result_error":
            error(rid, -32603, "result store broken")
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "content": [{"type": "text", "text": f"done {state['tool']}"}],
                        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": task_id}},
                    },
                }
            )
    elif method == "tasks/list":
        answer(rid, '{"tasks": [' + ", ".join(task_json(t, status_of(t)) for t in tasks) + "]}")
    else:
        error(rid, -32601, f"no method {method}")


def main() -> None:
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            handle(message)


if __name__ == "__main__":
    main()
