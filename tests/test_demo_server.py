"""End-to-end tests of the demo server (``python -m mcp_inspector.demo``) over real pipes.

Each test spawns the server, speaks newline-delimited JSON-RPC to it, and
uses short timeouts everywhere so a misbehaving server fails fast.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 30.0  # a hang guard only (a busy 2-core machine): nothing here is timed
ENV = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
ALL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MAIN_TOOLS = {
    "echo",
    "add",
    "create_ticket",
    "long_running_task",
    "toggle_extra_tools",
    "emit_logs",
    "all_content_types",
    "weather_report",
    "broken_structured_output",
    "failing_tool",
    "ask_the_client",
    "flood_notifications",
    "touch_resource",
    "long_job",
    "generate_report",
}


class Demo:
    """A running demo server plus a message backlog to wait on."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mcp_inspector.demo", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=ENV,
        )
        self.inbox: queue.Queue = queue.Queue()
        self.backlog: list[dict] = []
        self.stderr = b""
        self._next_id = 0
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stdout(self) -> None:
        for line in self.proc.stdout:
            # Anything on stdout that is not JSON is a bug: surface it as a message.
            try:
                self.inbox.put(json.loads(line))
            except ValueError:
                self.inbox.put({"NOT_JSON": line.decode(errors="replace")})
        self.inbox.put(None)

    def _read_stderr(self) -> None:
        self.stderr = self.proc.stderr.read()

    # -- sending ---------------------------------------------------------------

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, method: str, params: dict | None = None, **meta) -> int:
        self._next_id += 1
        message: dict = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None or meta:
            message["params"] = dict(params or {})
            if meta:
                message["params"]["_meta"] = meta
        self.send(message)
        return self._next_id

    def notify(self, method: str, params: dict | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    # -- receiving ---------------------------------------------------------------

    def wait_for(self, predicate, timeout: float = TIMEOUT) -> dict:
        """Return (and remove) the first message matching ``predicate``."""
        for i, message in enumerate(self.backlog):
            if predicate(message):
                return self.backlog.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out; unmatched messages: {self.backlog[-5:]}")
            try:
                message = self.inbox.get(timeout=remaining)
            except queue.Empty:
                continue
            if message is None:
                self.inbox.put(None)  # keep reporting EOF
                raise AssertionError(f"server closed stdout; stderr: {self.stderr[-2000:]!r}")
            assert "NOT_JSON" not in message, message
            if predicate(message):
                return message
            self.backlog.append(message)

    def response(self, request_id, timeout: float = TIMEOUT) -> dict:
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    def call(self, method: str, params: dict | None = None, **meta) -> dict:
        """Send a request and return its result (failing on a JSON-RPC error)."""
        reply = self.response(self.request(method, params, **meta))
        assert "result" in reply, reply
        return reply["result"]

    def ran_for(self, seconds: float) -> None:
        """Return once the server's own event loop has run ``seconds`` (a long_running_task that long,
        without a progress token, answered). For a test that something the server does on a timer did
        NOT happen: the server's timers had their chances, which a sleep in the test cannot promise
        (it can pass while the server gets no CPU on a loaded machine)."""
        arguments = {"duration_seconds": seconds, "steps": 1}
        self.call("tools/call", {"name": "long_running_task", "arguments": arguments})

    def error(self, method: str, params: dict | None = None) -> dict:
        reply = self.response(self.request(method, params))
        assert "error" in reply, reply
        return reply["error"]

    def tool(self, name: str, arguments: dict | None = None, **meta) -> dict:
        return self.call("tools/call", {"name": name, "arguments": arguments or {}}, **meta)

    def notifications(self, method: str) -> list[dict]:
        """Drain (and remove) already-received notifications with this method."""
        self._drain()
        found = [m for m in self.backlog if m.get("method") == method and "id" not in m]
        self.backlog = [m for m in self.backlog if m not in found]
        return found

    def _drain(self) -> None:
        while True:
            try:
                message = self.inbox.get_nowait()
            except queue.Empty:
                return
            if message is None:
                self.inbox.put(None)
                return
            self.backlog.append(message)

    def initialize(self, version: str = "2025-11-25", capabilities: dict | None = None) -> dict:
        result = self.call(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "pytest", "version": "0"},
            },
        )
        self.notify("notifications/initialized")
        return result

    def close(self) -> int:
        if self.proc.stdin and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            return self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise


@pytest.fixture
def demo():
    server = Demo()
    server.initialize()
    yield server
    if server.proc.poll() is None:
        server.close()


def tool_named(tools: list[dict], name: str) -> dict:
    return next(t for t in tools if t["name"] == name)


def text_of(result: dict) -> str:
    return "\n".join(block["text"] for block in result["content"] if block["type"] == "text")


# -- lifecycle ------------------------------------------------------------------


@pytest.mark.parametrize("version", ALL_VERSIONS)
def test_initialize_echoes_supported_version(version):
    server = Demo()
    try:
        result = server.initialize(version)
        assert result["protocolVersion"] == version
        assert result["serverInfo"]["name"] == "mcp-inspector-demo"
        assert result["serverInfo"]["title"] == "MCP Inspector Demo"
        assert result["serverInfo"]["version"]
        expected = {
            "tools": {"listChanged": True},
            "resources": {"subscribe": True, "listChanged": True},
            "prompts": {"listChanged": True},
            "logging": {},
            "completions": {},
        }
        if version == "2025-11-25":  # tasks exist from 2025-11-25 only
            expected["tasks"] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
        assert result["capabilities"] == expected
        assert result["instructions"].startswith("# ")
        assert "\n- " in result["instructions"]
    finally:
        assert server.close() == 0


def test_initialize_unsupported_version_gets_latest():
    server = Demo()
    try:
        assert server.initialize("1999-01-01")["protocolVersion"] == "2025-11-25"
        assert server.error("initialize", {"capabilities": {}})["code"] == -32602
    finally:
        server.close()


def test_ping_unknown_method_and_discover(demo):
    assert demo.call("ping") == {}
    assert demo.error("no/such/method")["code"] == -32601
    # A 2026-07-28 client probes with server/discover; -32601 tells it "legacy".
    assert demo.error("server/discover")["code"] == -32601


def test_malformed_lines_get_errors_and_server_keeps_going(demo):
    demo.send_raw(b"this is not json\n")
    reply = demo.wait_for(lambda m: "error" in m)
    assert reply["id"] is None and reply["error"]["code"] == -32700
    demo.send_raw(b"\xff\xfe garbage\n")
    assert demo.wait_for(lambda m: "error" in m)["error"]["code"] == -32700
    demo.send_raw(b'[{"jsonrpc":"2.0","id":99,"method":"ping"}]\n')
    assert demo.wait_for(lambda m: "error" in m)["error"]["code"] == -32600
    demo.send_raw(b'{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}\n')
    assert demo.response(7)["error"]["code"] == -32602
    demo.send_raw(b"\n   \n")  # blank lines are ignored
    assert demo.call("ping") == {}


def test_eof_exits_zero_and_answers_piped_requests():
    server = Demo()
    request_id = server.request(
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "0"}},
    )
    ping_id = server.request("ping")
    server.proc.stdin.close()  # EOF straight away, like `printf ... | demo`
    assert server.proc.wait(timeout=TIMEOUT) == 0
    assert server.response(request_id)["result"]["protocolVersion"] == "2025-06-18"
    assert server.response(ping_id)["result"] == {}


def test_eof_during_long_task_exits_promptly():
    server = Demo()
    server.initialize()
    server.request("tools/call", {"name": "long_running_task", "arguments": {"duration_seconds": 60}})
    started = time.monotonic()
    assert server.close() == 0
    assert time.monotonic() - started < 30  # long before the 60 s task ends; the bound is loose


def test_no_heavy_or_sdk_imports():
    code = (
        "import sys, time; t = time.perf_counter();"
        "import mcp_inspector.demo.__main__, mcp_inspector.demo.server;"
        "bad = [m for m in ('mcp', 'fastmcp', 'textual', 'rich', 'jsonschema', 'pydantic') if m in sys.modules];"
        "print(bad, time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=ENV, capture_output=True, text=True, timeout=10)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("[] "), out.stdout


# -- tools ------------------------------------------------------------------------


def test_tools_list_contents(demo):
    tools = demo.call("tools/list")["tools"]
    names = {t["name"] for t in tools}
    assert names == MAIN_TOOLS  # weather_forecast only appears after toggling
    for tool in tools:
        assert tool["title"] and tool["description"]
        assert tool["inputSchema"]["type"] == "object"
        assert set(tool["annotations"]) >= {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
        jsonschema.Draft202012Validator.check_schema(tool["inputSchema"])
        if "outputSchema" in tool:
            jsonschema.Draft202012Validator.check_schema(tool["outputSchema"])
    for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
        assert len({t["annotations"][hint] for t in tools}) == 2, f"{hint} is never varied"
    ticket = tool_named(tools, "create_ticket")["inputSchema"]["properties"]
    assert ticket["title"]["minLength"] == 3 and ticket["title"]["maxLength"] == 80
    assert ticket["priority"]["enum"] == ["low", "medium", "high", "urgent"]
    assert ticket["priority"]["default"] == "medium"
    assert ticket["tags"]["uniqueItems"] is True
    assert ticket["assignee"]["required"] == ["name"]
    assert ticket["assignee"]["properties"]["email"]["format"] == "email"
    assert ticket["due"]["format"] == "date"
    assert (ticket["estimate_hours"]["minimum"], ticket["estimate_hours"]["maximum"]) == (0, 1000)
    assert ticket["labels"]["items"]["enum"]


def test_echo_add_and_structured_output(demo):
    tools = demo.call("tools/list")["tools"]
    assert text_of(demo.tool("echo", {"message": "hello"})) == "hello"
    result = demo.tool("add", {"a": 2, "b": 3})
    assert text_of(result) == "5" and result["structuredContent"] == {"sum": 5}
    jsonschema.validate(result["structuredContent"], tool_named(tools, "add")["outputSchema"])
    report = demo.tool("weather_report", {"city": "Lisbon"})
    jsonschema.validate(report["structuredContent"], tool_named(tools, "weather_report")["outputSchema"])
    assert json.loads(text_of(report)) == report["structuredContent"]
    broken = demo.tool("broken_structured_output")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken["structuredContent"], tool_named(tools, "broken_structured_output")["outputSchema"])


def test_create_ticket(demo):
    schema = tool_named(demo.call("tools/list")["tools"], "create_ticket")["outputSchema"]
    minimal = demo.tool("create_ticket", {"title": "Fix the thing"})
    assert not minimal.get("isError")
    ticket = minimal["structuredContent"]
    jsonschema.validate(ticket, schema, format_checker=jsonschema.FormatChecker())
    assert (ticket["priority"], ticket["count"], ticket["notify"]) == ("medium", 1, True)
    full = demo.tool(
        "create_ticket",
        {
            "title": "Crash on start",
            "description": "Boom",
            "priority": "urgent",
            "tags": ["crash", "p0"],
            "assignee": {"name": "Ada", "email": "ada@example.com"},
            "due": "2026-01-31",
            "estimate_hours": 2.5,
            "count": 2,
            "notify": False,
            "labels": ["bug", "ui"],
        },
    )["structuredContent"]
    jsonschema.validate(full, schema, format_checker=jsonschema.FormatChecker())
    assert full["assignee"]["email"] == "ada@example.com" and full["id"] != ticket["id"]


def test_invalid_arguments_are_tool_errors_from_2025_11_25(demo):
    bad = demo.tool(
        "create_ticket",
        {"title": "x", "priority": "whenever", "tags": ["a", "a"], "assignee": {"email": "nope"}, "estimate_hours": -1},
    )
    assert bad["isError"] is True
    for fragment in ("title", "priority", "tags", "name", "email", "estimate_hours"):
        assert fragment in text_of(bad)
    unknown = demo.error("tools/call", {"name": "no_such_tool", "arguments": {}})
    assert unknown["code"] == -32602


def test_invalid_arguments_are_protocol_errors_before_2025_11_25():
    server = Demo()
    try:
        server.initialize("2025-06-18")
        assert server.error("tools/call", {"name": "add", "arguments": {"a": 1}})["code"] == -32602
    finally:
        server.close()


def test_failing_tool_is_a_tool_level_error(demo):
    result = demo.tool("failing_tool", {"reason": "disk full"})
    assert result["isError"] is True and "disk full" in text_of(result)


def test_all_content_types(demo):
    content = demo.tool("all_content_types")["content"]
    assert [b["type"] for b in content] == ["text", "text", "image", "audio", "resource_link", "resource", "resource"]
    json.loads(content[1]["text"])
    png = base64.b64decode(content[2]["data"])
    assert content[2]["mimeType"] == "image/png" and png.startswith(b"\x89PNG\r\n\x1a\n")
    wav = base64.b64decode(content[3]["data"])
    assert content[3]["mimeType"] == "audio/wav" and wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
    assert content[4]["uri"] == "demo://readme" and content[4]["name"]
    assert "text" in content[5]["resource"] and "blob" in content[6]["resource"]
    assert any("annotations" in b for b in content)


def test_progress_notifications(demo):
    result = demo.tool("long_running_task", {"duration_seconds": 0.2, "steps": 4}, progressToken="tok-1")
    assert "4 steps" in text_of(result)
    progress = [m["params"] for m in demo.notifications("notifications/progress")]
    assert [p["progress"] for p in progress] == [1, 2, 3, 4]
    assert all(p["progressToken"] == "tok-1" and p["total"] == 4 for p in progress)
    assert progress[2]["message"] == "step 3/4"


def test_cancellation_stops_progress_and_other_requests_still_run(demo):
    call_id = demo.request(
        "tools/call",
        {"name": "long_running_task", "arguments": {"duration_seconds": 10, "steps": 100}},
        progressToken=7,
    )
    demo.wait_for(lambda m: m.get("method") == "notifications/progress")
    assert demo.call("ping") == {}  # the long task does not block other requests
    demo.notify("notifications/cancelled", {"requestId": call_id, "reason": "test"})
    assert demo.call("ping") == {}
    demo.notifications("notifications/progress")  # discard anything sent before the cancel landed
    demo.ran_for(0.4)  # four steps of the cancelled task
    assert demo.notifications("notifications/progress") == []
    assert not [m for m in demo.backlog if m.get("id") == call_id]  # no response for a cancelled request


def test_toggle_extra_tools_changes_the_list(demo):
    before = demo.call("tools/list")["tools"]
    demo.tool("toggle_extra_tools")
    demo.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")
    after = demo.call("tools/list")["tools"]
    assert {t["name"] for t in after} - {t["name"] for t in before} == {"weather_forecast"}
    old_echo, new_echo = tool_named(before, "echo"), tool_named(after, "echo")
    assert old_echo["description"] != new_echo["description"]
    assert "uppercase" in new_echo["inputSchema"]["properties"]
    assert text_of(demo.tool("echo", {"message": "hi", "uppercase": True})) == "HI"
    forecast = demo.tool("weather_forecast", {"city": "Oslo", "days": 2})
    jsonschema.validate(forecast["structuredContent"], tool_named(after, "weather_forecast")["outputSchema"])
    assert len(forecast["structuredContent"]["days"]) == 2

    demo.tool("toggle_extra_tools")
    demo.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")
    assert demo.call("tools/list")["tools"] == before
    assert demo.error("tools/call", {"name": "weather_forecast", "arguments": {"city": "Oslo"}})["code"] == -32602


def test_logging_set_level_filters(demo):
    result = demo.tool("emit_logs", {"count": 8})
    assert result["structuredContent"]["sent"] == 8
    assert len(demo.notifications("notifications/message")) == 8
    assert demo.call("logging/setLevel", {"level": "warning"}) == {}
    result = demo.tool("emit_logs", {"count": 8})
    assert result["structuredContent"] == {"requested": 8, "sent": 5, "minimum_level": "warning"}
    levels = [m["params"]["level"] for m in demo.notifications("notifications/message")]
    assert levels == ["warning", "error", "critical", "alert", "emergency"]
    assert demo.error("logging/setLevel", {"level": "loud"})["code"] == -32602


def test_flood_notifications(demo):
    result = demo.tool("flood_notifications", {"count": 500})
    assert "Sent 500" in text_of(result)
    assert len(demo.notifications("notifications/message")) == 500


# -- server -> client requests ---------------------------------------------------------


def _ask(server: Demo, kind: str, answer: dict | None = None, error: dict | None = None):
    call_id = server.request("tools/call", {"name": "ask_the_client", "arguments": {"kind": kind}})
    incoming = server.wait_for(lambda m: "method" in m and "id" in m)
    assert str(incoming["id"]).startswith("demo-")
    reply = {"jsonrpc": "2.0", "id": incoming["id"]}
    reply.update({"error": error} if error else {"result": answer})
    server.send(reply)
    return incoming, server.response(call_id)["result"]


def test_ask_the_client_round_trips():
    server = Demo()
    try:
        server.initialize(capabilities={"sampling": {}, "elicitation": {}, "roots": {"listChanged": True}})
        request, result = _ask(
            server,
            "sampling",
            {"role": "assistant", "model": "test-model", "content": {"type": "text", "text": "A haiku"}},
        )
        assert request["method"] == "sampling/createMessage" and request["params"]["messages"]
        assert not result.get("isError") and "test-model" in text_of(result)

        request, result = _ask(server, "elicitation", {"action": "accept", "content": {"name": "Ada", "age": 36}})
        schema = request["params"]["requestedSchema"]
        assert request["method"] == "elicitation/create"
        assert set(schema["properties"]) == {"name", "age", "subscribe", "colour"}
        assert {p["type"] for p in schema["properties"].values()} == {"string", "integer", "boolean"}
        assert "Ada" in text_of(result)

        request, result = _ask(server, "roots", {"roots": [{"uri": "file:///tmp", "name": "tmp"}]})
        assert request["method"] == "roots/list" and "file:///tmp" in text_of(result)

        _, result = _ask(server, "roots", error={"code": -32601, "message": "nope"})
        assert result["isError"] is True and "nope" in text_of(result)
    finally:
        server.close()


def test_ask_the_client_without_capability(demo):
    result = demo.tool("ask_the_client", {"kind": "sampling"})
    assert result["isError"] is True and "capability" in text_of(result)


def test_ask_the_client_times_out():
    server = Demo("--client-timeout", "0.3")
    try:
        server.initialize(capabilities={"roots": {}})
        result = server.tool("ask_the_client", {"kind": "roots"})
        assert result["isError"] is True and "did not answer" in text_of(result)
        cancel = server.wait_for(lambda m: m.get("method") == "notifications/cancelled")
        assert cancel["params"]["requestId"].startswith("demo-")
    finally:
        server.close()


# -- resources, prompts, completion ----------------------------------------------------


def test_resources(demo):
    resources = demo.call("resources/list")["resources"]
    assert {r["uri"]: r["mimeType"] for r in resources} == {
        "demo://readme": "text/markdown",
        "demo://config.json": "application/json",
        "demo://logo.png": "image/png",
        "demo://clock": "application/json",
    }
    assert demo.call("resources/read", {"uri": "demo://readme"})["contents"][0]["text"].startswith("# ")
    json.loads(demo.call("resources/read", {"uri": "demo://config.json"})["contents"][0]["text"])
    blob = demo.call("resources/read", {"uri": "demo://logo.png"})["contents"][0]["blob"]
    assert base64.b64decode(blob).startswith(b"\x89PNG")
    templates = demo.call("resources/templates/list")["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "demo://notes/{note_id}"
    note = demo.call("resources/read", {"uri": "demo://notes/shopping"})["contents"][0]
    assert note["uri"] == "demo://notes/shopping" and "shopping" in note["text"]
    missing = demo.error("resources/read", {"uri": "demo://nope"})
    assert missing["code"] == -32002


def test_subscribe_and_updated_notification(demo):
    assert demo.call("resources/subscribe", {"uri": "demo://notes/todo"}) == {}
    result = demo.tool("touch_resource", {"uri": "demo://notes/todo"})
    assert not result.get("isError")
    updated = demo.wait_for(lambda m: m.get("method") == "notifications/resources/updated")
    assert updated["params"]["uri"] == "demo://notes/todo"
    assert "Revision: 1" in demo.call("resources/read", {"uri": "demo://notes/todo"})["contents"][0]["text"]
    assert demo.call("resources/unsubscribe", {"uri": "demo://notes/todo"}) == {}
    demo.tool("touch_resource", {"uri": "demo://notes/todo"})
    assert demo.notifications("notifications/resources/updated") == []
    assert demo.tool("touch_resource", {"uri": "demo://missing"})["isError"] is True


def test_prompts(demo):
    prompts = {p["name"]: p for p in demo.call("prompts/list")["prompts"]}
    assert set(prompts) == {"summarize", "code_review", "explain_error"}
    summary = demo.call("prompts/get", {"name": "summarize", "arguments": {"text": "Long text", "style": "formal"}})
    assert summary["messages"][0]["role"] == "user" and "Long text" in summary["messages"][0]["content"]["text"]
    review = demo.call("prompts/get", {"name": "code_review", "arguments": {"language": "python", "code": "x=1"}})
    assert "x=1" in review["messages"][0]["content"]["text"]
    assert demo.error("prompts/get", {"name": "code_review", "arguments": {"language": "go"}})["code"] == -32602
    assert demo.error("prompts/get", {"name": "nope"})["code"] == -32602


def test_completion(demo):
    def complete(ref, name, value):
        return demo.call("completion/complete", {"ref": ref, "argument": {"name": name, "value": value}})["completion"]

    assert complete({"type": "ref/prompt", "name": "summarize"}, "style", "c")["values"] == ["concise", "casual"]
    assert "python" in complete({"type": "ref/prompt", "name": "code_review"}, "language", "py")["values"]
    notes = complete({"type": "ref/resource", "uri": "demo://notes/{note_id}"}, "note_id", "")
    assert "welcome" in notes["values"] and notes["total"] == len(notes["values"])
    assert (
        demo.error(
            "completion/complete",
            {"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "x", "value": ""}},
        )["code"]
        == -32602
    )


# -- pagination ----------------------------------------------------------------------


def _collect(server: Demo, method: str, key: str) -> tuple[list, int]:
    items, pages, params = [], 0, {}
    while True:
        result = server.call(method, params)
        items += result[key]
        pages += 1
        if "nextCursor" not in result:
            return items, pages
        params = {"cursor": result["nextCursor"]}


def test_pagination_with_page_size_flags():
    server = Demo("--page-size", "2", "--tools-page-size", "5")
    try:
        server.initialize()
        tools, pages = _collect(server, "tools/list", "tools")
        assert {t["name"] for t in tools} == MAIN_TOOLS and len(tools) == len(MAIN_TOOLS)
        assert pages == -(-len(MAIN_TOOLS) // 5)
        resources, pages = _collect(server, "resources/list", "resources")
        assert len(resources) == 4 and pages == 2
        prompts, pages = _collect(server, "prompts/list", "prompts")
        assert len(prompts) == 3 and pages == 2
        assert server.error("tools/list", {"cursor": "not-a-cursor"})["code"] == -32602
        first = server.call("resources/list")
        assert server.error("tools/list", {"cursor": first["nextCursor"]})["code"] == -32602
    finally:
        server.close()


def test_default_is_one_page(demo):
    assert "nextCursor" not in demo.call("tools/list")
    assert "nextCursor" not in demo.call("resources/list")
