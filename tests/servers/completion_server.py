"""A raw stdio MCP server (stdlib only) for the completion and Prompts view tests.

Prompts (``prompts/list``, ``listChanged``):

- ``pick`` (icons; arguments ``first`` required, ``second``): one text message;
- ``media``: every content type, one message each: text, image, audio, resource_link,
  an embedded text resource, an embedded blob, an unknown type; and a ``system`` role;
- ``broken``: a malformed result (``messages`` is not an array);
- ``stall``: answers after 30 s unless ``notifications/cancelled`` comes first;
- ``toggle``: answers, then changes the list (adds ``extra``, changes ``pick``'s
  description, removes ``broken``) and sends ``notifications/prompts/list_changed``.

``completion/complete``:

- candidates ``item00`` .. ``item39``, filtered by prefix; 5 values at most, with
  ``total`` and ``hasMore`` (so ``i`` answers "5 of 40+");
- for ``second``, when ``context.arguments.first`` is given, the values are
  ``<first>-a``, ``<first>-b`` (context narrows the second argument by the first);
- a value starting with ``slow`` answers after 3 s unless ``notifications/cancelled``
  arrives first (then it never answers);
- ``boom`` -> JSON-RPC error -32602; ``bad`` -> a malformed result (values not an array);
- hostile answers: ``many`` -> 10,000 values (``many00000`` ...; no total); ``long`` -> a
  5 MB string then ``long-short``; ``garbage`` -> a result that is a JSON string;
  ``nonstr`` -> two strings among numbers, null, an object; ``nostr`` -> only those (no
  string); ``never`` and its prefixes (``n`` .. ``neve``: a loaded machine may ask for each
  while the word is typed) -> no answer at all;
- a value starting with ``hold`` is answered (``["stale-<value>"]``, cancellation ignored)
  only after the next completion request that does not start with ``hold`` was answered:
  a late answer to a stale request.

Every request and cancellation is logged to stderr (``got completion <value>``,
``cancelled <id>``). ``--no-completions`` leaves the capability out (and still answers).
``--wide N`` adds a prompt ``wide`` with N arguments (``arg0`` ...), each with a 300-character
description; ``arg499``, ``arg999`` ... are required. ``--verbose-prompt`` adds ``verbose``: a
100,000-character title, a 2 MB description, one required argument with a 10,000-character
name, a 100,000-character title and a 1 MB description. ``--junk-prompts`` adds malformed list items (a
string, a number, ``arguments`` a number, a numeric name, terminal escapes in a name and a description).
"""

from __future__ import annotations

import asyncio
import base64
import json
import sys

CANDIDATES = [f"item{i:02d}" for i in range(40)]
NO_COMPLETIONS = "--no-completions" in sys.argv
WIDE = int(sys.argv[sys.argv.index("--wide") + 1]) if "--wide" in sys.argv else 0
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(100)).decode()
WAV = base64.b64encode(b"RIFF" + bytes(200)).decode()
BLOB = base64.b64encode(bytes(range(256)) * 4).decode()
PROMPTS = [
    {
        "name": "pick",
        "title": "Pick two",
        "description": "Two arguments, the second narrowed by the first.",
        "icons": [{"src": "data:image/png;base64," + PNG, "mimeType": "image/png"}],
        "arguments": [{"name": "first", "description": "The first.", "required": True}, {"name": "second"}],
    },
    {"name": "media", "description": "Every content type."},
    {"name": "broken", "description": "A malformed result."},
    {"name": "toggle", "description": "Changes the prompt list."},
    {"name": "stall", "description": "Answers after 30 s (unless cancelled)."},
]
if WIDE:
    PROMPTS.append(
        {
            "name": "wide",
            "description": f"{WIDE} arguments.",
            "arguments": [
                {"name": f"arg{i}", "description": "d" * 300, "required": i % 500 == 499} for i in range(WIDE)
            ],
        }
    )
if "--verbose-prompt" in sys.argv:
    PROMPTS.append(
        {
            "name": "verbose",
            "title": "T" * 100_000,
            "description": "word " * 400_000,
            "arguments": [
                {"name": "a" * 10_000, "title": "t" * 100_000, "description": "x " * 500_000, "required": True}
            ],
        }
    )
if "--junk-prompts" in sys.argv:
    PROMPTS.extend(
        [
            "just a string",
            7,
            {"name": "junk", "arguments": 5, "description": {"not": "text"}},
            {"name": 3, "arguments": [{"name": "x\x1b[31mred", "required": "yes"}, "odd", {"required": True}]},
            {"name": "esc\x1b]0;title\x07ape", "description": "line one\x1b[2J\nline two"},
        ]
    )
MEDIA = [
    {"role": "user", "content": {"type": "text", "text": "Look at these."}},
    {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
    {"role": "assistant", "content": {"type": "audio", "data": WAV, "mimeType": "audio/wav"}},
    {
        "role": "user",
        "content": {"type": "resource_link", "uri": "test://readme", "name": "readme", "mimeType": "text/markdown"},
    },
    {
        "role": "user",
        "content": {
            "type": "resource",
            "resource": {"uri": "test://notes", "mimeType": "text/plain", "text": "embedded notes"},
        },
    },
    {
        "role": "user",
        "content": {
            "type": "resource",
            "resource": {"uri": "test://blob", "mimeType": "application/octet-stream", "blob": BLOB},
        },
    },
    {"role": "assistant", "content": {"type": "hologram", "depth": 3}},
    {"role": "system", "content": {"type": "text", "text": "an odd role"}},
]


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


held: list = []  # (id, value) of the ``hold`` requests not answered yet


def get_prompt(msg_id, name, arguments: dict) -> None:
    if name not in {p["name"] for p in PROMPTS if isinstance(p, dict)}:
        write({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": f"Unknown prompt: {name}"}})
    elif name == "media":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"description": "All of them", "messages": MEDIA}})
    elif name == "broken":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"messages": "nope"}})
    elif name == "toggle":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"messages": []}})
        PROMPTS[:] = [
            dict(PROMPTS[0], description="Changed."),
            PROMPTS[1],
            PROMPTS[3],
            PROMPTS[4],
            {"name": "extra", "description": "Added by toggle."},
        ]
        write({"jsonrpc": "2.0", "method": "notifications/prompts/list_changed"})
    else:
        text = f"picked {arguments.get('first')} and {arguments.get('second')}"
        write(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "result": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]},
            }
        )


async def answer(msg_id, method: str, params: dict) -> None:
    if method == "initialize":
        capabilities = {"prompts": {"listChanged": True}}
        if not NO_COMPLETIONS:
            capabilities["completions"] = {}
        write(
            {
                "jsonrpc": "2.0",
                "id": msg_id,
                "result": {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": capabilities,
                    "serverInfo": {"name": "completion-server", "version": "1.0"},
                },
            }
        )
    elif method == "prompts/list":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {"prompts": PROMPTS}})
    elif method == "prompts/get":
        if params.get("name") == "stall":
            await asyncio.sleep(30)
        get_prompt(msg_id, params.get("name"), params.get("arguments") or {})
    elif method == "completion/complete":
        value = (params.get("argument") or {}).get("value", "")
        log(f"got completion {value}")
        if value.startswith("slow"):
            await asyncio.sleep(3)
        if value.startswith("hold"):
            held.append((msg_id, value))
            return
        if value and "never".startswith(value):
            return
        if value == "boom":
            write({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32602, "message": "no completions for boom"}})
        elif value == "bad":
            write({"jsonrpc": "2.0", "id": msg_id, "result": {"completion": {"values": "nope"}}})
        elif value == "many":
            write(
                {
                    "jsonrpc": "2.0",
                    "id": msg_id,
                    "result": {"completion": {"values": [f"many{i:05d}" for i in range(10_000)]}},
                }
            )
        elif value == "long":
            write(
                {"jsonrpc": "2.0", "id": msg_id, "result": {"completion": {"values": ["L" * 5_000_000, "long-short"]}}}
            )
        elif value == "garbage":
            write({"jsonrpc": "2.0", "id": msg_id, "result": "garbage"})
        elif value == "nonstr":
            write(
                {
                    "jsonrpc": "2.0",
                    "id": msg_id,
                    "result": {"completion": {"values": [1, "nonstr-a", None, {"a": 1}, "nonstr-b"]}},
                }
            )
        elif value == "nostr":
            write({"jsonrpc": "2.0", "id": msg_id, "result": {"completion": {"values": [1, None, {"a": 1}]}}})
        else:
            write({"jsonrpc": "2.0", "id": msg_id, "result": complete(params)})
        while held:  # the late answers to the held (stale) requests, after the newer one's
            held_id, held_value = held.pop(0)
            write({"jsonrpc": "2.0", "id": held_id, "result": {"completion": {"values": [f"stale-{held_value}"]}}})
    elif method == "ping":
        write({"jsonrpc": "2.0", "id": msg_id, "result": {}})
    else:
        write({"jsonrpc": "2.0", "id": msg_id, "error": {"code": -32601, "message": f"Method not found: {method}"}})


async def main() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 << 20)
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
