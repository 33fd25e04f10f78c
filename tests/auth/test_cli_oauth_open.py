"""``--oauth-open print`` and ``browser`` end to end through the real CLI against
tests/servers/oauth_server.py: the printed URL opened and the redirect typed on the CLI's
terminal (and a person's mistakes there); ``$BROWSER`` opening the URL and following the
redirect to the loopback listener, which exists only during the flow (closed after it, at the
time limit, and on ctrl+c). (``fetch``: test_cli_oauth.py.)
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time

import pytest
from auth_helpers import (
    assert_no_secret,
    assert_no_traceback,
    assert_ok,
    cli_pasting_redirect,
    install_fake_browser,
    oauth_cli,
    whoami_of,
)


def test_print_mode_takes_the_pasted_redirect(oauth_server, env):
    server = oauth_server()
    result, url = cli_pasting_redirect(env, "call", "whoami", "--url", server.url, "--oauth-open", "print")
    assert url.startswith(server.base + "/authorize?"), result.stderr
    assert_ok(result)
    assert whoami_of(result)["client_id"].startswith("client-")
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
    result = oauth_cli(env, server, "call", "whoami", mode="browser")
    assert_ok(result)
    assert whoami_of(result)["scopes"] == ["mcp"]
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
    result = oauth_cli(env, server, "tools", "--oauth-timeout", "3", mode="browser")
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
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "pipe", "--url", server.url, "--oauth-open", "browser"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
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
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "tools", "--url", server.url, "--oauth-open", "browser"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
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


ESCAPES = "\x1b]0;PWNED\x07\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[H"
HOSTILE_ENDPOINTS = [
    ("{base}/authorize" + ESCAPES, r"'http://127.0.0.1:{port}/authorize\x1b]0;PWNED\x07"),
    ("javascript:alert(document.cookie)//", "'javascript:alert(document.cookie)//'"),
    ("file:///etc/passwd", "'file:///etc/passwd'"),
]


@pytest.mark.parametrize("endpoint,shown", HOSTILE_ENDPOINTS, ids=["escapes", "javascript", "file"])
def test_print_mode_refuses_a_hostile_authorization_endpoint_before_registering(oauth_server, env, endpoint, shown):
    """The metadata's authorization_endpoint carries OSC 0 (title), OSC 52 (clipboard) and cursor moves,
    or is a javascript:/file: URL. Before: the escapes reached the terminal as print mode said the URL;
    the other two registered a client and then said "no authorization_endpoint". Now: refused before
    anything is registered, in words quoting it with its control characters visible."""
    server = oauth_server("--authorization-endpoint", endpoint)
    result, _ = cli_pasting_redirect(
        env, "tools", "--url", server.url, "--oauth-open", "print", "--oauth-timeout", "10", timeout=30
    )
    assert result.returncode not in (0, 70), result.stderr
    assert_no_traceback(result)
    assert "\x1b" not in result.stderr + result.stdout and "\x07" not in result.stderr + result.stdout
    assert f"authorization_endpoint {shown.format(port=server.port)}" in result.stderr, result.stderr
    assert "is not a usable http(s) URL: refused (no client was registered" in result.stderr
    stats = server.stats()
    assert stats["register"] == 0 and stats["authorize"] == 0


def test_print_mode_without_a_paste_ends_at_the_flows_time_limit(oauth_server, env):
    """Nobody pastes: --oauth-timeout ends the flow and the process exits (it used to stay, blocked
    in interpreter shutdown on the worker thread still reading the terminal)."""
    server = oauth_server()
    result, url = cli_pasting_redirect(
        env, "tools", "--url", server.url, "--oauth-open", "print", "--oauth-timeout", "2", timeout=30, paste=None
    )
    assert url, result.stderr
    assert result.returncode == 3, result.stderr
    assert "did not finish within 2 s (--oauth-timeout)" in result.stderr
    assert_no_traceback(result)
