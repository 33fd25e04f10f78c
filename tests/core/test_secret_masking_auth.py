"""OAuth secrets stay out of sight on every path a person or a file can see: the HTTP log, an
authorization flow's steps, the timeline's recordings and exports, "copy as command".

Real-looking secrets go through each path (a token endpoint on 127.0.0.1 that echoes what it
got, frames that echo a token) and the output is searched for them.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs

import httpx2
import pytest
from conftest import run_async

from mcp_inspector.core.auth.http import AuthHttp
from mcp_inspector.core.auth.model import AuthLog, AuthSettings
from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.base.masking import (
    MASK,
    header_secret_values,
    mask_header,
    mask_url,
    oauth_secret_values,
    remember_secret,
    scrub,
    scrub_bytes,
)
from mcp_inspector.core.config.cli_command import call_command_line
from mcp_inspector.core.config.servers import ServerSpec, server_from_config
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.export import export_json, export_session
from mcp_inspector.core.traffic.http_log import HttpLog
from mcp_inspector.core.traffic.recording import SessionWriter
from mcp_inspector.core.traffic.store import TrafficStore

CODE = "authcode-Qm3Rt8Yx1Lz6Wp4N"
VERIFIER = "verifier-Hs5Kd9Fj2Ga7Pq0Vb3Nm8Cx1Zl4"
CLIENT_SECRET = "clsecret-Ty6Ui2Op9As3Df7G"
ACCESS = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.acc3ss-Sig9Lk4Jh7"
REFRESH = "refresh-Zx8Cv3Bn6Mq1Wr5T"
DPOP_PROOF = "eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJodG0iOiJQT1NUIn0.pr00f-Sig2Xc5"
ALL = (CODE, VERIFIER, CLIENT_SECRET, ACCESS, REFRESH, DPOP_PROOF)


def assert_hidden(text: str, *secrets: str) -> None:
    for secret in secrets or ALL:
        assert secret not in text, f"{secret[:12]}... leaked in: {text[:400]}"


# -- headers and URLs ------------------------------------------------------------------------
def test_http_log_masks_bearer_dpop_tokens_and_the_proof_but_shows_the_challenge():
    log = HttpLog()
    exchange = log.begin(
        "POST",
        "https://mcp.example.com/mcp",
        {"Authorization": f"DPoP {ACCESS}", "DPoP": DPOP_PROOF, "Content-Type": "application/json"},
    )
    log.response(
        exchange,
        401,
        "Unauthorized",
        [
            (
                "WWW-Authenticate",
                'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", '
                'scope="read", error="invalid_token"',
            ),
            ("DPoP-Nonce", "nonce-123456789"),
        ],
    )
    shown = json.dumps([exchange.url, exchange.request_headers, exchange.response_headers], ensure_ascii=False)
    assert_hidden(shown)
    assert dict(exchange.request_headers)["Authorization"].startswith("DPoP eyJh") and MASK in shown
    # the challenge is what the Auth view explains: shown whole (the word "Authenticate" is not a secret)
    assert exchange.header("WWW-Authenticate").startswith('Bearer resource_metadata="https://mcp.example.com/')
    assert exchange.header("DPoP-Nonce") == "nonce-123456789"
    assert mask_header("Authorization", f"Bearer {ACCESS}").startswith("Bearer eyJh")


def test_a_redirect_location_carrying_the_code_is_masked():
    location = f"http://127.0.0.1:33418/callback?code={CODE}&state=st-1&iss=https%3A%2F%2Fas.example.com"
    shown = mask_header("Location", location)
    assert_hidden(shown)
    assert (
        "state=st-1" in shown and "iss=https" in shown and shown.startswith("http://127.0.0.1:33418/callback?code=auth")
    )


def test_urls_mask_codes_tokens_and_verifiers_but_not_the_public_pkce_values():
    url = mask_url(
        f"https://as.example.com/authorize?response_type=code&client_id=c1&state=st-42"
        f"&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"
        f"&code={CODE}&code_verifier={VERIFIER}&access_token={ACCESS}"
    )
    assert_hidden(url)
    # public by design (sent through the browser): what a debugging user needs to see
    assert "code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM" in url
    assert "code_challenge_method=S256" in url and "state=st-42" in url and "response_type=code" in url
    assert_hidden(mask_url(f"https://cb.example.com/cb#access_token={ACCESS}&token_type=Bearer"))


def test_masking_twice_shows_the_same():
    once = mask_url(f"https://h/mcp?api_key={CLIENT_SECRET}")
    assert mask_url(once) == once
    assert mask_header("Authorization", mask_header("Authorization", f"Bearer {ACCESS}")) == mask_header(
        "Authorization", f"Bearer {ACCESS}"
    )


def test_secret_values_are_found_in_forms_documents_and_headers():
    form = {
        "grant_type": "authorization_code",
        "code": CODE,
        "code_verifier": VERIFIER,
        "client_secret": CLIENT_SECRET,
        "redirect_uri": "http://127.0.0.1/cb",
    }
    assert sorted(oauth_secret_values(form)) == sorted([CODE, VERIFIER, CLIENT_SECRET])
    assert oauth_secret_values({"nested": [{"refresh_token": REFRESH}]}) == [REFRESH]
    assert header_secret_values(
        {
            "Authorization": f"Bearer {ACCESS}",
            "Accept": "x",
            "Mcp-Session-Id": "s-123456789",
            "WWW-Authenticate": "Bearer realm=x",
        }
    ) == [ACCESS]
    basic = base64.b64encode(b"client%3A1:s%2Bcret-0123456789").decode()
    assert header_secret_values({"Authorization": f"Basic {basic}"}) == [
        basic,
        "s%2Bcret-0123456789",
        "s+cret-0123456789",
    ]


def test_scrub_masks_remembered_secrets_and_ignores_short_ones():
    remember_secret(REFRESH, "short", None)
    assert scrub(f"token {REFRESH}!") == f"token {REFRESH[:4]}{MASK}!"
    assert scrub("short stays short") == "short stays short"
    assert scrub_bytes(f'{{"t":"{REFRESH}"}}'.encode()) == f'{{"t":"{REFRESH[:4]}{MASK}"}}'.encode()


# -- an authorization flow's requests: the HttpLog and the steps ---------------------------------
class _Echo(BaseHTTPRequestHandler):
    """A token endpoint that quotes back what it received, the way a careless server does."""

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/authorize"):
            self._send(302, b"", "text/plain", {"Location": f"http://127.0.0.1:9/callback?code={CODE}&state=st-9"})
        else:
            self._send(404, b"no", "text/plain")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = {key: values[0] for key, values in parse_qs(self.rfile.read(length).decode()).items()}
        if self.path == "/token-json-error":
            body = {
                "error": "invalid_grant",
                "error_description": f"code {form.get('code')} with verifier {form.get('code_verifier')} is expired",
            }
            self._send(400, json.dumps(body).encode(), "application/json")
        elif self.path == "/token-text-error":
            self._send(
                500,
                f"<html><body>Internal error: {form} {self.headers.get('Authorization')}</body></html>".encode(),
                "text/html",
            )
        else:
            body = {"access_token": ACCESS, "refresh_token": REFRESH, "token_type": "Bearer", "expires_in": 60}
            self._send(200, json.dumps(body).encode(), "application/json")


@pytest.fixture
def echo_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _flow(base: str, http_log: HttpLog, log: AuthLog) -> None:
    async def main() -> None:
        async with httpx2.AsyncClient() as client:
            http = AuthHttp(client, log, http_log)
            form = {
                "grant_type": "authorization_code",
                "code": CODE,
                "code_verifier": VERIFIER,
                "redirect_uri": "http://127.0.0.1:9/callback",
                "client_id": "c1",
            }
            basic = {"Authorization": "Basic " + base64.b64encode(f"c1:{CLIENT_SECRET}".encode()).decode()}
            for path in ("/token-json-error", "/token-text-error", "/token"):
                step = await log.step("token", f"POST {path}")
                await http.request("POST", base + path, step=step, form=form, headers=basic)
                log.done(step)
            step = await log.step("authorization", "GET /authorize")
            await http.request("GET", base + "/authorize?response_type=code&client_id=c1&state=st-9", step=step)
            log.done(step)

    run_async(main)


def test_the_steps_and_the_http_log_of_a_flow_show_no_secret(echo_server):
    http_log, log = HttpLog(), AuthLog()
    _flow(echo_server, http_log, log)
    steps = json.dumps(
        [
            {
                "request": step.request,
                "response": step.response,
                "details": step.details,
                "findings": [f.text for f in step.findings],
            }
            for step in log.steps
        ],
        ensure_ascii=False,
    )
    exchanges = json.dumps(
        [[e.url, e.request_headers, e.response_headers, e.error] for e in http_log.exchanges], ensure_ascii=False
    )
    # the Basic credential is base64: the secret itself never shows, the encoded form is masked too
    assert_hidden(steps)
    assert_hidden(exchanges)
    json_error, text_error, issued, redirect = log.steps
    assert json_error.response["body"]["error"] == "invalid_grant"  # the document is still readable
    assert "is expired" in json_error.response["body"]["error_description"]
    assert "Internal error" in text_error.response["body"]
    assert issued.response["body"]["token_type"] == "Bearer"
    assert dict(redirect.response["headers"])["location"].startswith("http://127.0.0.1:9/callback?code=auth")


def test_tokens_a_server_echoes_in_frames_are_masked_in_recordings_and_exports(echo_server, tmp_path):
    http_log, log = HttpLog(), AuthLog()
    _flow(echo_server, http_log, log)  # the flow's secrets are now known to this process
    recording = tmp_path / "rec.jsonl"
    store = TrafficStore()
    writer = SessionWriter(recording)
    store.attach_recorder(writer)
    whoami = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "content": [
                {"type": "text", "text": f"your token is {ACCESS}, refresh {REFRESH}, client secret {CLIENT_SECRET}"}
            ]
        },
    }
    store.append(Direction.IN, Kind.RESPONSE, json.dumps(whoami).encode())
    store.note(f"token endpoint said: code {CODE} is expired")
    writer.close()
    exported_session = export_session(store, tmp_path / "export.jsonl").path
    exported_json = export_json(store, tmp_path / "export.json").path
    for path in (recording, exported_session, exported_json):
        text = path.read_text(encoding="utf-8")
        assert_hidden(text)
        assert "your token is eyJh" in text.replace("\\u2022", MASK)
    # the export in JSON still parses the frame (the mask sits inside the string)
    items = json.loads(exported_json.read_text(encoding="utf-8"))
    assert items[0]["message"]["result"]["content"][0]["text"].startswith(f"your token is eyJh{MASK}")


# -- copy as command -----------------------------------------------------------------------------
def _argv_of(line: str, tmp_path: Path, env: dict[str, str]) -> list[str]:
    """The argv the shell gives ``mcp-inspector`` when ``line`` is pasted (a shim prints it)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "mcp-inspector"
    shim.write_text(
        f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \"$@\"\n"
    )
    shim.chmod(0o755)
    result = subprocess.run(
        ["sh", "-c", line],
        capture_output=True,
        text=True,
        timeout=30,
        env=dict(os.environ, **env, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"),
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _remote(auth: AuthSettings | None, **fields) -> ServerSpec:
    spec = ServerSpec("remote", url="https://mcp.example.com/mcp", transport="http", source="command line")
    spec.auth = auth
    for name, value in fields.items():
        setattr(spec, name, value)
    return spec


def test_copy_as_command_takes_oauth_secrets_from_the_shell(tmp_path):
    auth = AuthSettings(
        client_id="client-7",
        client_secret=CLIENT_SECRET,
        scopes=["mcp:read", "mcp:write"],
        open_mode="fetch",
        idp_client_secret="idp-" + CLIENT_SECRET,
        idp_client_id="idp-client",
        private_key_pem="-----BEGIN PRIVATE KEY-----\nMIIEv" + VERIFIER + "\n-----END PRIVATE KEY-----",
        assertion=ACCESS,
        id_token=REFRESH,
        dpop=False,
        store="none",
    )
    line = call_command_line(_remote(auth), "whoami", {})
    assert_hidden(line)
    assert "PRIVATE KEY" not in line
    argv = _argv_of(
        line,
        tmp_path,
        {"MCP_INSPECTOR_CLIENT_SECRET": "from-the-shell", "MCP_INSPECTOR_IDP_CLIENT_SECRET": "idp-from-the-shell"},
    )
    pairs = {argv[i]: argv[i + 1] for i in range(len(argv) - 1) if argv[i].startswith("--")}
    assert pairs["--client-id"] == "client-7" and pairs["--client-secret"] == "from-the-shell"
    assert pairs["--idp-client-secret"] == "idp-from-the-shell" and pairs["--idp-client-id"] == "idp-client"
    assert [argv[i + 1] for i, word in enumerate(argv) if word == "--scope"] == ["mcp:read", "mcp:write"]
    assert pairs["--oauth-open"] == "fetch" and pairs["--auth-store"] == "none" and "--no-dpop" in argv
    assert pairs["--client-key"] == "<PEM private key file>" and pairs["--assertion"] == "<assertion JWT file>"
    assert pairs["--id-token"] == "<ID token file>"


def test_copy_as_command_leaves_a_config_entrys_oauth_options_in_the_file(tmp_path):
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"remote": {"url": "https://mcp.example.com/mcp"}}}))
    base = server_from_config(config, "remote")
    spec = server_from_config(config, "remote")
    spec.auth = AuthSettings(client_id="client-7", client_secret=CLIENT_SECRET)
    base_with_same = server_from_config(config, "remote")
    line = call_command_line(spec, "whoami", {})
    assert_hidden(line)
    assert f"--config {shlex.quote(str(config))} --server remote" in line
    assert '--client-id client-7 --client-secret "$MCP_INSPECTOR_CLIENT_SECRET"' in line
    assert base.url == base_with_same.url  # nothing else differs: no other OAuth word
    assert call_command_line(_remote(None, no_auth=True), "whoami", {}).endswith("--no-auth")
    assert "--client" not in call_command_line(_remote(AuthSettings()), "whoami", {})
