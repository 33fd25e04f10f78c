"""A raw stdio MCP server (stdlib only) for the completion tests: legacy handshake,
one prompt ``pick`` with arguments ``first`` and ``second``, and ``completion/complete``:

- candidates ``item00`` .. ``item39``, filtered by prefix; 5 values at most, with
  ``total`` and ``hasMore`` (so ``i`` answers "5 of 40+");
- for ``second``, when ``context.arguments.first`` is given, the values are
  ``<first>-a``, ``<first>-b`` (context narrows the second argument by the first);
- a value starting with ``slow`` answers after 3 s unless ``notifications/cancelled``
  arrives first (then it never answers);
- ``boom`` -> JSON-RPC error -32602; ``bad`` -> a malformed result (values not an array).

Every request and cancellation is logged to stderr (``got completion <value>``,
``cancelled <id>``). ``--no-completions`` leaves the capability out (and still answers).
"""

from __future__ import annotations

import asyncio
import json
import sys

CANDIDATES = [f"item{i:02d}" for i in range(40)]
NO_COMPLETIONS = "--no-completions" in sys.argv


def write(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def complete(params: dict) -> dict:
    argument = params.get("argument") or {}
    name, value = argument.get("name"), argument.get("value", "")
    context = ((params.get("context") or {}).get("arguments")) or {}
    if name == "second" and context.get("first"):
        values = [f"{context['first']}-a", f"{context['first']}-b"]
        return {"completion": {"values": [v for v in values if v.startswith(value)]}}
    matches = [c for c in CANDIDATES if c.startswith(value)]
    return {"completion": {"values": matches[:5], "total": len(matches), "hasMore": len(matches) > 5}}


async def answer(msg_id, method: str, params: dict) -> None:
    if method == "initialize":
        capabilities = {"prompts": {}} if NO_COMPLETIONS else {"prompts": {}, "completions": {}}
        write({"jsonrpc": "2.0", "id": msg_id, "result": {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"), "capabilities": capabilities,
            "serverInfo": {"name": "completion-server", "version": "1.0"}}})
    elif method == "prompts/list":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"prompts": [
            {"name": "pick", "arguments": [{"name": "first", "required": True}, {"name": "second"}]}]}})
    elif method == "completion/complete":
        value = (params.get("argument") or {}).get("value", "")
        log(f"got completion {value}")
        if value.startswith("slow"):
            await asyncio.sleep(3)
        if value == "boom":
            write({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": "no completions for boom"}})
        elif value == "bad":
            write({"jsonrpc": "2.0", "id": msg_id, "result": {"completion": {"values": "nope"}}})
        else:
            write({"jsonrpc": "2.0", "id": msg_id, "result": complete(params)})
    elif method == "ping":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {}})
    else:
        write({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    tasks: dict = {}
    while True:
        line = await reader.readline()
        if not line:
            return
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "method" not in message:
            continue
        method, params = message["method"], message.get("params") or {}
        if "id" not in message:
            if method == "notifications/cancelled":
                request_id = params.get("requestId")
                log(f"cancelled {request_id}")
                task = tasks.pop(request_id, None)
                if task is not None:
                    task.cancel()
            continue
        msg_id = message["id"]
        task = asyncio.ensure_future(answer(msg_id, method, params))
        tasks[msg_id] = task
        task.add_done_callback(lambda _t, i=msg_id: tasks.pop(i, None))


if __name__ == "__main__":
    asyncio.run(main())
