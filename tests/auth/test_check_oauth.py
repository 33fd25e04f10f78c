"""``check --url`` on a protected server: what the OAuth client checked at each step (the Auth
view's findings) is judged as ``oauth-step`` findings of the server check, against the real
fixture authorization server (tests/servers/oauth_server.py) and its defect knobs."""

from __future__ import annotations

import json

from auth_helpers import assert_no_secret, assert_no_traceback, oauth_cli


def _oauth_findings(result):
    document = json.loads(result.stdout)
    return [f for f in document["findings"] if f["rule"] == "oauth-step"]


def test_a_clean_flow_draws_no_oauth_finding(oauth_server, env):
    server = oauth_server()
    result = oauth_cli(env, server, "check", "--json", "--ignore", "unknown-tool")
    assert_no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr
    assert _oauth_findings(result) == []
    assert_no_secret(server, result.stdout, result.stderr)  # tokens were issued: none is in the report


def test_metadata_without_pkce_s256_is_an_error_that_names_its_step_and_source(oauth_server, env):
    server = oauth_server("--no-s256")
    result = oauth_cli(env, server, "check", "--json")
    assert_no_traceback(result)
    assert result.returncode == 8, result.stdout + result.stderr
    (found,) = _oauth_findings(result)
    assert found["severity"] == "error" and found["where"].startswith("auth step ")
    assert (
        "Authorization server metadata" in found["message"] and "code_challenge_methods_supported" in found["message"]
    )
    assert "Authorization Code Protection" in found["spec"]


def test_a_check_the_flow_got_past_is_a_warning(oauth_server, env):
    """No protected resource metadata: the client falls back to the 2025-03-26 locations and goes
    on, so the MUST it broke is a warning (the authorization then fails on its own step)."""
    server = oauth_server("--no-prm")
    result = oauth_cli(env, server, "check", "--json")
    assert_no_traceback(result)
    by_severity = {}
    for found in _oauth_findings(result):
        by_severity.setdefault(found["severity"], []).append(found["message"])
    assert any("No protected resource metadata" in message for message in by_severity["warning"]), by_severity
