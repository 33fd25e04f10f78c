#!/usr/bin/env python3
"""A hand-written 2026-07-28-only ("modern") MCP server over stdio, for the era tests.

Stdlib only. It rejects ``initialize`` with -32601, answers ``server/discover``,
checks that every request's ``params._meta`` carries the protocol version and
the client capabilities (-32602 otherwise, -32022 for another version), and
records each request's ``_meta`` on stderr (``meta <method> <json>``).

Tools:
* ``echo(text)``: the text back.
* ``wizard()``: MRTR over two rounds: first an ``elicitation/create`` (key
  ``who``), then a ``sampling/createMessage`` (key ``poem``), each with a
  ``requestState`` it verifies (a tampered one gets -32602); then
  ``"<name>: <sampled text>"``.
* ``add_tool(name)``: adds a tool, then sends ``notifications/tools/list_changed``
  tagged with the subscriptionId of the open ``subscriptions/listen`` (if any).
* ``log()``: ``notifications/message`` at every level at or above the
  ``_meta`` log level of the call (none when it has no log level).
* ``touch(uri)``: ``notifications/resources/updated`` on the listen stream if it
  subscribed to ``uri``.
* ``end_listen()``: ends the listen stream gracefully (a result for its id).
* ``cancel_listen()``: ends it with ``notifications/cancelled``.
* ``long()``: a tasks-extension result (``resultType: "task"``) in the 2025-11-25 shape
  (a nested ``task``, no ``taskId`` inline): malformed.
* ``research(topic, ask?, fail?, never?, weird?)``: a task (the io.modelcontextprotocol/tasks
  extension, ``pollIntervalMs`` 50). Each ``tasks/get`` moves it on: working ("Gathering
  sources"), then with ``ask`` input_required with the elicitation inputRequest
  ``clarify-1`` (sent again on every poll until ``tasks/update`` answers it; each
  tasks/update is logged on stderr as ``tasks/update <json>``), working ("Continuing
  with <answer>"), then completed with ``Report on <topic> (<answer>)``. ``draft``: the
  inputRequest is a ``sampling/createMessage`` (``draft-1``) instead. ``fail``: failed
  with the JSON-RPC error -32603 instead; ``never``: working forever; ``weird``: status
  ``paused`` (not a status). ``tasks/cancel`` acknowledges and makes it cancelled; an
  unknown taskId gets -32602. A listen stream that asks for its ``taskIds`` gets
  ``notifications/tasks`` (the DetailedTask) on every change.
* ``slow_retry()``: MRTR asking a name, then a second's pause before answering the retry.
* ``roots()``: MRTR asking for ``roots/list`` (key ``roots``), returns how many came.
* ``sample_with_tools()``: MRTR asking for a ``sampling/createMessage`` with ``tools``
  (key ``plan``), whatever the client declared; returns the sampled text.
* ``open_url()``: MRTR asking for a URL-mode ``elicitation/create`` (key ``visit``), whatever
  the client declared; returns the action it got.

``prompts/list`` has two pages, the first ending with ``nextCursor: ""``. ``prompts/get``
of ``greet`` and ``resources/read`` of ``memo://ask`` ask for a name (MRTR) first;
``prompts/get`` of ``tasky`` answers with a task (invalid: only tools/call may).

Modes (``--mode a,b``):
* ``bad-result-type``: ``echo`` answers with ``resultType: "mystery"``.
* ``endless``: ``wizard`` asks for input forever (requestState only).
* ``server-request``: ``echo`` first sends the client a ``roots/list`` request
  (forbidden in 2026-07-28) and waits for its answer, reported on stderr.
* ``unsupported``: ``server/discover`` answers -32022 (supports only 2099-01-01).
* ``untagged``: ``add_tool`` sends list_changed without the subscriptionId.
* ``float-tag``: ``add_tool`` tags list_changed with the listen id as a float (``3.0``:
  not a JSON-RPC id).
* ``slow-start``: reads nothing for its first second (a server still starting), and
  rejects ``initialize`` with -32022 listing 2026-07-28 (as the official SDK does).
* ``stall-after-input``: after each ``input_required`` result, reads nothing for 1.5 s
  (a large retry then waits in a full pipe).
* ``ack-none``: ``subscriptions/listen`` is acknowledged with an empty filter (nothing honoured).
* ``cancel_other()`` (a tool, any mode): sends ``notifications/cancelled`` for its own
  request id (not a listen stream: 2026-07-28 forbids it), then answers.
* ``header-tools``: two more tools: ``mirrored(region, text)`` (``region`` has
  ``x-mcp-header: Region``; returns the Mcp-* headers it got, over HTTP) and
  ``bad_header`` (an invalid annotation: a number mirrored).

``--http`` serves the same over a minimal 2026-07-28 Streamable HTTP endpoint on
127.0.0.1 (prints ``PORT <n>``; no subscriptions/listen there).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time

VERSION = "2026-07-28"
SUB_KEY = "io.modelcontextprotocol/subscriptionId"
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
SECRET = b"modern-raw-server"


def sign(text: str) -> str:
    return text + "." + hashlib.sha256(SECRET + text.encode()).hexdigest()[:16]


def verify(state: object) -> str | None:
    if not isinstance(state, str) or "." not in state:
        return None
    text = state.rsplit(".", 1)[0]
    return text if sign(text) == state else None


def tool(name: str, description: str, props: dict | None = None) -> dict:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": props or {}}}


class Server:
    def __init__(self, modes: set[str]) -> None:
        self.modes = modes
        self.tools = [
            tool("echo", "Echo the text", {"text": {"type": "string"}}),
            tool("wizard", "Ask for a name, then a poem (MRTR, two rounds)"),
            tool("add_tool", "Add a tool (the list changes)", {"name": {"type": "string"}}),
            tool("log", "Log at every level at or above the request's log level"),
            tool("end_listen", "End the subscriptions/listen stream with a result"),
            tool("cancel_listen", "End the subscriptions/listen stream with notifications/cancelled"),
            tool("long", "Answer with a task (tasks extension)"),
            tool("roots", "Ask for the client's roots (MRTR)"),
            tool("slow_retry", "Ask for a name (MRTR), then answer the retry after a second"),
            tool("touch", "Say a resource changed (on the listen stream)", {"uri": {"type": "string"}}),
            tool("open_url", "Ask the user to open a URL (URL-mode elicitation, MRTR)"),
            tool("sample_with_tools", "Ask for a tool-enabled sampling (MRTR)"),
            tool("cancel_other", "Send notifications/cancelled for this very call (forbidden), then answer"),
            tool(
                "research",
                "Research a topic as a task (tasks extension)",
                {
                    "topic": {"type": "string"},
                    "ask": {"type": "boolean"},
                    "fail": {"type": "boolean"},
                    "never": {"type": "boolean"},
                    "weird": {"type": "boolean"},
                    "draft": {"type": "boolean"},
                },
            ),
        ]
        self.tasks: dict[str, dict] = {}  # taskId -> the research task's state
        self.listen_id = None
        self.watched: list[str] = []  # resourceSubscriptions of the open listen stream
        self.watched_tasks: list[str] = []  # its taskIds (notifications/tasks on each change)
        self.next_server_id = 1000
        self.outbox: list[dict] | None = None
        self.headers: dict[str, str] = {}  # over HTTP: the request's headers
        if "header-tools" in modes:
            self.tools += [
                {
                    "name": "mirrored",
                    "description": "Echoes the Mcp-* headers it got",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "region": {"type": "string", "x-mcp-header": "Region"},
                            "text": {"type": "string"},
                        },
                    },
                },
                {
                    "name": "bad_header",
                    "description": "Invalid: a number mirrored",
                    "inputSchema": {"type": "object", "properties": {"v": {"type": "number", "x-mcp-header": "V"}}},
                },
            ]

    # -- output ---------------------------------------------------------
    def send(self, obj: dict) -> None:
        if self.outbox is not None:  # over HTTP: the messages of the request being answered
            self.outbox.append(obj)
            return
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    def log(self, text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def result(self, rid, result: dict, complete: bool = True) -> None:
        if complete:
            result = {"resultType": "complete", **result}
        meta = dict(result.get("_meta") or {})
        meta.setdefault("io.modelcontextprotocol/serverInfo", {"name": "modern-raw-server", "version": "2.0.0"})
        result["_meta"] = meta
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})
        if result.get("resultType") == "input_required" and "stall-after-input" in self.modes:
            time.sleep(1.5)

    def error(self, rid, code: int, message: str, data=None) -> None:
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": rid, "error": error})

    def notify_listen(self, method: str, params: dict | None = None) -> None:
        if self.listen_id is None:
            return
        params = dict(params or {})
        params["_meta"] = {SUB_KEY: self.listen_id}
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    # -- input ----------------------------------------------------------
    def serve(self) -> None:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                self.error(None, -32700, "Parse error")
                continue
            if not isinstance(msg, dict):
                self.error(None, -32600, "Invalid Request")
                continue
            method = msg.get("method")
            if method is None:
                self.log(f"client answered {msg.get('id')}: {json.dumps(msg.get('result', msg.get('error')))}")
                continue
            params = msg.get("params") if isinstance(msg.get("params"), dict) else {}
            if "id" not in msg:
                self.on_notification(method, params)
                continue
            try:
                self.on_request(msg["id"], method, params)
            except Exception as exc:  # never die on a client message
                self.error(msg["id"], -32603, f"Internal error: {exc!r}")

    def on_notification(self, method: str, params: dict) -> None:
        self.log(f"notification {method} {json.dumps(params)}")
        if method == "notifications/cancelled" and params.get("requestId") == self.listen_id:
            self.listen_id = None

    def on_request(self, rid, method: str, params: dict) -> None:
        if method == "initialize" and "slow-start" in self.modes:
            self.error(
                rid,
                -32022,
                "Unsupported protocol version: initialize is not accepted",
                {"supported": [VERSION], "requested": params.get("protocolVersion")},
            )
            return
        if method == "initialize":
            self.error(
                rid, -32601, "Method not found: initialize (this server speaks only 2026-07-28; supported: 2026-07-28)"
            )
            return
        meta = params.get("_meta")
        self.log(f"meta {method} {json.dumps(meta, sort_keys=True)}")
        if (
            not isinstance(meta, dict)
            or "io.modelcontextprotocol/protocolVersion" not in meta
            or "io.modelcontextprotocol/clientCapabilities" not in meta
        ):
            self.error(
                rid,
                -32602,
                "Invalid params: _meta must carry io.modelcontextprotocol/protocolVersion and clientCapabilities",
            )
            return
        requested = meta["io.modelcontextprotocol/protocolVersion"]
        if "unsupported" in self.modes or requested != VERSION:
            supported = ["2099-01-01"] if "unsupported" in self.modes else [VERSION]
            self.error(rid, -32022, "Unsupported protocol version", {"supported": supported, "requested": requested})
            return
        self.meta = meta
        if method == "server/discover":
            self.result(
                rid,
                {
                    "supportedVersions": [VERSION],
                    "capabilities": {
                        "tools": {"listChanged": True},
                        "resources": {"subscribe": True},
                        "prompts": {},
                        "extensions": {"io.modelcontextprotocol/tasks": {}},
                    },
                    "instructions": "Modern fixture server",
                    "ttlMs": 60000,
                    "cacheScope": "public",
                },
            )
        elif method == "tools/list":
            self.result(rid, {"tools": self.tools, "ttlMs": 1000, "cacheScope": "private"})
        elif method == "tools/call":
            self.call(rid, params)
        elif method == "resources/list":
            self.result(rid, {"resources": [{"uri": "memo://one", "name": "one"}]})
        elif method == "resources/templates/list":
            self.result(rid, {"resourceTemplates": []})
        elif method == "prompts/get" and params.get("name") == "tasky":
            self.result(rid, {"resultType": "task", **self.new_task({"topic": "tasky"})}, complete=False)
        elif method in ("tasks/get", "tasks/update", "tasks/cancel"):
            self.on_task(rid, method, params)
        elif method in ("resources/read", "prompts/get"):
            who = (params.get("inputResponses") or {}).get("who")
            if params.get("name") == "greet" or params.get("uri") == "memo://ask":
                if who is None:  # MRTR here too: ask for a name first
                    self.result(
                        rid,
                        {
                            "resultType": "input_required",
                            "inputRequests": {
                                "who": {
                                    "method": "elicitation/create",
                                    "params": {
                                        "mode": "form",
                                        "message": "Your name?",
                                        "requestedSchema": {"type": "object", "properties": {}},
                                    },
                                }
                            },
                        },
                        complete=False,
                    )
                    return
                text = f"hello {who.get('content', {}).get('name', '?')}"
            else:
                text = "memo"
            if method == "prompts/get":
                self.result(rid, {"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})
            else:
                self.result(rid, {"contents": [{"uri": params.get("uri"), "text": text}]})
        elif method == "prompts/list":  # two pages; the first cursor is "" (valid in 2026-07-28)
            if "cursor" not in params:
                self.result(rid, {"prompts": [{"name": "first"}], "nextCursor": ""})
            elif params["cursor"] == "":
                self.result(rid, {"prompts": [{"name": "second"}]})
            else:
                self.error(rid, -32602, f"invalid cursor {params['cursor']!r}")
        elif method == "subscriptions/listen":
            wanted = params.get("notifications") if isinstance(params.get("notifications"), dict) else {}
            honoured = {
                k: v for k, v in wanted.items() if k in ("toolsListChanged", "resourceSubscriptions", "taskIds")
            }
            if "ack-none" in self.modes:
                honoured = {}
            self.listen_id = rid
            self.watched = list(honoured.get("resourceSubscriptions") or [])
            self.watched_tasks = list(honoured.get("taskIds") or [])
            self.notify_listen("notifications/subscriptions/acknowledged", {"notifications": honoured})
        else:
            self.error(rid, -32601, f"Method not found: {method}")

    def call(self, rid, params: dict) -> None:
        name = params.get("name")
        args = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        if name == "echo":
            if "server-request" in self.modes:
                self.send({"jsonrpc": "2.0", "id": self.next_server_id, "method": "roots/list", "params": {}})
                self.next_server_id += 1
            if "bad-result-type" in self.modes:
                self.result(rid, {"resultType": "mystery", "content": []}, complete=False)
                return
            self.result(rid, {"content": [{"type": "text", "text": str(args.get("text", ""))}]})
        elif name == "wizard":
            self.wizard(rid, params)
        elif name == "slow_retry":  # asks a name, then takes a second to answer the retry
            if "inputResponses" not in params:
                self.result(
                    rid,
                    {
                        "resultType": "input_required",
                        "inputRequests": {
                            "who": {
                                "method": "elicitation/create",
                                "params": {
                                    "mode": "form",
                                    "message": "Your name?",
                                    "requestedSchema": {"type": "object", "properties": {}},
                                },
                            }
                        },
                    },
                    complete=False,
                )
                return
            time.sleep(1.0)
            self.result(rid, {"content": [{"type": "text", "text": "late"}]})
        elif name == "roots":
            answers = params.get("inputResponses") or {}
            if "roots" not in answers:
                self.result(
                    rid,
                    {
                        "resultType": "input_required",
                        "inputRequests": {"roots": {"method": "roots/list", "params": {}}},
                    },
                    complete=False,
                )
                return
            count = len(answers["roots"].get("roots", []))
            self.result(rid, {"content": [{"type": "text", "text": f"{count} roots"}]})
        elif name == "sample_with_tools":
            plan = (params.get("inputResponses") or {}).get("plan")
            if plan is None:
                self.result(
                    rid,
                    {
                        "resultType": "input_required",
                        "inputRequests": {
                            "plan": {
                                "method": "sampling/createMessage",
                                "params": {
                                    "messages": [{"role": "user", "content": {"type": "text", "text": "Plan it"}}],
                                    "maxTokens": 50,
                                    "tools": [{"name": "search", "inputSchema": {"type": "object"}}],
                                },
                            }
                        },
                    },
                    complete=False,
                )
                return
            self.result(rid, {"content": [{"type": "text", "text": str(plan.get("content", {}).get("text"))}]})
        elif name == "open_url":
            visit = (params.get("inputResponses") or {}).get("visit")
            if visit is None:
                self.result(
                    rid,
                    {
                        "resultType": "input_required",
                        "inputRequests": {
                            "visit": {
                                "method": "elicitation/create",
                                "params": {
                                    "mode": "url",
                                    "message": "Sign in, please",
                                    "url": "https://auth.example/start",
                                },
                            }
                        },
                    },
                    complete=False,
                )
                return
            self.result(rid, {"content": [{"type": "text", "text": f"url: {visit.get('action')}"}]})
        elif name == "add_tool":
            self.tools.append(tool(str(args.get("name", "extra")), "Added at run time"))
            if "untagged" in self.modes:
                self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            elif "float-tag" in self.modes and isinstance(self.listen_id, int):
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/tools/list_changed",
                        "params": {"_meta": {SUB_KEY: float(self.listen_id)}},
                    }
                )
            else:
                self.notify_listen("notifications/tools/list_changed")
            self.result(rid, {"content": [{"type": "text", "text": "added"}]})
        elif name == "log":
            level = self.meta.get("io.modelcontextprotocol/logLevel")
            sent = 0
            if level in LEVELS:
                for each in LEVELS[LEVELS.index(level) :]:
                    self.send(
                        {
                            "jsonrpc": "2.0",
                            "method": "notifications/message",
                            "params": {"level": each, "logger": "modern", "data": f"{each} message"},
                        }
                    )
                    sent += 1
            self.result(rid, {"content": [{"type": "text", "text": f"logged {sent}"}]})
        elif name == "touch":
            uri = str(args.get("uri", ""))
            if uri in self.watched:
                self.notify_listen("notifications/resources/updated", {"uri": uri})
            self.result(rid, {"content": [{"type": "text", "text": "touched"}]})
        elif name == "cancel_other":
            self.send(
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": "no"}}
            )
            self.result(rid, {"content": [{"type": "text", "text": "answered anyway"}]})
        elif name == "end_listen":
            listen, self.listen_id = self.listen_id, None
            if listen is not None:
                self.result(listen, {"_meta": {SUB_KEY: listen}})
            self.result(rid, {"content": [{"type": "text", "text": "ended"}]})
        elif name == "cancel_listen":
            listen, self.listen_id = self.listen_id, None
            if listen is not None:
                self.send(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": listen, "reason": "shutting the stream"},
                    }
                )
            self.result(rid, {"content": [{"type": "text", "text": "cancelled"}]})
        elif name == "mirrored":
            mirrored = {k: v for k, v in self.headers.items() if k.startswith("mcp-")}
            self.result(rid, {"content": [{"type": "text", "text": json.dumps(mirrored, sort_keys=True)}]})
        elif name == "long":
            self.result(rid, {"resultType": "task", "task": {"taskId": "t-1", "status": "working"}}, complete=False)
        elif name == "research":
            self.result(rid, {"resultType": "task", **self.new_task(args)}, complete=False)
        else:
            self.result(rid, {"isError": True, "content": [{"type": "text", "text": f"unknown tool {name}"}]})

    # -- the tasks extension ----------------------------------------------
    def new_task(self, args: dict) -> dict:
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        task_id = f"task-{len(self.tasks) + 1}"
        self.tasks[task_id] = {
            "args": args,
            "polls": 0,
            "answer": None,
            "resumed": False,
            "task": {
                "taskId": task_id,
                "status": "working",
                "statusMessage": "Starting",
                "createdAt": now,
                "lastUpdatedAt": now,
                "ttlMs": 60000,
                "pollIntervalMs": 50,
            },
        }
        return dict(self.tasks[task_id]["task"])

    def advance(self, state: dict) -> None:
        task, args = state["task"], state["args"]
        if task["status"] in ("completed", "failed", "cancelled"):
            return
        state["polls"] += 1
        task.pop("inputRequests", None)
        if state["polls"] == 1 or args.get("never"):
            task.update(status="working", statusMessage="Gathering sources")
        elif args.get("weird"):
            task.update(status="paused", statusMessage="Having a rest")
        elif args.get("fail"):
            task.update(
                status="failed",
                statusMessage="Tool execution failed: the research backend is down",
                error={"code": -32603, "message": "the research backend is down"},
            )
        elif args.get("draft") and state["answer"] is None:
            task.update(
                status="input_required",
                statusMessage="Drafting",
                inputRequests={
                    "draft-1": {
                        "method": "sampling/createMessage",
                        "params": {
                            "messages": [{"role": "user", "content": {"type": "text", "text": "Draft it"}}],
                            "maxTokens": 20,
                        },
                    }
                },
            )
        elif args.get("ask") and state["answer"] is None:
            task.update(
                status="input_required",
                statusMessage="Which interpretation?",
                inputRequests={
                    "clarify-1": {
                        "method": "elicitation/create",
                        "params": {
                            "mode": "form",
                            "message": f"What do you mean by {args.get('topic')!r}?",
                            "requestedSchema": {
                                "type": "object",
                                "properties": {
                                    "interpretation": {"type": "string", "enum": ["technical", "historical"]}
                                },
                                "required": ["interpretation"],
                            },
                        },
                    }
                },
            )
        elif args.get("ask") and not state["resumed"]:
            state["resumed"] = True
            task.update(status="working", statusMessage=f"Continuing with {state['answer']}")
        else:
            answer = f" ({state['answer']})" if state["answer"] is not None else ""
            task.update(
                status="completed",
                statusMessage="Done",
                result={
                    "content": [{"type": "text", "text": f"Report on {args.get('topic')}{answer}"}],
                    "isError": False,
                },
            )
        task["lastUpdatedAt"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self.task_changed(task)

    def task_changed(self, task: dict) -> None:
        if task["taskId"] in self.watched_tasks:
            self.notify_listen("notifications/tasks", dict(task))

    def on_task(self, rid, method: str, params: dict) -> None:
        state = self.tasks.get(params.get("taskId"))
        if state is None:
            self.error(rid, -32602, f"Failed to retrieve task: Task not found: {params.get('taskId')!r}")
            return
        task = state["task"]
        if method == "tasks/get":
            self.advance(state)
            self.result(rid, dict(task))
        elif method == "tasks/update":
            self.log(f"tasks/update {json.dumps(params.get('inputResponses'), sort_keys=True)}")
            answer = (params.get("inputResponses") or {}).get("clarify-1")
            if isinstance(answer, dict) and task["status"] == "input_required":
                state["answer"] = (answer.get("content") or {}).get("interpretation") or answer.get("action")
            draft = (params.get("inputResponses") or {}).get("draft-1")
            if isinstance(draft, dict) and task["status"] == "input_required":
                state["answer"] = (draft.get("content") or {}).get("text")
            self.result(rid, {})
        else:  # tasks/cancel: an acknowledgement; the task is cancelled if it still runs
            self.log(f"tasks/cancel {task['taskId']}")
            if task["status"] not in ("completed", "failed", "cancelled"):
                task.pop("inputRequests", None)
                task.update(status="cancelled", statusMessage="Cancelled at the client's request")
                self.task_changed(task)
            self.result(rid, {})

    def wizard(self, rid, params: dict) -> None:
        answers = params.get("inputResponses") or {}
        state = params.get("requestState")
        if "endless" in self.modes:
            self.result(rid, {"resultType": "input_required", "requestState": sign("again")}, complete=False)
            return
        if state is None:
            self.result(
                rid,
                {
                    "resultType": "input_required",
                    "requestState": sign("step1"),
                    "inputRequests": {
                        "who": {
                            "method": "elicitation/create",
                            "params": {
                                "mode": "form",
                                "message": "Your name?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}},
                                    "required": ["name"],
                                },
                            },
                        },
                    },
                },
                complete=False,
            )
            return
        step = verify(state)
        if step is None:
            self.error(rid, -32602, "requestState does not verify")
            return
        if step == "step1":
            who = answers.get("who") or {}
            if who.get("action") != "accept":
                self.result(rid, {"content": [{"type": "text", "text": f"no name ({who.get('action')})"}]})
                return
            name = who.get("content", {}).get("name", "?")
            self.result(
                rid,
                {
                    "resultType": "input_required",
                    "requestState": sign(f"step2:{name}"),
                    "inputRequests": {
                        "poem": {
                            "method": "sampling/createMessage",
                            "params": {
                                "messages": [
                                    {"role": "user", "content": {"type": "text", "text": f"A poem for {name}"}}
                                ],
                                "maxTokens": 50,
                            },
                        },
                    },
                },
                complete=False,
            )
            return
        if step.startswith("step2:"):
            poem = answers.get("poem") or {}
            text = poem.get("content", {}).get("text", "?")
            self.result(rid, {"content": [{"type": "text", "text": f"{step[6:]}: {text}"}]})
            return
        self.error(rid, -32602, f"unexpected state {step}")


def serve_http(server: Server) -> None:
    """The same server over a minimal 2026-07-28 Streamable HTTP endpoint on 127.0.0.1:
    POST only, one JSON reply per request (several messages: an SSE stream), every
    connection closed after its response; ``subscriptions/listen`` is not offered.
    Prints ``PORT <n>``."""
    import asyncio

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            headers = {
                k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in head[1:] if ":" in line)
            }
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, ValueError):
            writer.close()
            return
        status, payload, kind = "405 Method Not Allowed", b"", "text/plain"
        if head[0].startswith("POST "):
            server.outbox, server.headers = [], headers
            try:
                msg = json.loads(body)
                if msg.get("method") == "subscriptions/listen":
                    server.error(msg.get("id"), -32601, "Method not found: subscriptions/listen (not over HTTP here)")
                elif "id" in msg:
                    server.on_request(msg["id"], msg.get("method"), msg.get("params") or {})
            except Exception as exc:
                server.error(None, -32700, f"Parse error: {exc}")
            out, server.outbox = server.outbox, None
            if not out:
                status = "202 Accepted"
            elif len(out) == 1:
                status, payload, kind = "200 OK", json.dumps(out[0]).encode(), "application/json"
            else:
                status, kind = "200 OK", "text/event-stream"
                payload = b"".join(b"data: " + json.dumps(m).encode() + b"\n\n" for m in out)
        writer.write(
            f"HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        try:
            await writer.drain()
        finally:
            writer.close()

    async def run() -> None:
        listener = await asyncio.start_server(handle, "127.0.0.1", 0)
        print(f"PORT {listener.sockets[0].getsockname()[1]}", flush=True)
        await listener.serve_forever()

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="")
    parser.add_argument(
        "--http", action="store_true", help="serve 2026-07-28 Streamable HTTP on 127.0.0.1 instead of stdio"
    )
    args = parser.parse_args()
    server = Server({m for m in args.mode.split(",") if m})
    if "slow-start" in server.modes:
        time.sleep(1.0)
    if args.http:
        serve_http(server)
    else:
        server.serve()


if __name__ == "__main__":
    main()
