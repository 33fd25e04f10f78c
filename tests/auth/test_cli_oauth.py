"""The OAuth client end to end, through the real CLI (``python -m mcp_inspector``) against the
fixture authorization server + protected MCP server (tests/servers/oauth_server.py): the stored
token reused, step-up, refresh, discovery variants, pre-registered clients, client credentials,
config entries, both HTTP transports and eras, a moved authorization server, ``pipe``,
``--no-auth``, the token stores and ``auth status|logout``. (How the URL is opened:
test_cli_oauth_open.py; broken servers and secrets: test_cli_oauth_hostile.py.)

What the server saw is read from its ``/_stats`` (counts, and every secret it issued). State
and config go to the test's tmp dir (``env`` fixture), never the real home.
"""

from __future__ import annotations

import json
import stat
import urllib.request
from pathlib import Path

import pytest
from auth_helpers import (
    assert_no_secret,
    assert_no_traceback,
    assert_ok,
    cli,
    files_text,
    let_tokens_expire,
    oauth_cli,
    whoami_of,
)


def test_fetch_authorizes_then_reuses_the_stored_token(oauth_server, env):
    server = oauth_server()
    listed = oauth_cli(env, server, "tools")
    assert_ok(listed)
    assert "whoami" in listed.stdout and "admin_action" in listed.stdout
    stats = server.stats()
    assert stats["authorize"] == 1 and stats["register"] == 1 and stats["token"]["authorization_code"] == 1
    request = stats["authorize_requests"][0]
    assert request["code_challenge_method"] == "S256" and request["resource"] == server.url
    assert request["scope"] == "mcp"  # from the 401's WWW-Authenticate
    called = oauth_cli(env, server, "call", "whoami")
    assert_ok(called)
    assert whoami_of(called)["scopes"] == ["mcp"]
    stats = server.stats()
    assert stats["authorize"] == 1 and stats["register"] == 1, "the second run authorized again"
    assert stats["token"]["authorization_code"] == 1
    assert_no_secret(server, listed.stdout, listed.stderr, called.stdout, called.stderr)
    store = Path(env["XDG_STATE_HOME"]) / "mcp-inspector" / "auth"
    files = [p for p in store.iterdir() if p.is_file()]
    assert files and stat.S_IMODE(store.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files)


def test_step_up_reauthorizes_with_the_union_of_scopes(oauth_server, env):
    server = oauth_server()
    assert_ok(oauth_cli(env, server, "tools"))
    result = oauth_cli(env, server, "call", "admin_action")
    assert_ok(result)
    assert "admin action done" in result.stdout
    stats = server.stats()
    assert stats["mcp"]["403"] >= 1
    assert stats["authorize"] == 2
    assert set(stats["authorize_requests"][-1]["scope"].split()) == {"mcp", "admin"}
    # the wider token is stored: the next call needs no authorization
    assert_ok(oauth_cli(env, server, "call", "whoami"))
    assert server.stats()["authorize"] == 2
    status = cli(env, "auth", "status", server.url, "--json")
    assert_ok(status)
    [entry] = json.loads(status.stdout)
    assert set(entry["scope"].split()) == {"mcp", "admin"} and entry["refresh_token"] is True
    assert entry["issuer"] == server.issuer and entry["registered_via"] == "dynamic"
    assert_no_secret(server, status.stdout, status.stderr)


def test_expired_token_is_refreshed_not_reauthorized(oauth_server, env):
    server = oauth_server("--expires-in", "1")
    assert_ok(oauth_cli(env, server, "tools"))
    let_tokens_expire()
    result = oauth_cli(env, server, "call", "whoami")
    assert_ok(result)
    stats = server.stats()
    assert stats["authorize"] == 1
    refreshes = [r for r in stats["token_requests"] if r["grant_type"] == "refresh_token"]
    assert refreshes and all(r["outcome"] == "ok" for r in refreshes), stats["token_requests"]
    assert_no_secret(server, result.stdout, result.stderr)


def test_a_refused_refresh_falls_back_to_authorizing_again(oauth_server, env):
    server = oauth_server("--expires-in", "1", "--refresh-fails")
    assert_ok(oauth_cli(env, server, "tools"))
    let_tokens_expire()
    result = oauth_cli(env, server, "call", "whoami")
    assert_ok(result)
    stats = server.stats()
    refreshes = [r for r in stats["token_requests"] if r["grant_type"] == "refresh_token"]
    assert refreshes and all(r["outcome"] == "invalid_grant" for r in refreshes)
    assert stats["authorize"] >= 2
    assert_no_secret(server, result.stdout, result.stderr)


def test_without_refresh_tokens_an_expired_token_means_authorizing_again(oauth_server, env):
    server = oauth_server("--expires-in", "1", "--no-refresh")
    assert_ok(oauth_cli(env, server, "tools"))
    let_tokens_expire()
    assert_ok(oauth_cli(env, server, "call", "whoami"))
    stats = server.stats()
    assert stats["token"]["refresh_token"] == 0
    assert stats["authorize"] >= 2


def test_auth_status_and_logout(oauth_server, env):
    server = oauth_server()
    assert_ok(oauth_cli(env, server, "tools"))
    status = cli(env, "auth", "status")
    assert_ok(status)
    assert server.url in status.stdout or server.base in status.stdout, status.stdout
    assert_no_secret(server, status.stdout, status.stderr)
    logout = cli(env, "auth", "logout", server.url)
    assert_ok(logout)
    after = cli(env, "auth", "status")
    assert_ok(after)
    assert server.url not in after.stdout
    assert_ok(oauth_cli(env, server, "tools"))
    assert server.stats()["authorize"] == 2


VARIANTS = [
    (("--prm-at-root", "--no-challenge-metadata"), ["mcp"]),
    (("--issuer-path", "/tenant", "--jwt"), ["mcp"]),
    (("--no-challenge-scope", "--mode", "stateless"), ["mcp", "admin"]),  # then scopes_supported of the PRM
    (("--no-prm", "--resource-optional"), ["mcp"]),  # 2025-03-26: the authorization server at the root
]


@pytest.mark.parametrize(
    "knobs,scopes", VARIANTS, ids=["prm-at-root", "issuer-path-jwt", "no-challenge-scope", "no-prm-2025-03-26"]
)
def test_discovery_variants_a_client_must_handle(oauth_server, env, knobs, scopes):
    server = oauth_server(*knobs)
    result = oauth_cli(env, server, "call", "whoami")
    assert_ok(result)
    assert whoami_of(result)["scopes"] == scopes
    assert server.stats()["authorize"] == 1


def test_pre_registered_client_and_scope_flag(oauth_server, env):
    server = oauth_server("--no-dcr", "--client", "ci-client:ci-secret-value:client_secret_basic")
    result = oauth_cli(
        env,
        server,
        "call",
        "admin_action",
        "--client-id",
        "ci-client",
        "--client-secret",
        "ci-secret-value",
        "--scope",
        "mcp",
        "--scope",
        "admin",
    )
    assert_ok(result)
    assert "admin action done for ci-client" in result.stdout
    stats = server.stats()
    assert stats["register"] == 0 and stats["authorize"] == 1 and stats["mcp"]["403"] == 0
    assert stats["authorize_requests"][0]["client_id"] == "ci-client"
    assert stats["authorize_requests"][0]["scope"] == "mcp admin"
    assert stats["token_requests"][0]["client_auth"] == "client_secret_basic"
    assert_no_secret(server, result.stdout, result.stderr)


def test_auth_store_none_keeps_nothing(oauth_server, env, tmp_path):
    server = oauth_server()
    assert_ok(oauth_cli(env, server, "tools", "--auth-store", "none"))
    assert_ok(oauth_cli(env, server, "tools", "--auth-store", "none"))
    assert server.stats()["authorize"] == 2
    assert_no_secret(server, files_text(tmp_path / "state"))


def test_step_up_inside_a_legacy_session(oauth_server, env):
    server = oauth_server()
    result = oauth_cli(env, server, "--era", "legacy", "call", "admin_action")
    assert_ok(result)
    assert "admin action done" in result.stdout
    stats = server.stats()
    assert stats["mcp"]["403"] == 1 and stats["authorize"] == 2


def test_client_credentials_with_the_secret_from_the_environment(oauth_server, env):
    server = oauth_server("--client", "bot:bot-secret-value:client_secret_basic")
    env = dict(env, MCP_INSPECTOR_CLIENT_SECRET="bot-secret-value")
    result = oauth_cli(env, server, "call", "whoami", "--oauth-grant", "client_credentials", "--client-id", "bot")
    assert_ok(result)
    assert whoami_of(result)["client_id"] == "bot"
    stats = server.stats()
    assert stats["authorize"] == 0 and stats["token"]["client_credentials"] == 1
    assert stats["token_requests"][0]["client_auth"] == "client_secret_basic"
    assert stats["token_requests"][0]["resource"] == server.url
    assert_no_secret(server, result.stdout, result.stderr)


def test_a_config_entry_auth_object(oauth_server, env, tmp_path):
    server = oauth_server("--no-dcr", "--client", "cfg-client:cfg-secret-value:client_secret_post")
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps(
            {
                "servers": {
                    "protected": {
                        "type": "http",
                        "url": server.url,
                        "auth": {
                            "clientId": "cfg-client",
                            "clientSecret": "${CFG_SECRET}",
                            "scope": ["mcp", "admin"],
                            "clientAuthMethod": "client_secret_post",
                            "oauthOpen": "fetch",
                        },
                    },
                    "plain": {"type": "http", "url": server.url, "auth": False},
                }
            }
        ),
        encoding="utf-8",
    )
    env = dict(env, CFG_SECRET="cfg-secret-value")
    record = tmp_path / "cfg.jsonl"
    result = cli(env, "--config", str(config), "--server", "protected", "--record", str(record), "call", "admin_action")
    assert_ok(result)
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
    result = oauth_cli(env, server, "--transport", "sse", "call", "whoami")
    assert_ok(result)
    assert whoami_of(result)["resource"] == server.url
    stepped = oauth_cli(env, server, "--transport", "sse", "call", "admin_action")
    assert_ok(stepped)
    assert "admin action done" in stepped.stdout
    stats = server.stats()
    assert stats["authorize"] == 2 and stats["mcp"]["403"] == 1
    assert set(stats["authorize_requests"][-1]["scope"].split()) == {"mcp", "admin"}


def test_a_new_authorization_server_means_registering_again(oauth_server, env):
    server = oauth_server()
    assert_ok(oauth_cli(env, server, "tools"))
    urllib.request.urlopen(urllib.request.Request(server.base + "/_migrate", method="POST"), timeout=10).close()
    result = oauth_cli(env, server, "call", "whoami")
    assert_ok(result)
    assert whoami_of(result)["client_id"].startswith("as2-client-")
    stats = server.stats()
    assert stats["as2"]["register"] == 1 and stats["as2"]["authorize"] == 1
    assert stats["as2"]["authorize_requests"][0]["client_id"].startswith("as2-client-")
    status = cli(env, "auth", "status", server.url, "--json")
    assert_ok(status)
    assert json.loads(status.stdout)[0]["issuer"] == server.base + "/as2"
    assert_no_secret(server, result.stdout, result.stderr, status.stdout)


def test_pipe_authorizes_and_keeps_stdin_for_the_protocol(oauth_server, env):
    server = oauth_server()
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    result = oauth_cli(env, server, "pipe", input=json.dumps(message) + "\n")
    assert_ok(result)
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
    result = oauth_cli(env, server, "tools", "--auth-store", "keyring")
    assert result.returncode not in (0, 70), result.stderr
    assert_no_traceback(result)
    assert "keyring" in result.stderr and "--auth-store file" in result.stderr
    assert server.stats()["token"]["authorization_code"] == 0


def test_client_credentials_against_a_server_without_pkce(oauth_server, env):
    # PKCE belongs to the code grant: a server without S256 still serves client credentials
    server = oauth_server("--no-s256", "--client", "bot:bot-secret-value:client_secret_basic")
    env = dict(env, MCP_INSPECTOR_CLIENT_SECRET="bot-secret-value")
    result = oauth_cli(env, server, "call", "whoami", "--oauth-grant", "client_credentials", "--client-id", "bot")
    assert_ok(result)
    assert whoami_of(result)["client_id"] == "bot"
    refused = oauth_cli(env, server, "tools", "--auth-store", "none")  # the code grant still refuses
    assert refused.returncode != 0 and "S256" in refused.stderr
