"""The CLI against real HTTP servers on 127.0.0.1: --url with each transport, headers and
tokens on the wire (and masked everywhere else), config url entries, error exits.

Two kinds of server: the fixtures' real ones (server-everything in streamableHttp and sse
modes, the mcp SDK's Streamable HTTP server: tests/http_fixtures.py), and ``RecordingServer``
below, a small threaded HTTP server that speaks just enough MCP (legacy JSON replies, or
2026-07-28 when the request says so) and keeps every request's headers, so a test can see
what went on the wire.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cli_helpers import assert_no_traceback, cli

SECRET = "sk-live-0123456789abcdef"
MODERN = "2026-07-28"

TOOLS = [
    {
        "name": "hello",
        "inputSchema": {"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
    },
    {
        "name": "bad_header",
        "inputSchema": {"type": "object", "properties": {"v": {"type": "string", "x-mcp-header": ""}}},
    },
]


class RecordingServer:
    """``/mcp`` speaks MCP; ``/auth/mcp`` wants ``Authorization: Bearer SECRET`` (401 otherwise);
    ``/broken/mcp`` answers 500 with an HTML page, ``/call-fails/mcp`` only to tools/call (502),
    ``/slow/mcp`` holds tools/call until ``release`` is set;
    ``/reject-once/mcp`` answers the first
    2026-07-28 request with -32022 (listing 2026-07-28 as supported). Every request is kept in
    ``requests``."""

    def __init__(self, tls: tuple[str, str] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.rejected = False
        self.release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._reply(405, b"", "text/plain")

            def do_DELETE(self) -> None:
                self._reply(405, b"", "text/plain")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                message = json.loads(body or b"null")
                server.requests.append(
                    {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "message": message}
                )
                if self.path.startswith("/broken"):
                    return self._reply(500, b"<html><body>Internal Server Error</body></html>", "text/html")
                if self.path.startswith("/auth") and self.headers.get("Authorization") != f"Bearer {SECRET}":
                    return self._reply(401, b'{"error": "unauthorized"}', "application/json")
                if (
                    self.path.startswith("/slow")
                    and isinstance(message, dict)
                    and message.get("method") == "tools/call"
                ):
                    server.release.wait(30)  # held until the test lets go (or 30 s)
                if (
                    self.path.startswith("/call-fails")
                    and isinstance(message, dict)
                    and message.get("method") == "tools/call"
                ):
                    return self._reply(502, b"Bad Gateway", "text/plain")
                if not isinstance(message, dict) or "id" not in message:
                    return self._reply(202, b"", "text/plain")
                modern = self.headers.get("MCP-Protocol-Version") == MODERN
                if self.path.startswith("/reject-once") and modern and not server.rejected:
                    server.rejected = True
                    error = {
                        "code": -32022,
                        "message": "Unsupported protocol version",
                        "data": {"supported": [MODERN], "requested": MODERN},
                    }
                    data = json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error}).encode()
                    return self._reply(400, data, "application/json")
                result = server.answer(message, modern)
                reply = {"jsonrpc": "2.0", "id": message["id"], **result}
                self._reply(200, json.dumps(reply).encode(), "application/json")

            def _reply(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        scheme = "http"
        if tls is not None:  # (certificate file, key file)
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def answer(self, message: dict[str, Any], modern: bool) -> dict[str, Any]:
        method = message.get("method")
        complete = {"resultType": "complete"} if modern else {}
        if method == "initialize":
            return {
                "result": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "recording", "version": "1.0"},
                }
            }
        if method == "server/discover":
            if not modern:
                return {"error": {"code": -32601, "message": "Method not found"}}
            return {
                "result": {
                    **complete,
                    "supportedVersions": [MODERN],
                    "capabilities": {"tools": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "recording", "version": "1.0"}},
                }
            }
        if method == "tools/list":
            return {"result": {**complete, "tools": TOOLS}}
        if method == "tools/call":
            return {"result": {**complete, "content": [{"type": "text", "text": "hi there"}]}}
        if method == "ping":
            return {"result": {}}
        return {"error": {"code": -32601, "message": "Method not found"}}

    def methods(self) -> list[str]:
        return [request["message"].get("method") for request in self.requests if isinstance(request["message"], dict)]

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def recording() -> Iterator[RecordingServer]:
    server = RecordingServer()
    yield server
    server.close()


# -- the fixtures' real servers ---------------------------------------------------------------


def test_streamable_http_against_server_everything(everything_http_url):
    result = cli("tools", "--url", everything_http_url)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert "echo" in result.stdout
    called = cli(
        "call", "echo", "message=over http", "--json", "--url", everything_http_url, "--transport", "streamable-http"
    )
    assert called.returncode == 0, called.stderr
    assert "over http" in called.stdout


def test_legacy_sse_against_server_everything(everything_sse_url):
    result = cli("call", "echo", "message=over sse", "--url", everything_sse_url, "--transport", "sse")
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert "over sse" in result.stdout


def test_auto_falls_back_to_sse(everything_sse_url):
    result = cli("info", "--json", "--url", everything_sse_url)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["serverInfo"]["name"]


def test_modern_era_over_http(sdk_modern_http_url):
    result = cli("info", "--json", "--url", sdk_modern_http_url, "--protocol-version", MODERN)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["protocolVersion"] == MODERN and json.loads(result.stdout)["era"] == "modern"
    text = cli("info", "--url", sdk_modern_http_url, "--protocol-version", MODERN)
    assert "Era:          modern (" in text.stdout
    called = cli("call", "add", "a=2", "b=3", "--json", "--url", sdk_modern_http_url, "--era", "modern")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["structuredContent"] == {"sum": 5}


def test_legacy_era_forced_over_http(sdk_http_stateful_url):
    result = cli("info", "--json", "--url", sdk_http_stateful_url, "--era", "legacy")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["protocolVersion"] == "2025-11-25" and json.loads(result.stdout)["era"] == "legacy"


# -- what goes on the wire, and what never shows ------------------------------------------------


def test_headers_and_bearer_token_reach_the_server_and_are_masked_elsewhere(recording, tmp_path):
    record = tmp_path / "s.jsonl"
    result = cli(
        "call",
        "hello",
        "--url",
        f"{recording.url}/auth/mcp",
        "--era",
        "legacy",
        "--bearer-token",
        SECRET,
        "-H",
        "X-Tenant: acme",
        "-H",
        "X-Api-Key: ${env:KEY_FOR_TEST}",
        "--record",
        record,
        env={"KEY_FOR_TEST": "key-" + SECRET},
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "hi there"
    headers = recording.requests[-1]["headers"]
    assert headers["authorization"] == f"Bearer {SECRET}"
    assert headers["x-tenant"] == "acme" and headers["x-api-key"] == "key-" + SECRET
    text = record.read_text()
    assert SECRET not in text and SECRET not in result.stderr
    header = json.loads(text.splitlines()[0])
    assert header["headers"]["X-Tenant"] == "acme" and header["headers"]["Authorization"].startswith("Bearer ")


def test_bearer_token_from_the_environment(recording):
    result = cli(
        "ping", "--url", f"{recording.url}/auth/mcp", "--era", "legacy", env={"MCP_INSPECTOR_BEARER_TOKEN": SECRET}
    )
    assert result.returncode == 0, result.stderr
    assert all(request["headers"].get("authorization") == f"Bearer {SECRET}" for request in recording.requests)


def test_a_token_in_the_url_never_shows(recording):
    url = f"{recording.url}/broken/mcp?api_key={SECRET}"
    result = cli("tools", "--url", url, "--era", "legacy")
    assert result.returncode == 3 and SECRET not in result.stderr


def test_http_401_exits_3_with_the_status(recording):
    result = cli(
        "tools", "--url", f"{recording.url}/auth/mcp", "--era", "legacy", "--bearer-token", "wrong-token-123456"
    )
    assert_no_traceback(result)
    assert result.returncode == 3, result.stderr
    assert "401" in result.stderr and "wrong-token" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_http_500_exits_3_with_the_status(recording):
    result = cli("tools", "--url", f"{recording.url}/broken/mcp", "--transport", "streamable-http", "--era", "legacy")
    assert_no_traceback(result)
    assert result.returncode == 3, result.stderr
    assert "500" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_connection_refused_exits_3():
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = cli("tools", "--url", f"http://127.0.0.1:{port}/mcp", "--timeout", "5")
    assert_no_traceback(result)
    assert result.returncode == 3, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_insecure_warns(recording):
    result = cli("ping", "--url", f"{recording.url}/mcp", "--era", "legacy", "--insecure")
    assert result.returncode == 0, result.stderr
    assert "warning: --insecure: TLS certificates" in result.stderr
    quiet = cli("ping", "--url", f"{recording.url}/mcp", "--era", "legacy", "--insecure", "-q")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_config_url_entry_with_headers_from_the_environment(recording, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "servers": {
                    "remote": {
                        "type": "http",
                        "url": f"{recording.url}/auth/mcp",
                        "era": "legacy",
                        "headers": {"Authorization": "Bearer ${TOKEN_FOR_TEST}"},
                    }
                }
            }
        )
    )
    result = cli("--config", config, "call", "hello", env={"TOKEN_FOR_TEST": SECRET})
    assert result.returncode == 0, result.stderr
    assert recording.requests[-1]["headers"]["authorization"] == f"Bearer {SECRET}"
    unset = cli("--config", config, "tools")
    assert unset.returncode == 64 and "TOKEN_FOR_TEST is not set" in unset.stderr


# -- tools excluded for invalid x-mcp-header annotations (2026-07-28 over HTTP) ------------------


def test_excluded_tools_are_listed_apart_and_not_called(recording):
    url = f"{recording.url}/mcp"
    listed = cli("tools", "--json", "--url", url, "--protocol-version", MODERN)
    assert_no_traceback(listed)
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    assert [tool["name"] for tool in document["tools"]] == ["hello"]
    assert [item["name"] for item in document["excludedTools"]] == ["bad_header"]
    assert "tool 'bad_header' is excluded" in listed.stderr
    called = cli("call", "bad_header", "v=1", "--url", url, "--protocol-version", MODERN)
    assert_no_traceback(called)
    assert called.returncode == 64, called.stderr
    assert "bad_header" in called.stderr and "x-mcp-header" in called.stderr
    assert "tools/call" not in recording.methods()
    mirrored = cli("call", "hello", "region=eu-west", "--url", url, "--protocol-version", MODERN)
    assert mirrored.returncode == 0, mirrored.stderr
    call = [request for request in recording.requests if request["message"].get("method") == "tools/call"][-1]
    assert call["headers"]["mcp-param-region"] == "eu-west" and call["headers"]["mcp-name"] == "hello"


def test_a_rejected_version_the_server_supports_is_retried(recording):
    """-32022 with data.supported listing the version: the client retries with it (once)."""
    result = cli("tools", "--url", f"{recording.url}/reject-once/mcp", "--protocol-version", MODERN)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert recording.methods()[:2] == ["server/discover", "server/discover"]
    assert "hello" in result.stdout


def test_pipe_over_http_in_both_eras(sdk_http_stateful_url):
    legacy = cli(
        "pipe",
        "--url",
        sdk_http_stateful_url,
        "--era",
        "legacy",
        input='{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n',
    )
    assert_no_traceback(legacy)
    assert legacy.returncode == 0, legacy.stderr
    replies = [json.loads(line) for line in legacy.stdout.splitlines()]
    assert any(reply.get("id") == 1 and "tools" in reply.get("result", {}) for reply in replies)
    meta = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "pipe-test", "version": "0"},
    }
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}})
    modern = cli("pipe", "--url", sdk_http_stateful_url, "--protocol-version", MODERN, input=line + "\n")
    assert_no_traceback(modern)
    assert modern.returncode == 0, modern.stderr
    replies = [json.loads(line) for line in modern.stdout.splitlines()]
    assert replies[0]["result"]["supportedVersions"]  # our server/discover first, then the input's request
    assert any(reply.get("id") == 1 and "tools" in reply.get("result", {}) for reply in replies)


def test_an_http_error_on_the_call_exits_3_with_the_status(recording):
    result = cli("call", "hello", "--url", f"{recording.url}/call-fails/mcp", "--era", "legacy")
    assert_no_traceback(result)
    assert result.returncode == 3, result.stderr
    assert "502" in result.stderr and "tools/call" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stop_signal_during_an_http_call(recording, signum, code):
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_inspector",
            "call",
            "hello",
            "--url",
            f"{recording.url}/slow/mcp",
            "--era",
            "legacy",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(1000):  # until the call is on the wire (bounded: 10 s)
            if "tools/call" in recording.methods() or process.poll() is not None:
                break
            time.sleep(0.01)
        assert "tools/call" in recording.methods()
        process.send_signal(signum)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == code, err
    assert "Traceback" not in err


@pytest.fixture
def self_signed_server(tmp_path) -> Iterator[RecordingServer]:
    """The recording server over HTTPS with a self-signed certificate for 127.0.0.1 (made by openssl)."""
    import shutil

    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a self-signed certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )
    server = RecordingServer(tls=(str(cert), str(key)))
    yield server
    server.close()


def test_insecure_skips_certificate_verification(self_signed_server):
    url = f"{self_signed_server.url}/mcp"
    verified = cli("ping", "--url", url, "--era", "legacy", "--timeout", "10")
    assert_no_traceback(verified)
    assert verified.returncode == 3, verified.stderr
    assert "certificate" in verified.stderr.lower()
    assert self_signed_server.requests == []  # the TLS handshake failed: nothing was sent
    insecure = cli("ping", "--url", url, "--era", "legacy", "--insecure")
    assert insecure.returncode == 0, insecure.stderr
    assert "--insecure: TLS certificates" in insecure.stderr and "ping" in self_signed_server.methods()
