"""Hand-written raw JSON-RPC/stdio MCP fixture server (stdlib only, no ``mcp`` import).

Usage::

    python tests/servers/raw_server.py [--mode M[,M...]]... [--delay S]
        [--flood-on-start N] [--tools N] [--page-size K]

Flags:

* ``--mode M``          enable misbehaviour mode(s), see below; unknown mode -> exit 2.
* ``--delay S``         late-answer delay in seconds (default 1.0).
* ``--flood-on-start N`` send N ``notifications/message`` (data ``"message <i>"``) in one
                        write right after ``notifications/initialized`` (any mode).
* ``--extra-tools FILE``  one tool name a line: each becomes a tool (answers its name), read
                        at startup (a test edits the file between connections).
* ``--tools N``         number of generated tools in paged-tools mode (default 100).
* ``--page-size K``     paginate tools/list, K per page (default: unpaged; 10 in paged-tools).

Default behaviour (no ``--mode``): a well-behaved legacy (initialize-handshake) server.

* ``initialize``: answers the proposed ``protocolVersion`` if it is one of 2024-11-05,
  2025-03-26, 2025-06-18 or 2025-11-25, else ``2025-11-25``.  Capabilities are
  ``{"tools": {"listChanged": true}}`` plus ``"logging": {}`` in the modes that send
  ``notifications/message`` (flood, invalid-utf8, bad-frames, or ``--flood-on-start``).
  ``serverInfo`` is ``{"name": "raw-server", "version": "1.0.0"}``; ``instructions`` is
  ``"Raw fixture server ✓"`` (deliberately non-ASCII).
* ``ping`` -> ``{}``; ``logging/setLevel`` -> ``{}``; any other request -> error -32601.
  A client frame that is not JSON -> error -32700 (id null); JSON that is not an
  object with a string ``method`` (and is not a response) -> error -32600; non-object
  ``params`` -> -32602; an unexpected exception while handling -> -32603 (never exits).
* ``tools/list`` -> tools ``echo`` {text: string}, ``add`` {a: number, b: number},
  ``slow`` {seconds: number}, plus the mode-specific tools listed below (only when the
  mode is on).  Unpaginated unless ``--page-size K`` is given (cursor is an opaque
  string; an unknown cursor -> -32602).
* ``tools/call``: ``echo`` -> text = ``text``; ``add`` -> text = ``str(a+b)`` (ints stay
  ints); ``slow`` -> sleeps ``seconds`` (default 1) in a thread, sending
  ``notifications/progress`` {progressToken, progress=1,2,..., total, message} every 0.1 s
  when ``_meta.progressToken`` is given, then text ``"slept <seconds>"``; if a
  ``notifications/cancelled`` for it arrives, it stops and never answers.
  Unknown tool -> JSON-RPC error -32602 ``Unknown tool: <name>``; bad arguments ->
  result with ``isError: true``.
* Every ``notifications/cancelled`` received is logged to stderr as ``cancelled <id>``
  (in every mode).  Responses from the client to unknown ids are ignored.
* Requests are handled one at a time in arrival order; only ``slow``, ``late-answer``
  calls and ``ask`` run in background threads (so ping etc. still answer meanwhile).
* Exits 0 on stdin EOF (immediately, abandoning background calls).

Modes (``--mode`` is repeatable and/or comma-separated; modes combine):

``garbage-stdout``  Prints ``Server starting...`` to stdout at startup, and one non-JSON
                    line before every frame, cycling ``{`` / ``INFO: handling request`` /
                    ``Loading... 100%`` / ``}``.
``split-writes``    Every frame is written in several chunks (flush + 2 ms sleep between);
                    one split falls inside the first multi-byte UTF-8 character, if any
                    (the initialize result always has one: ``✓`` in ``instructions``).
``crlf``            Frames end with ``\\r\\n`` and are each followed by an empty ``\\r\\n`` line.
``invalid-utf8``    After ``notifications/initialized``: writes the line
                    ``b'\\xff\\xfe garbage'`` and then a ``notifications/message`` frame
                    whose ``data`` string contains the raw bytes ``\\xff\\xfe``
                    (``"bad \\xff\\xfe bytes"``); then behaves normally.
``crash-on-call``   On any tools/call: writes ``fatal: boom`` (+ 2 more lines) to stderr,
                    exits with code 3, no answer.
``die-by-signal``   On any tools/call: SIGKILLs itself (returncode -9).
``never-answer``    Never answers tools/call (other requests are answered).
``late-answer``     Answers tools/call (normal result) after ``--delay`` s (default 1.0),
                    in a thread, even if cancelled meanwhile.
``flood``           Tool ``flood`` {count: integer}: writes ``count``
                    ``notifications/message`` frames (level info, logger ``flood``, data
                    ``"message <i>"``, i = 0..count-1) in one write, then the result text
                    ``"flooded <count>"``.
``huge-result``     Tool ``huge`` {mb: number}: one text block of ``int(mb*1048576)``
                    ``x`` characters, in a single line.
``paged-tools``     The tool list becomes ``--tools N`` (default 100) tools ``tool_0000``...
                    served ``--page-size K`` (default 10) per page with ``nextCursor``.
                    Calling ``tool_NNNN`` returns text ``tool_NNNN``.
``cursor-loop``     tools/list always returns the normal tools and ``nextCursor: "loop"``.
``list-changed``    Tool ``mutate`` {}: adds ``new_tool`` (answers text ``new``), removes
                    ``echo``, changes ``add``'s description to ``"Add three numbers"`` and its
                    inputSchema to {a, b, c}; sends ``notifications/tools/list_changed``
                    and then the result text ``"mutated"``.  Idempotent.
``bad-frames``      After ``notifications/initialized`` emits, in order: a request with
                    ``id: true`` (method ping), a response with ``id: 1.5``, a response
                    (id 999999) with both ``result`` and ``error``, a ``"jsonrpc": "1.0"``
                    notification, a JSON-array batch of two ``notifications/message``, the
                    bare number ``42``, a ``notifications/message`` with extra unknown
                    top-level fields.  Then behaves normally.
``nonfinite-ids``   After ``notifications/initialized`` writes, as raw lines: a ``ping``
                    request with ``"id": 1e400`` (infinity to a JSON parser), a response
                    with ``"id": NaN`` and a ``notifications/message`` whose data is
                    ``-Infinity``.  Then behaves normally.
``server-requests`` Tool ``ask`` {}: sends the client requests ``ping``, ``roots/list`` and
                    ``custom/thing`` (integer ids from a server-side counter starting at 1,
                    so they may collide with the client's own ids), waits up to 10 s for
                    the three responses, and returns them as JSON text
                    ``{"ping": <response>, "roots": <response>, "custom": <response>}``
                    (whole response objects; ``null`` if one timed out). When the call's
                    ``_meta`` has a ``traceparent``, the three requests carry it in their
                    ``_meta`` too, after a ``notifications/message`` (data ``"asking"``) with it.
``unsupported-version``  initialize answers ``protocolVersion: "1999-01-01"``.
``is-error``        Every tools/call returns ``{content:[{type:text,text:"bad"}], isError:true}``.
``structured``      Tool ``weather`` {city: string} with outputSchema (required city,
                    temperature, conditions).  City ``Paris`` -> valid structuredContent
                    ``{"city":"Paris","temperature":21.5,"conditions":"sunny"}``; any other
                    city -> structuredContent missing ``temperature`` (invalid).  Both also
                    carry the JSON as a text block.
``exit-on-start``   Writes ``cannot start: missing API_KEY`` to stderr, exits 1 at once.
``no-exit-on-eof``  Ignores SIGTERM and stdin EOF (keeps sleeping; must be SIGKILLed).
                    Safety net: exits by itself 60 s after EOF.
``nan``             Tool ``ratio`` {a, b}: structuredContent ``{"ratio": a/b}``, a bare ``NaN``
                    (not JSON; Python's json.dumps writes it) when ``b`` is 0.
``echo-env``        Tool ``env`` {name}: text = value of env var ``name`` (isError if
                    unset); tool ``cwd`` {}: text = ``os.getcwd()``.
``changed-during-list``  The first tools/list: sends ``notifications/tools/list_changed``,
                    waits 0.3 s, then answers (as server-everything does while a client lists
                    its tools for the first time); later lists are answered at once.
``url-required``    Tool ``signin`` {}: JSON-RPC error ``-32042`` (URL elicitation required,
                    2025-11-25) whose ``data.elicitations`` lists two URL elicitations,
                    ``e-1`` (https://auth.example/start) and ``e-2`` (https://pay.example/approve),
                    until both are complete; then the text ``"signed in"``.  Tool ``complete``
                    {id?: string}: marks ``id`` complete and sends
                    ``notifications/elicitation/complete {elicitationId: id}`` (no id: a
                    notification without one), then the text ``"completed <id>"``.
``ask-on-start``    Before it answers ``initialize``, sends the client ``elicitation/create`` (a
                    form asking for ``name``) and waits for the answer (at most 10 s), as a
                    server that needs something before it is ready might: a switch to it (F7)
                    is still waiting for the handshake while it asks.
``stderr-chatter``  Writes ``raw-server: received <method-or-response> id=<id>`` to stderr
                    for every message received.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time

MODES = {
    "garbage-stdout",
    "split-writes",
    "crlf",
    "invalid-utf8",
    "crash-on-call",
    "die-by-signal",
    "never-answer",
    "late-answer",
    "flood",
    "huge-result",
    "paged-tools",
    "cursor-loop",
    "list-changed",
    "bad-frames",
    "nonfinite-ids",
    "server-requests",
    "unsupported-version",
    "is-error",
    "structured",
    "exit-on-start",
    "no-exit-on-eof",
    "echo-env",
    "stderr-chatter",
    "changed-during-list",
    "url-required",
    "ask-on-start",
    "nan",
}
URL_ELICITATIONS = [
    {"mode": "url", "elicitationId": "e-1", "url": "https://auth.example/start", "message": "Sign in to Example"},
    {"mode": "url", "elicitationId": "e-2", "url": "https://pay.example/approve", "message": "Approve the payment"},
]
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
GARBAGE = (b"{", b"INFO: handling request", b"Loading... 100%", b"}")


def _tool(name, description, props=None, required=None, **extra):
    schema = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = required
    return {"name": name, "description": description, "inputSchema": schema, **extra}


WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temperature": {"type": "number"}, "conditions": {"type": "string"}},
    "required": ["city", "temperature", "conditions"],
}


class Server:
    def __init__(self, args):
        self.modes = args.modes
        self.delay = args.delay
        self.flood_on_start = args.flood_on_start
        self.page_size = args.page_size or (10 if "paged-tools" in self.modes else 0)
        self.eol = b"\r\n" if "crlf" in self.modes else b"\n"
        self.out = sys.stdout.buffer
        self.lock = threading.Lock()
        self.garbage_i = 0
        self.cancelled = set()
        self.pending = {}  # server->client request id -> [Event, response]
        self.next_srv_id = 1
        self.tools = self._initial_tools(args.tools)
        self.listed = False
        self.completed = set()  # url-required: the elicitation ids completed
        if args.extra_tools and os.path.exists(args.extra_tools):
            with open(args.extra_tools, encoding="utf-8") as extra:
                self.tools += [_tool(line.strip(), f"Extra tool {line.strip()}") for line in extra if line.strip()]

    def _initial_tools(self, n_paged):
        m = self.modes
        if "paged-tools" in m:
            return [_tool(f"tool_{i:04d}", f"Generated tool {i}") for i in range(n_paged)]
        tools = [
            _tool("echo", "Echo the text back", {"text": {"type": "string"}}, ["text"]),
            _tool("add", "Add two numbers", {"a": {"type": "number"}, "b": {"type": "number"}}, ["a", "b"]),
            _tool("slow", "Sleep `seconds`, reporting progress", {"seconds": {"type": "number"}}),
        ]
        if "flood" in m:
            tools.append(_tool("flood", "Send `count` log notifications", {"count": {"type": "integer"}}, ["count"]))
        if "huge-result" in m:
            tools.append(_tool("huge", "Return `mb` MB of text", {"mb": {"type": "number"}}, ["mb"]))
        if "list-changed" in m:
            tools.append(_tool("mutate", "Change the tool list"))
        if "server-requests" in m:
            tools.append(_tool("ask", "Send ping, roots/list and custom/thing to the client"))
        if "structured" in m:
            tools.append(
                _tool(
                    "weather", "Weather for a city", {"city": {"type": "string"}}, ["city"], outputSchema=WEATHER_SCHEMA
                )
            )
        if "url-required" in m:
            tools.append(_tool("signin", "Needs two URLs completed first (-32042)"))
            tools.append(_tool("complete", "Complete a URL elicitation", {"id": {"type": "string"}}))
        if "nan" in m:
            tools.append(
                _tool(
                    "ratio",
                    "a / b; NaN when b is 0 (json.dumps writes a bare NaN)",
                    {"a": {"type": "number"}, "b": {"type": "number"}},
                    ["a", "b"],
                )
            )
        if "echo-env" in m:
            tools.append(_tool("env", "Value of env var `name`", {"name": {"type": "string"}}, ["name"]))
            tools.append(_tool("cwd", "Current working directory"))
        return tools

    # ---------------------------------------------------------------- output
    def encode(self, obj) -> bytes:
        data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
        return data + self.eol + (self.eol if "crlf" in self.modes else b"")

    def write_raw(self, data: bytes, split: bool = True):
        """Write already-framed bytes (under the caller's lock), applying garbage/split modes."""
        if "garbage-stdout" in self.modes:
            self.out.write(GARBAGE[self.garbage_i % len(GARBAGE)] + self.eol)
            self.garbage_i += 1
        if split and "split-writes" in self.modes and len(data) > 3:
            cuts = {1, len(data) // 3, 2 * len(data) // 3}
            hi = next((i for i, b in enumerate(data[:4096]) if b >= 0x80), None)
            if hi is not None:
                cuts.add(hi + 1)  # inside the multi-byte character
            prev = 0
            for cut in sorted(cuts) + [len(data)]:
                self.out.write(data[prev:cut])
                self.out.flush()
                time.sleep(0.002)
                prev = cut
        else:
            self.out.write(data)
        self.out.flush()

    def send(self, obj):
        data = self.encode(obj)
        with self.lock:
            self.write_raw(data)

    def result(self, rid, result):
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def error(self, rid, code, message, data=None):
        err = {"code": code, "message": message}
        if data is not None:
            err["data"] = data
        self.send({"jsonrpc": "2.0", "id": rid, "error": err})

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def log(self, line):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()

    # ---------------------------------------------------------------- input
    def serve(self):
        if "garbage-stdout" in self.modes:
            self.out.write(b"Server starting..." + self.eol)
            self.out.flush()
        for raw in sys.stdin.buffer:
            if not raw.strip():
                continue
            try:
                msg = json.loads(raw)
            except ValueError:
                self.error(None, -32700, "Parse error")
                continue
            if "stderr-chatter" in self.modes:
                what = msg.get("method", "response") if isinstance(msg, dict) else "non-object"
                self.log(f"raw-server: received {what} id={msg.get('id') if isinstance(msg, dict) else None}")
            if not isinstance(msg, dict):
                self.error(None, -32600, "Invalid Request")
                continue
            method, params = msg.get("method"), msg.get("params") or {}
            try:
                if method is None and "id" in msg:
                    self.on_response(msg)
                elif not isinstance(method, str):
                    self.error(msg.get("id"), -32600, "Invalid Request")
                elif not isinstance(params, dict):
                    if "id" in msg:
                        self.error(msg["id"], -32602, "params must be an object")
                elif "id" in msg:
                    self.on_request(msg["id"], method, params)
                else:
                    self.on_notification(method, params)
            except Exception as exc:  # never die on a malformed client message
                self.log(f"raw-server: internal error: {exc!r}")
                if method is not None and "id" in msg:
                    self.error(msg["id"], -32603, f"Internal error: {exc}")
        if "no-exit-on-eof" in self.modes:
            time.sleep(60)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    def on_response(self, msg):
        slot = self.pending.get(msg.get("id"))
        if slot is not None:
            slot[1] = msg
            slot[0].set()

    def on_notification(self, method, params):
        if method == "notifications/cancelled":
            rid = params.get("requestId")
            self.cancelled.add(rid)
            self.log(f"cancelled {rid}")
        elif method == "notifications/initialized":
            if "bad-frames" in self.modes:
                self.send_bad_frames()
            if "nonfinite-ids" in self.modes:
                with self.lock:
                    for line in (
                        b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
                        b'{"jsonrpc":"2.0","id":NaN,"result":{}}',
                        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":-Infinity}}',
                    ):
                        self.write_raw(line + self.eol)
            if "invalid-utf8" in self.modes:
                with self.lock:
                    self.write_raw(b"\xff\xfe garbage" + self.eol)
                    self.write_raw(
                        b'{"jsonrpc":"2.0","method":"notifications/message","params":'
                        b'{"level":"info","data":"bad \xff\xfe bytes"}}' + self.eol
                    )
            if self.flood_on_start:
                self.flood(self.flood_on_start)

    def on_request(self, rid, method, params):
        if method == "initialize":
            version = params.get("protocolVersion")
            if "unsupported-version" in self.modes:
                version = "1999-01-01"
            elif version not in VERSIONS:
                version = "2025-11-25"
            caps = {"tools": {"listChanged": True}}
            if self.flood_on_start or {"flood", "invalid-utf8", "bad-frames"} & self.modes:
                caps["logging"] = {}
            answer = {
                "protocolVersion": version,
                "capabilities": caps,
                "serverInfo": {"name": "raw-server", "version": "1.0.0"},
                "instructions": "Raw fixture server ✓",
            }
            if "ask-on-start" in self.modes:
                return threading.Thread(target=self.ask_then_answer, args=(rid, answer), daemon=True).start()
            self.result(rid, answer)
        elif method in ("ping", "logging/setLevel"):
            self.result(rid, {})
        elif method == "tools/list":
            self.list_tools(rid, params)
        elif method == "tools/call":
            self.call_tool(rid, params)
        else:
            self.error(rid, -32601, f"Method not found: {method}")

    def ask_then_answer(self, rid, answer):
        with self.lock:
            sid = self.next_srv_id
            self.next_srv_id += 1
        slot = self.pending[sid] = [threading.Event(), None]
        self.send(
            {
                "jsonrpc": "2.0",
                "id": sid,
                "method": "elicitation/create",
                "params": {
                    "mode": "form",
                    "message": "Before we start: who are you?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
                },
            }
        )
        slot[0].wait(10)
        self.result(rid, answer)

    def list_tools(self, rid, params):
        if "changed-during-list" in self.modes and not self.listed:
            self.listed = True
            self.notify("notifications/tools/list_changed", {})
            time.sleep(0.3)
        if "cursor-loop" in self.modes:
            return self.result(rid, {"tools": self.tools, "nextCursor": "loop"})
        if not self.page_size:
            return self.result(rid, {"tools": self.tools})
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            try:
                start = int(cursor.removeprefix("page-"))
            except (AttributeError, ValueError):
                return self.error(rid, -32602, f"Invalid cursor: {cursor!r}")
        page = {"tools": self.tools[start : start + self.page_size]}
        if start + self.page_size < len(self.tools):
            page["nextCursor"] = f"page-{start + self.page_size}"
        self.result(rid, page)

    # ---------------------------------------------------------------- tools
    def call_tool(self, rid, params):
        m = self.modes
        if "crash-on-call" in m:
            self.log("fatal: boom")
            self.log("Traceback (most recent call last):")
            self.log("RuntimeError: simulated crash")
            os._exit(3)
        if "die-by-signal" in m:
            os.kill(os.getpid(), signal.SIGKILL)
        if "never-answer" in m:
            return
        if "is-error" in m:
            return self.result(rid, {"content": [{"type": "text", "text": "bad"}], "isError": True})
        name, args = params.get("name"), params.get("arguments") or {}
        if "late-answer" in m:

            def late():
                time.sleep(self.delay)
                self.run_tool(rid, name, args, params)

            return threading.Thread(target=late, daemon=True).start()
        if name in ("slow", "ask"):
            return threading.Thread(target=self.run_tool, args=(rid, name, args, params), daemon=True).start()
        self.run_tool(rid, name, args, params)

    def run_tool(self, rid, name, args, params):
        if name not in {t["name"] for t in self.tools}:
            return self.error(rid, -32602, f"Unknown tool: {name}")
        try:
            out = getattr(self, "tool_" + name, None) if not name.startswith("tool_") else None
            res = out(rid, args, params) if out else _text(name)
        except (KeyError, TypeError, ValueError) as exc:
            res = {"content": [{"type": "text", "text": f"invalid arguments: {exc!r}"}], "isError": True}
        if res is not None:
            self.result(rid, res)

    def tool_echo(self, rid, args, params):
        return _text(str(args["text"]))

    def tool_add(self, rid, args, params):
        a, b = args["a"], args["b"]
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
            raise TypeError("a and b must be numbers")
        return _text(str(a + b + args.get("c", 0)))

    def tool_new_tool(self, rid, args, params):
        return _text("new")

    def tool_slow(self, rid, args, params):
        seconds = float(args.get("seconds", 1))
        token = (params.get("_meta") or {}).get("progressToken")
        steps = max(1, round(seconds / 0.1))
        for i in range(1, steps + 1):
            time.sleep(seconds / steps)
            if rid in self.cancelled:
                return None
            if token is not None and i < steps:
                self.notify(
                    "notifications/progress",
                    {"progressToken": token, "progress": i, "total": steps, "message": f"step {i}/{steps}"},
                )
        return _text(f"slept {args.get('seconds', 1)}")

    def flood(self, count):
        tpl = (
            '{"jsonrpc":"2.0","method":"notifications/message","params":'
            '{"level":"info","logger":"flood","data":"message %d"}}'
        )
        eol = self.eol.decode() * (2 if "crlf" in self.modes else 1)
        data = "".join(tpl % i + eol for i in range(count)).encode()
        with self.lock:
            self.write_raw(data, split=False)

    def tool_flood(self, rid, args, params):
        count = int(args["count"])
        self.flood(count)
        return _text(f"flooded {count}")

    def tool_huge(self, rid, args, params):
        n = int(float(args["mb"]) * 1048576)
        data = (
            b'{"jsonrpc":"2.0","id":'
            + json.dumps(rid).encode()
            + b',"result":{"content":[{"type":"text","text":"'
            + b"x" * n
            + b'"}]}}'
            + self.eol
        )
        with self.lock:
            self.write_raw(data, split=False)
        return None

    def tool_mutate(self, rid, args, params):
        tools = [t for t in self.tools if t["name"] not in ("echo", "new_tool")]
        for t in tools:
            if t["name"] == "add":
                t["description"] = "Add three numbers"
                t["inputSchema"] = {
                    "type": "object",
                    "required": ["a", "b", "c"],
                    "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "number"}},
                }
        self.tools = tools + [_tool("new_tool", "Appeared after mutate")]
        self.notify("notifications/tools/list_changed", {})
        return _text("mutated")

    def tool_ask(self, rid, args, params):
        answers = {}
        slots = {}
        meta = params.get("_meta") if isinstance(params, dict) else None
        traceparent = meta.get("traceparent") if isinstance(meta, dict) else None
        context = {"_meta": {"traceparent": traceparent}} if isinstance(traceparent, str) else {}
        if context:  # a traced call: a notification in its trace too
            self.notify("notifications/message", {"level": "info", "data": "asking", **context})
        for key, method in (("ping", "ping"), ("roots", "roots/list"), ("custom", "custom/thing")):
            with self.lock:
                sid = self.next_srv_id
                self.next_srv_id += 1
            slots[key] = self.pending[sid] = [threading.Event(), None]
            self.send({"jsonrpc": "2.0", "id": sid, "method": method, "params": dict(context)})
        deadline = time.monotonic() + 10
        for key, (event, _) in slots.items():
            event.wait(max(0.0, deadline - time.monotonic()))
            answers[key] = slots[key][1]
        return _text(json.dumps(answers))

    def tool_signin(self, rid, args, params):
        if {e["elicitationId"] for e in URL_ELICITATIONS} <= self.completed:
            return _text("signed in")
        self.error(rid, -32042, "Sign in first", {"elicitations": URL_ELICITATIONS})
        return None

    def tool_complete(self, rid, args, params):
        ident = args.get("id")
        if ident is None:
            self.notify("notifications/elicitation/complete", {})
        else:
            self.completed.add(ident)
            self.notify("notifications/elicitation/complete", {"elicitationId": ident})
        return _text(f"completed {ident}")

    def tool_weather(self, rid, args, params):
        city = str(args["city"])
        data = (
            {"city": city, "temperature": 21.5, "conditions": "sunny"}
            if city == "Paris"
            else {"city": city, "conditions": "unknown"}
        )
        return {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data}

    def tool_ratio(self, rid, args, params):
        a, b = float(args["a"]), float(args["b"])
        return {
            "content": [{"type": "text", "text": str(a / b if b else "nan")}],
            "structuredContent": {"ratio": a / b if b else float("nan")},
        }

    def tool_env(self, rid, args, params):
        value = os.environ.get(args["name"])
        if value is None:
            return {"content": [{"type": "text", "text": f"not set: {args['name']}"}], "isError": True}
        return _text(value)

    def tool_cwd(self, rid, args, params):
        return _text(os.getcwd())

    def send_bad_frames(self):
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "batched"}}
        frames = [
            {"jsonrpc": "2.0", "id": True, "method": "ping"},
            {"jsonrpc": "2.0", "id": 1.5, "result": {}},
            {"jsonrpc": "2.0", "id": 999999, "result": {}, "error": {"code": -32603, "message": "both"}},
            {"jsonrpc": "1.0", "method": "notifications/message", "params": {"level": "info", "data": "v1"}},
            [note, note],
            42,
            {
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": "extra"},
                "extra": "field",
                "x-unknown": {"a": 1},
            },
        ]
        for f in frames:
            self.send(f)


def _text(text):
    return {"content": [{"type": "text", "text": text}]}


def main(argv=None):
    p = argparse.ArgumentParser(description="Raw JSON-RPC stdio MCP fixture server (see module docstring).")
    p.add_argument(
        "--mode", action="append", default=[], help="comma-separated, repeatable: " + ", ".join(sorted(MODES))
    )
    p.add_argument("--delay", type=float, default=1.0, help="late-answer delay in seconds")
    p.add_argument("--flood-on-start", type=int, default=0, help="N notifications/message after initialized")
    p.add_argument("--tools", type=int, default=100, help="number of tools in paged-tools mode")
    p.add_argument("--extra-tools", default="", help="a file of tool names (one a line) added to the list")
    p.add_argument(
        "--page-size", type=int, default=0, help="tools/list page size (default: unpaged; 10 in paged-tools)"
    )
    args = p.parse_args(argv)
    args.modes = {m.strip() for spec in args.mode for m in spec.split(",") if m.strip()}
    unknown = args.modes - MODES
    if unknown:
        p.error(f"unknown mode(s): {', '.join(sorted(unknown))}")
    if "exit-on-start" in args.modes:
        sys.stderr.write("cannot start: missing API_KEY\n")
        sys.stderr.flush()
        sys.exit(1)
    if "no-exit-on-eof" in args.modes:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    Server(args).serve()


if __name__ == "__main__":
    main()
