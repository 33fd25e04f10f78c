"""The OAuth client end to end, through the real CLI (``python -m mcp_inspector``) against the
fixture authorization server + protected MCP server (tests/servers/oauth_server.py), with the
three ways to open the authorization URL, stored tokens, step-up, refresh, ``auth
status|logout``, broken servers, and no secret on screen or in the recording and its export.

What the server saw is read from its ``/_stats`` (counts, and every secret it issued). State
and config go to the test's tmp dir (``env`` fixture), never the real home.
"""

from __future__ import annotations

import json
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from auth_helpers import assert_no_traceback, cli, cli_pasting_redirect, files_text, install_fake_browser


def run(env: dict[str, str], server, *args: str, mode: str = "fetch", **kwargs):
    return cli(env, *args, "--url", server.url, "--oauth-open", mode, **kwargs)


def let_tokens_expire() -> None:
    """With ``--expires-in 1``: wait until the last token is expired at the server too, so what the
    next run does does not depend on how fast it starts (a wait, not a timed assertion)."""
    time.sleep(1.5)


def ok(result) -> None:
    assert result.returncode == 0, f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    assert_no_traceback(result)


def whoami(result) -> dict:
    start = result.stdout.index("{")
    return json.loads(result.stdout[start:result.stdout.rindex("}") + 1])


def assert_no_secret(server, *texts: str) -> None:
    secrets = server.secrets()
    assert secrets, "the server issued nothing: the test proves nothing"
    for text in texts:
        for secret in secrets:
            assert secret not in text, f"a secret ({secret[:6]}...) is shown"


def test_fetch_authorizes_then_reuses_the_stored_token(oauth_server, env):
    server = oauth_server()
    listed = run(env, server, "tools")
    ok(listed)
    assert "whoami" in listed.stdout and "admin_action" in listed.stdout
    stats = server.stats()
    assert stats["authorize"] == 1 and stats["register"] == 1 and stats["token"]["authorization_code"] == 1
    request = stats["authorize_requests"][0]
    assert request["code_challenge_method"] == "S256" and request["resource"] == server.url
    assert request["scope"] == "mcp"  # from the 401's WWW-Authenticate
    called = run(env, server, "call", "whoami")
    ok(called)
    assert whoami(called)["scopes"] == ["mcp"]
    stats = server.stats()
    assert stats["authorize"] == 1 and stats["register"] == 1, "the second run authorized again"
    assert stats["token"]["authorization_code"] == 1
    assert_no_secret(server, listed.stdout, listed.stderr, called.stdout, called.stderr)
    store = Path(env["XDG_STATE_HOME"]) / "mcp-inspector" / "auth"
    files = [p for p in store.iterdir() if p.is_file()]
    assert files and stat.S_IMODE(store.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


def test_print_mode_takes_the_pasted_redirect(oauth_server, env):
    server = oauth_server()
    result, url = cli_pasting_redirect(env, "call", "whoami", "--url", server.url, "--oauth-open", "print")
    assert url.startswith(server.base + "/authorize?"), result.stderr
    ok(result)
    assert whoami(result)["client_id"].startswith("client-")
    stats = server.stats()
    assert stats["authorize"] == 1 and stats["token"]["authorization_code"] == 1
    assert_no_secret(server, result.stdout, result.stderr)


PASTE_MISTAKES = [
    (lambda location: "I authorized, now what?", "redirect"),
    (lambda location: location.replace("state=", "state=x"), "state"),
    (lambda location: location.split("?")[0], "code"),
]


@pytest.mark.parametrize("paste,word", PASTE_MISTAKES, ids=["not-a-url", "other-state", "no-parameters"])
def test_print_mode_a_wrong_paste_is_a_clear_error(oauth_server, env, paste, word):
    server = oauth_server()
    result, url = cli_pasting_redirect(env, "tools", "--url", server.url, "--oauth-open", "print", paste=paste)
    assert url, result.stderr
    assert result.returncode not in (0, 70), result.stderr
    assert_no_traceback(result)
    last = result.stderr.strip().splitlines()[-1]
    assert word in last.lower(), result.stderr
    assert server.stats()["token"]["authorization_code"] == 0
    assert_no_secret(server, result.stdout, result.stderr)


def test_browser_mode_loopback_listener_gone_after_the_flow(oauth_server, env, tmp_path):
    server = oauth_server()
    browser, log = install_fake_browser(tmp_path / "browser")
    env = dict(env, BROWSER=browser, FAKE_BROWSER_LOG=str(log))
    result = run(env, server, "call", "whoami", mode="browser")
    ok(result)
    assert whoami(result)["scopes"] == ["mcp"]
    visits = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(visits) == 1, visits
    visit = visits[0]
    assert visit["authorization_url"].startswith(server.base + "/authorize?")
    assert visit["location"].startswith("http://127.0.0.1:") and visit["listener_status"] == 200, visit
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", visit["listener_port"]), timeout=5).close()
    assert_no_secret(server, result.stdout, result.stderr)


def test_browser_mode_nobody_comes_back_the_listener_closes_at_the_time_limit(oauth_server, env, tmp_path):
    server = oauth_server()
    browser, log = install_fake_browser(tmp_path / "browser")
    env = dict(env, BROWSER=browser, FAKE_BROWSER_LOG=str(log), FAKE_BROWSER_MODE="ignore")
    result = run(env, server, "tools", "--oauth-timeout", "3", mode="browser")
    assert result.returncode not in (0, 70), result.stderr
    assert_no_traceback(result)
    assert "--oauth-timeout" in result.stderr
    [visit] = [json.loads(line) for line in log.read_text().splitlines()]
    assert visit["listener_port"]
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", visit["listener_port"]), timeout=5).close()
    assert server.stats()["token"]["authorization_code"] == 0


def test_browser_mode_listener_gone_while_the_session_goes_on(oauth_server, env, tmp_path):
    """The listener exists only during the flow: closed while the CLI still runs (pipe keeps it)."""
    server = oauth_server()
    browser, log = install_fake_browser(tmp_path / "browser")
    env = dict(env, BROWSER=browser, FAKE_BROWSER_LOG=str(log))
    process = subprocess.Popen([sys.executable, "-m", "mcp_inspector", "pipe", "--url", server.url,
                                "--oauth-open", "browser"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
    try:
        assert process.stdin is not None and process.stdout is not None
        message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()
        for line in process.stdout:  # until the reply (bounded by the pytest timeout)
            if json.loads(line).get("id") == 7:
                break
        assert process.poll() is None, "pipe ended before its input did"
        [visit] = [json.loads(line) for line in log.read_text().splitlines()]
        assert visit["listener_status"] == 200
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", visit["listener_port"]), timeout=5).close()
        process.stdin.close()
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
    assert process.returncode == 0


def test_ctrl_c_while_waiting_for_the_browser(oauth_server, env, tmp_path):
    server = oauth_server()
    browser, log = install_fake_browser(tmp_path / "browser")
    env = dict(env, BROWSER=browser, FAKE_BROWSER_LOG=str(log), FAKE_BROWSER_MODE="ignore")
    process = subprocess.Popen([sys.executable, "-m", "mcp_inspector", "tools", "--url", server.url,
                                "--oauth-open", "browser"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 30
        while not (log.exists() and log.read_text().strip()):
            assert time.monotonic() < deadline and process.poll() is None, "the browser was never opened"
            time.sleep(0.05)
        port = json.loads(log.read_text().splitlines()[0])["listener_port"]
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(5)
    assert process.returncode == 130, err
    assert b"Traceback" not in err
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_step_up_reauthorizes_with_the_union_of_scopes(oauth_server, env):
    server = oauth_server()
    ok(run(env, server, "tools"))
    result = run(env, server, "call", "admin_action")
    ok(result)
    assert "admin action done" in result.stdout
    stats = server.stats()
    assert stats["mcp"]["403"] >= 1
    assert stats["authorize"] == 2
    assert set(stats["authorize_requests"][-1]["scope"].split()) == {"mcp", "admin"}
    # the wider token is stored: the next call needs no authorization
    ok(run(env, server, "call", "whoami"))
    assert server.stats()["authorize"] == 2
    status = cli(env, "auth", "status", server.url, "--json")
    ok(status)
    [entry] = json.loads(status.stdout)
    assert set(entry["scope"].split()) == {"mcp", "admin"} and entry["refresh_token"] is True
    assert entry["issuer"] == server.issuer and entry["registered_via"] == "dynamic"
    assert_no_secret(server, status.stdout, status.stderr)


def test_expired_token_is_refreshed_not_reauthorized(oauth_server, env):
    server = oauth_server("--expires-in", "1")
    ok(run(env, server, "tools"))
    let_tokens_expire()
    result = run(env, server, "call", "whoami")
    ok(result)
    stats = server.stats()
    assert stats["authorize"] == 1
    refreshes = [r for r in stats["token_requests"] if r["grant_type"] == "refresh_token"]
    assert refreshes and all(r["outcome"] == "ok" for r in refreshes), stats["token_requests"]
    assert_no_secret(server, result.stdout, result.stderr)


def test_a_refused_refresh_falls_back_to_authorizing_again(oauth_server, env):
    server = oauth_server("--expires-in", "1", "--refresh-fails")
    ok(run(env, server, "tools"))
    let_tokens_expire()
    result = run(env, server, "call", "whoami")
    ok(result)
    stats = server.stats()
    refreshes = [r for r in stats["token_requests"] if r["grant_type"] == "refresh_token"]
    assert refreshes and all(r["outcome"] == "invalid_grant" for r in refreshes)
    assert stats["authorize"] >= 2
    assert_no_secret(server, result.stdout, result.stderr)


def test_without_refresh_tokens_an_expired_token_means_authorizing_again(oauth_server, env):
    server = oauth_server("--expires-in", "1", "--no-refresh")
    ok(run(env, server, "tools"))
    let_tokens_expire()
    ok(run(env, server, "call", "whoami"))
    stats = server.stats()
    assert stats["token"]["refresh_token"] == 0
    assert stats["authorize"] >= 2


BROKEN = [
    (("--wrong-issuer",), "issuer"),
    (("--no-s256",), "S256"),
    (("--no-iss",), "no iss"),
    (("--wrong-iss",), "iss"),
    (("--wrong-state",), "state"),
    (("--token-error", "500"), "500"),
    (("--token-error", "garbage"), "not a JSON"),
    (("--token-error", "huge"), "HTTP 400"),
    (("--token-error", "hang"), "--oauth-timeout"),
    (("--metadata-at-root",), "authorization server metadata"),
    (("--as-unreachable",), "connect"),
    (("--prm-resource", "https://elsewhere.example/mcp"), "resource"),
    (("--deny",), "access_denied"),
    (("--no-dcr",), "register"),
]


@pytest.mark.parametrize("knobs,word", BROKEN, ids=[" ".join(k) for k, _ in BROKEN])
def test_broken_server_is_a_clear_error(oauth_server, env, knobs, word):
    server = oauth_server(*knobs)
    limit = ("--oauth-timeout", "3") if "hang" in knobs else ()
    result = run(env, server, "tools", *limit)
    assert result.returncode not in (0, 70), f"exit {result.returncode}\n{result.stderr}"
    assert_no_traceback(result)
    assert word.lower() in result.stderr.lower(), result.stderr
    assert len(result.stderr.strip().splitlines()) <= 6, result.stderr
    assert len(result.stderr) < 100_000  # an 8 MB error body is quoted cut, not whole
    if server.stats()["secrets"]["client_secrets"]:
        assert_no_secret(server, result.stdout, result.stderr)


def test_auth_status_and_logout(oauth_server, env):
    server = oauth_server()
    ok(run(env, server, "tools"))
    status = cli(env, "auth", "status")
    ok(status)
    assert server.url in status.stdout or server.base in status.stdout, status.stdout
    assert_no_secret(server, status.stdout, status.stderr)
    logout = cli(env, "auth", "logout", server.url)
    ok(logout)
    after = cli(env, "auth", "status")
    ok(after)
    assert server.url not in after.stdout
    ok(run(env, server, "tools"))
    assert server.stats()["authorize"] == 2


def test_no_secret_in_output_recording_or_export(oauth_server, env, tmp_path):
    from mcp_inspector.core.traffic.export import export_json, export_session
    from mcp_inspector.core.traffic.loading import load_session

    server = oauth_server("--jwt", "--expires-in", "1", "--dcr-auth-method", "client_secret_post")
    record = tmp_path / "run.jsonl"
    first = run(env, server, "--record", str(record), "call", "whoami")
    ok(first)
    let_tokens_expire()
    record2 = tmp_path / "run2.jsonl"
    second = run(env, server, "--record", str(record2), "call", "admin_action")  # refresh, then step-up
    ok(second)
    stats = server.stats()
    assert stats["token"]["refresh_token"] >= 1 and stats["authorize"] == 2
    exported = []
    for path in (record, record2):
        store = load_session(path).store
        exported.append(export_session(store, tmp_path / f"{path.stem}-export.jsonl").path)
        exported.append(export_json(store, tmp_path / f"{path.stem}-export.json").path)
    texts = [first.stdout, first.stderr, second.stdout, second.stderr,
             *(Path(p).read_text(encoding="utf-8") for p in (record, record2, *exported))]
    assert_no_secret(server, *texts)
    for kind in ("access_tokens", "refresh_tokens", "codes", "client_secrets"):
        assert stats["secrets"][kind], f"no {kind} issued: the test would prove nothing"


VARIANTS = [
    (("--prm-at-root", "--no-challenge-metadata"), ["mcp"]),
    (("--issuer-path", "/tenant", "--jwt"), ["mcp"]),
    (("--no-challenge-scope", "--mode", "stateless"), ["mcp", "admin"]),  # then scopes_supported of the PRM
    (("--no-prm", "--resource-optional"), ["mcp"]),  # 2025-03-26: the authorization server at the root
]


@pytest.mark.parametrize("knobs,scopes", VARIANTS, ids=["prm-at-root", "issuer-path-jwt", "no-challenge-scope", "no-prm-2025-03-26"])
def test_discovery_variants_a_client_must_handle(oauth_server, env, knobs, scopes):
    server = oauth_server(*knobs)
    result = run(env, server, "call", "whoami")
    ok(result)
    assert whoami(result)["scopes"] == scopes
    assert server.stats()["authorize"] == 1


def test_pre_registered_client_and_scope_flag(oauth_server, env):
    server = oauth_server("--no-dcr", "--client", "ci-client:ci-secret-value:client_secret_basic")
    result = run(env, server, "call", "admin_action", "--client-id", "ci-client", "--client-secret", "ci-secret-value",
                 "--scope", "mcp", "--scope", "admin")
    ok(result)
    assert "admin action done for ci-client" in result.stdout
    stats = server.stats()
    assert stats["register"] == 0 and stats["authorize"] == 1 and stats["mcp"]["403"] == 0
    assert stats["authorize_requests"][0]["client_id"] == "ci-client"
    assert stats["authorize_requests"][0]["scope"] == "mcp admin"
    assert stats["token_requests"][0]["client_auth"] == "client_secret_basic"
    assert_no_secret(server, result.stdout, result.stderr)


def test_auth_store_none_keeps_nothing(oauth_server, env, tmp_path):
    server = oauth_server()
    ok(run(env, server, "tools", "--auth-store", "none"))
    ok(run(env, server, "tools", "--auth-store", "none"))
    assert server.stats()["authorize"] == 2
    assert_no_secret(server, files_text(tmp_path / "state"))


def test_a_token_the_server_echoes_back_is_masked_in_the_recording(oauth_server, env, tmp_path):
    server = oauth_server()
    record = tmp_path / "leak.jsonl"
    result = run(env, server, "--record", str(record), "call", "leak_token")
    ok(result)
    assert "you sent: Bearer" in result.stdout
    # (stdout is the result as the server sent it: the token it echoed is there, by the server's doing)
    assert_no_secret(server, result.stderr, record.read_text(encoding="utf-8"))


def test_step_up_inside_a_legacy_session(oauth_server, env):
    server = oauth_server()
    result = run(env, server, "--era", "legacy", "call", "admin_action")
    ok(result)
    assert "admin action done" in result.stdout
    stats = server.stats()
    assert stats["mcp"]["403"] == 1 and stats["authorize"] == 2


def test_client_credentials_with_the_secret_from_the_environment(oauth_server, env):
    server = oauth_server("--client", "bot:bot-secret-value:client_secret_basic")
    env = dict(env, MCP_INSPECTOR_CLIENT_SECRET="bot-secret-value")
    result = run(env, server, "call", "whoami", "--oauth-grant", "client_credentials", "--client-id", "bot")
    ok(result)
    assert whoami(result)["client_id"] == "bot"
    stats = server.stats()
    assert stats["authorize"] == 0 and stats["token"]["client_credentials"] == 1
    assert stats["token_requests"][0]["client_auth"] == "client_secret_basic"
    assert stats["token_requests"][0]["resource"] == server.url
    assert_no_secret(server, result.stdout, result.stderr)


def test_a_config_entry_auth_object(oauth_server, env, tmp_path):
    server = oauth_server("--no-dcr", "--client", "cfg-client:cfg-secret-value:client_secret_post")
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"servers": {
        "protected": {"type": "http", "url": server.url,
                      "auth": {"clientId": "cfg-client", "clientSecret": "${CFG_SECRET}", "scope": ["mcp", "admin"],
                               "clientAuthMethod": "client_secret_post",
                               "oauthOpen": "fetch"}},
        "plain": {"type": "http", "url": server.url, "auth": False}}}), encoding="utf-8")
    env = dict(env, CFG_SECRET="cfg-secret-value")
    record = tmp_path / "cfg.jsonl"
    result = cli(env, "--config", str(config), "--server", "protected", "--record", str(record), "call", "admin_action")
    ok(result)
    assert "admin action done for cfg-client" in result.stdout
    stats = server.stats()
    assert stats["authorize"] == 1 and stats["mcp"]["403"] == 0
    assert stats["token_requests"][0]["client_auth"] == "client_secret_post"
    assert_no_secret(server, result.stdout, result.stderr, record.read_text(encoding="utf-8"))
    refused = cli(env, "--config", str(config), "--server", "plain", "tools")
    assert refused.returncode == 3, refused.stderr
    assert_no_traceback(refused)
    assert "401" in refused.stderr
    assert server.stats()["authorize"] == 1


def test_the_legacy_sse_transport_authorizes_and_steps_up(oauth_server, env):
    server = oauth_server("--mode", "sse")
    assert server.url.endswith("/sse")
    result = run(env, server, "--transport", "sse", "call", "whoami")
    ok(result)
    assert whoami(result)["resource"] == server.url
    stepped = run(env, server, "--transport", "sse", "call", "admin_action")
    ok(stepped)
    assert "admin action done" in stepped.stdout
    stats = server.stats()
    assert stats["authorize"] == 2 and stats["mcp"]["403"] == 1
    assert set(stats["authorize_requests"][-1]["scope"].split()) == {"mcp", "admin"}


def test_a_new_authorization_server_means_registering_again(oauth_server, env):
    server = oauth_server()
    ok(run(env, server, "tools"))
    urllib.request.urlopen(urllib.request.Request(server.base + "/_migrate", method="POST"), timeout=10).close()
    result = run(env, server, "call", "whoami")
    ok(result)
    assert whoami(result)["client_id"].startswith("as2-client-")
    stats = server.stats()
    assert stats["as2"]["register"] == 1 and stats["as2"]["authorize"] == 1
    assert stats["as2"]["authorize_requests"][0]["client_id"].startswith("as2-client-")
    status = cli(env, "auth", "status", server.url, "--json")
    ok(status)
    assert json.loads(status.stdout)[0]["issuer"] == server.base + "/as2"
    assert_no_secret(server, result.stdout, result.stderr, status.stdout)


def test_pipe_authorizes_and_keeps_stdin_for_the_protocol(oauth_server, env):
    server = oauth_server()
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    result = run(env, server, "pipe", input=json.dumps(message) + "\n")
    ok(result)
    replies = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    reply = next(r for r in replies if r.get("id") == 1)
    assert json.loads(reply["result"]["content"][0]["text"])["scopes"] == ["mcp"]
    assert server.stats()["authorize"] == 1
    assert_no_secret(server, result.stdout, result.stderr)


def test_no_auth_gets_the_401_as_an_error(oauth_server, env):
    server = oauth_server()
    result = cli(env, "tools", "--url", server.url, "--no-auth")
    assert result.returncode == 3
    assert_no_traceback(result)
    assert "401" in result.stderr and "resource_metadata" in result.stderr
    assert server.stats()["authorize"] == 0 and server.stats()["register"] == 0


def test_keyring_store_without_a_keyring_is_a_clear_error(oauth_server, env):
    server = oauth_server()
    # the keyring library's "no backend" (never the tester's real keyring)
    env = dict(env, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    result = run(env, server, "tools", "--auth-store", "keyring")
    assert result.returncode not in (0, 70), result.stderr
    assert_no_traceback(result)
    assert "keyring" in result.stderr and "--auth-store file" in result.stderr
    assert server.stats()["token"]["authorization_code"] == 0
