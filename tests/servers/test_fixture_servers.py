"""Checks that the fixture servers behave as their docstrings say (plain subprocess, no async)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
RAW = HERE / "raw_server.py"
SDK = HERE / "sdk_server.py"
MINIMAL = ROOT / "bench" / "servers" / "minimal_server.py"
PY = sys.executable


class Proc:
    """A server subprocess with a background stdout line reader and stderr collector."""

    def __init__(self, script: Path, *args: str, env=None, cwd=None, read_stdout: bool = True):
        self.p = subprocess.Popen(
            [PY, str(script), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.err = bytearray()
        self.others: list = []  # frames received while waiting for a specific response
        self.junk: list[bytes] = []  # non-JSON stdout lines
        self.next_id = 0
        threading.Thread(target=self._read_err, daemon=True).start()
        if read_stdout:
            threading.Thread(target=self._read_out, daemon=True).start()

    def _read_out(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self):
        for chunk in iter(lambda: self.p.stderr.read1(4096), b""):
            self.err += chunk

    def line(self, timeout=30.0) -> bytes | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no stdout line within {timeout}s; stderr={bytes(self.err)!r}") from None

    def frame(self, timeout=30.0):
        """Next JSON value on stdout (skipping blank and non-JSON lines), or None at EOF."""
        while True:
            raw = self.line(timeout)
            if raw is None:
                return None
            if not raw.strip():
                continue
            try:
                return json.loads(raw)
            except ValueError:
                self.junk.append(raw)

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj).encode() + b"\n")
        self.p.stdin.flush()

    def start_request(self, method, params=None) -> int:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.next_id

    def wait_response(self, rid, timeout=30.0) -> dict:
        while True:
            msg = self.frame(timeout)
            assert msg is not None, f"EOF waiting for response {rid}; stderr={bytes(self.err)!r}"
            if isinstance(msg, dict) and msg.get("id") == rid and "method" not in msg:
                return msg
            self.others.append(msg)

    def request(self, method, params=None, timeout=30.0) -> dict:
        return self.wait_response(self.start_request(method, params), timeout)

    def call(self, name, arguments=None, timeout=30.0, **extra) -> dict:
        return self.request("tools/call", {"name": name, "arguments": arguments or {}, **extra}, timeout)

    def initialize(self, version="2025-11-25") -> dict:
        resp = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "fixture-test", "version": "0"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return resp["result"]

    def wait_stderr(self, text: str, timeout=30.0) -> str:
        deadline = time.monotonic() + timeout
        while text.encode() not in self.err:
            assert time.monotonic() < deadline, f"{text!r} not in stderr {bytes(self.err)!r}"
            time.sleep(0.01)
        return self.err.decode(errors="replace")

    def close(self, timeout=30.0) -> int:
        with contextlib.suppress(BrokenPipeError):
            self.p.stdin.close()
        return self.p.wait(timeout)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait(5)


@pytest.fixture
def spawn():
    procs: list[Proc] = []

    def make(*args, script=RAW, **kw) -> Proc:
        proc = Proc(script, *args, **kw)
        procs.append(proc)
        return proc

    yield make
    for proc in procs:
        proc.kill()


def text_of(resp) -> str:
    return resp["result"]["content"][0]["text"]


# --------------------------------------------------------------------------- raw server, default mode


def test_default_behaviour(spawn):
    s = spawn()
    res = s.initialize("2024-11-05")
    assert res["protocolVersion"] == "2024-11-05"
    assert res["capabilities"] == {"tools": {"listChanged": True}}
    assert res["serverInfo"]["name"] == "raw-server"
    assert [t["name"] for t in s.request("tools/list")["result"]["tools"]] == ["echo", "add", "slow"]
    assert text_of(s.call("echo", {"text": "héllo ✓ 日本"})) == "héllo ✓ 日本"
    assert text_of(s.call("add", {"a": 2, "b": 3})) == "5"
    assert text_of(s.call("add", {"a": 0.5, "b": 1})) == "1.5"
    assert s.call("add", {"a": "x", "b": 1})["result"]["isError"] is True
    assert s.request("ping") == {"jsonrpc": "2.0", "id": s.next_id, "result": {}}
    assert s.request("resources/list")["error"]["code"] == -32601
    assert s.call("nope")["error"]["code"] == -32602
    s.p.stdin.write(b"this is not json\n")
    s.p.stdin.flush()
    assert s.frame() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
    assert s.others == [] and s.junk == []
    assert s.close() == 0


def test_version_fallback(spawn):
    s = spawn()
    assert s.initialize("2099-01-01")["protocolVersion"] == "2025-11-25"
    for v in ("2025-03-26", "2025-06-18"):
        assert spawn().initialize(v)["protocolVersion"] == v


def test_slow_progress_concurrency_and_cancel(spawn):
    s = spawn()
    s.initialize()
    rid = s.start_request(
        "tools/call", {"name": "slow", "arguments": {"seconds": 2.0}, "_meta": {"progressToken": "tok"}}
    )
    assert s.request("ping")["result"] == {}
    # answered while slow runs: the ping's answer came before slow's (frames read meanwhile are kept in others)
    assert not [m for m in s.others if m.get("id") == rid], s.others
    resp = s.wait_response(rid)
    assert text_of(resp) == "slept 2.0"
    progress = [m["params"] for m in s.others if m.get("method") == "notifications/progress"]
    assert len(progress) == 19 and all(p["progressToken"] == "tok" for p in progress)
    assert [p["progress"] for p in progress] == list(range(1, 20)) and progress[0]["total"] == 20
    # cancelled slow call: no response, cancellation logged on stderr
    rid = s.start_request("tools/call", {"name": "slow", "arguments": {"seconds": 0.3}})
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    s.wait_stderr(f"cancelled {rid}")
    time.sleep(0.4)
    assert s.request("ping")["result"] == {}
    assert not any(isinstance(m, dict) and m.get("id") == rid for m in s.others)


# --------------------------------------------------------------------------- framing misbehaviour


def test_garbage_stdout(spawn):
    s = spawn("--mode", "garbage-stdout")
    assert s.line() == b"Server starting...\n"
    s.initialize()
    assert text_of(s.call("add", {"a": 1, "b": 1})) == "2"
    assert b"{\n" in s.junk and len(s.junk) >= 2


def test_crlf(spawn):
    s = spawn("--mode", "crlf")
    s.start_request("ping")
    assert s.line() == b'{"jsonrpc":"2.0","id":1,"result":{}}\r\n'
    assert s.line() == b"\r\n"


def test_split_writes(spawn):
    s = spawn("--mode", "split-writes", read_stdout=False)
    fd = s.p.stdout.fileno()
    split_mid_char = False
    for _ in range(3):
        s.start_request("tools/call", {"name": "echo", "arguments": {"text": "é✓日本"}})
        chunks = []
        while not b"".join(chunks).endswith(b"\n"):
            chunks.append(os.read(fd, 65536))
        data = b"".join(chunks)
        assert json.loads(data)["result"]["content"][0]["text"] == "é✓日本"
        for c in chunks:
            try:
                c.decode()
            except UnicodeDecodeError:
                split_mid_char = True
    assert split_mid_char, "no read ended inside a UTF-8 character"


def test_invalid_utf8(spawn):
    s = spawn("--mode", "invalid-utf8")
    s.initialize()
    assert s.line() == b"\xff\xfe garbage\n"
    line = s.line()
    assert b"\xff\xfe" in line
    assert json.loads(line.decode(errors="replace"))["method"] == "notifications/message"
    assert s.request("ping")["result"] == {}


def test_combined_framing_modes(spawn):
    s = spawn("--mode", "garbage-stdout,crlf", "--mode", "split-writes")
    s.initialize()
    assert text_of(s.call("echo", {"text": "ok ✓"})) == "ok ✓"


# --------------------------------------------------------------------------- process death / timeouts


def test_crash_on_call(spawn):
    s = spawn("--mode", "crash-on-call")
    s.initialize()
    s.start_request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    assert s.frame() is None
    assert s.p.wait(5) == 3
    assert "fatal: boom" in s.wait_stderr("fatal: boom")


def test_die_by_signal(spawn):
    s = spawn("--mode", "die-by-signal")
    s.initialize()
    s.start_request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    assert s.frame() is None
    assert s.p.wait(5) == -signal.SIGKILL


def test_never_answer(spawn):
    s = spawn("--mode", "never-answer")
    s.initialize()
    rid = s.start_request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    assert s.request("ping")["result"] == {}
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": "t"}})
    s.wait_stderr(f"cancelled {rid}")
    time.sleep(0.2)
    assert s.request("ping")["result"] == {}
    assert s.others == []
    assert s.close() == 0


def test_late_answer(spawn):
    s = spawn("--mode", "late-answer", "--delay", "0.3")
    s.initialize()
    t0 = time.monotonic()
    rid = s.start_request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
    assert s.request("ping")["result"] == {}
    assert text_of(s.wait_response(rid)) == "3"
    assert time.monotonic() - t0 >= 0.3


def test_exit_on_start(spawn):
    s = spawn("--mode", "exit-on-start")
    assert s.p.wait(5) == 1
    assert "cannot start: missing API_KEY" in s.wait_stderr("missing API_KEY")


def test_no_exit_on_eof(spawn):
    s = spawn("--mode", "no-exit-on-eof")
    s.initialize()
    s.p.stdin.close()
    time.sleep(0.2)
    s.p.send_signal(signal.SIGTERM)
    time.sleep(0.2)
    assert s.p.poll() is None
    s.p.kill()
    assert s.p.wait(5) == -signal.SIGKILL


def test_unknown_mode_is_rejected(spawn):
    s = spawn("--mode", "bogus")
    assert s.p.wait(5) == 2


# --------------------------------------------------------------------------- volume


def test_flood(spawn):
    s = spawn("--mode", "flood", "--flood-on-start", "50")
    assert "logging" in s.initialize()["capabilities"]
    resp = s.call("flood", {"count": 20000}, timeout=10)
    assert text_of(resp) == "flooded 20000"
    msgs = [m for m in s.others if m.get("method") == "notifications/message"]
    assert len(msgs) == 20050
    assert msgs[0]["params"]["data"] == "message 0" and msgs[-1]["params"]["data"] == "message 19999"


def test_huge_result(spawn):
    s = spawn("--mode", "huge-result")
    s.initialize()
    assert "huge" in [t["name"] for t in s.request("tools/list")["result"]["tools"]]
    assert text_of(s.call("huge", {"mb": 4}, timeout=10)) == "x" * (4 * 1048576)


# --------------------------------------------------------------------------- listing / pagination


def test_paged_tools(spawn):
    s = spawn("--mode", "paged-tools", "--tools", "25", "--page-size", "10")
    s.initialize()
    names, cursor, pages = [], None, 0
    while True:
        res = s.request("tools/list", {"cursor": cursor} if cursor else {})["result"]
        names += [t["name"] for t in res["tools"]]
        pages += 1
        cursor = res.get("nextCursor")
        if cursor is None:
            break
    assert pages == 3 and names == [f"tool_{i:04d}" for i in range(25)]
    assert text_of(s.call("tool_0007")) == "tool_0007"
    assert s.request("tools/list", {"cursor": "garbage"})["error"]["code"] == -32602


def test_cursor_loop(spawn):
    s = spawn("--mode", "cursor-loop")
    s.initialize()
    first = s.request("tools/list")["result"]
    second = s.request("tools/list", {"cursor": first["nextCursor"]})["result"]
    assert first["nextCursor"] == second["nextCursor"] == "loop"


def test_list_changed(spawn):
    s = spawn("--mode", "list-changed")
    s.initialize()
    before = {t["name"]: t for t in s.request("tools/list")["result"]["tools"]}
    assert "mutate" in before and "echo" in before
    assert text_of(s.call("mutate")) == "mutated"
    assert [m["method"] for m in s.others] == ["notifications/tools/list_changed"]
    after = {t["name"]: t for t in s.request("tools/list")["result"]["tools"]}
    assert "echo" not in after and "new_tool" in after
    assert after["add"]["description"] != before["add"]["description"]
    assert "c" in after["add"]["inputSchema"]["properties"]
    assert text_of(s.call("add", {"a": 1, "b": 2, "c": 3})) == "6"
    assert text_of(s.call("new_tool")) == "new"


# --------------------------------------------------------------------------- protocol oddities


def test_bad_frames(spawn):
    s = spawn("--mode", "bad-frames")
    s.initialize()
    frames = [json.loads(s.line()) for _ in range(7)]
    assert frames[0]["id"] is True and frames[1]["id"] == 1.5
    assert "result" in frames[2] and "error" in frames[2]
    assert frames[3]["jsonrpc"] == "1.0"
    assert isinstance(frames[4], list) and len(frames[4]) == 2
    assert frames[5] == 42
    assert frames[6]["extra"] == "field"
    assert s.request("ping")["result"] == {}


def test_server_requests(spawn):
    s = spawn("--mode", "server-requests")
    s.initialize()
    rid = s.start_request("tools/call", {"name": "ask", "arguments": {}})
    seen = []
    for _ in range(3):
        req = s.frame()
        seen.append(req["method"])
        if req["method"] == "ping":
            s.send({"jsonrpc": "2.0", "id": req["id"], "result": {}})
        elif req["method"] == "roots/list":
            s.send({"jsonrpc": "2.0", "id": req["id"], "result": {"roots": [{"uri": "file:///tmp"}]}})
        else:
            s.send({"jsonrpc": "2.0", "id": req["id"], "error": {"code": -32601, "message": "nope"}})
    assert seen == ["ping", "roots/list", "custom/thing"]
    answers = json.loads(text_of(s.wait_response(rid)))
    assert answers["ping"]["result"] == {}
    assert answers["roots"]["result"]["roots"][0]["uri"] == "file:///tmp"
    assert answers["custom"]["error"]["code"] == -32601


def test_unsupported_version_and_is_error(spawn):
    s = spawn("--mode", "unsupported-version,is-error")
    assert s.initialize()["protocolVersion"] == "1999-01-01"
    assert s.call("echo", {"text": "x"})["result"] == {"content": [{"type": "text", "text": "bad"}], "isError": True}


def test_structured(spawn):
    s = spawn("--mode", "structured")
    s.initialize()
    tool = next(t for t in s.request("tools/list")["result"]["tools"] if t["name"] == "weather")
    assert tool["outputSchema"]["required"] == ["city", "temperature", "conditions"]
    good = s.call("weather", {"city": "Paris"})["result"]["structuredContent"]
    assert set(good) == {"city", "temperature", "conditions"}
    bad = s.call("weather", {"city": "London"})["result"]["structuredContent"]
    assert "temperature" not in bad


def test_echo_env(spawn, tmp_path):
    s = spawn("--mode", "echo-env", env={**os.environ, "FIXTURE_VAR": "hello=world"}, cwd=tmp_path)
    s.initialize()
    assert text_of(s.call("env", {"name": "FIXTURE_VAR"})) == "hello=world"
    assert s.call("env", {"name": "SURELY_NOT_SET_123"})["result"]["isError"] is True
    assert Path(text_of(s.call("cwd"))) == tmp_path.resolve()


def test_stderr_chatter(spawn):
    s = spawn("--mode", "stderr-chatter")
    s.initialize()
    s.request("tools/list")
    err = s.wait_stderr("received tools/list")
    assert "received initialize id=1" in err and "received notifications/initialized" in err


# --------------------------------------------------------------------------- SDK server


def test_sdk_server(spawn):
    s = spawn(script=SDK)
    res = s.initialize("2025-06-18")
    assert res["protocolVersion"] == "2025-06-18"
    assert {"tools", "resources", "prompts", "logging"} <= set(res["capabilities"])
    tools = {t["name"]: t for t in s.request("tools/list")["result"]["tools"]}
    assert set(tools) == {"add", "greet", "progress_task", "log_messages", "fail"}
    assert "outputSchema" in tools["add"] and "outputSchema" not in tools["greet"]
    schema = tools["greet"]["inputSchema"]
    assert schema["properties"]["style"]["enum"] == ["formal", "casual", "pirate"]
    assert schema["properties"]["tags"]["type"] == "array" and "Person" in schema["$defs"]

    assert s.call("add", {"a": 2, "b": 3})["result"]["structuredContent"] == {"sum": 5}
    greet = s.call(
        "greet", {"person": {"name": "Ada", "address": {"city": "Paris"}}, "style": "pirate", "tags": ["a", "b"]}
    )
    assert text_of(greet) == "Ahoy, Ada from Paris [a, b]"
    s.others.clear()
    resp = s.call("progress_task", {"steps": 3, "delay": 0.01}, _meta={"progressToken": 7})
    assert text_of(resp) == "done 3 steps"
    assert [m["params"]["progress"] for m in s.others if m["method"] == "notifications/progress"] == [1, 2, 3]
    s.others.clear()
    assert s.request("logging/setLevel", {"level": "info"})["result"] == {}
    assert text_of(s.call("log_messages")) == "logged 3"
    assert sorted(m["params"]["level"] for m in s.others) == ["error", "info", "warning"]
    fail = s.call("fail", {"message": "kaboom"})["result"]
    assert fail["isError"] is True and "kaboom" in fail["content"][0]["text"]

    assert s.request("resources/list")["result"]["resources"][0]["uri"] == "info://server"
    assert s.request("resources/templates/list")["result"]["resourceTemplates"][0]["uriTemplate"] == "greeting://{name}"
    read = s.request("resources/read", {"uri": "greeting://bob"})["result"]["contents"][0]
    assert read["text"] == "Hello, bob!"
    prompt = s.request("prompts/get", {"name": "review_code", "arguments": {"code": "x=1"}})["result"]
    assert "x=1" in prompt["messages"][0]["content"]["text"]
    assert s.close() == 0


# --------------------------------------------------------------------------- benchmark baseline


def test_minimal_server_and_client():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import minimal_client
    finally:
        sys.path.remove(str(ROOT / "bench"))
    cmd = [PY, str(MINIMAL)]
    assert [t["name"] for t in minimal_client.list_tools(cmd)] == ["add"]
    latencies = minimal_client.run_calls(cmd, 50)
    assert len(latencies) == 50 and all(0 < x < 1 for x in latencies)
    out = subprocess.run(
        [PY, str(ROOT / "bench" / "minimal_client.py"), "calls", "10", "--", *cmd],
        capture_output=True,
        text=True,
        timeout=10,
    )
    assert out.returncode == 0 and out.stdout.startswith("calls=10 ")
