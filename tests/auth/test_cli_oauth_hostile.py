"""Broken and leaky servers, end to end through the real CLI against tests/servers/oauth_server.py's
knobs: each broken variant is a clear one-line error (exit not 0 or 70, no traceback, bounded),
and no access or refresh token, authorization code, code_verifier or client secret reaches
stdout, stderr, a recording or its export (the secrets come from the server's ``/_stats``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from auth_helpers import assert_no_secret, assert_no_traceback, assert_ok, let_tokens_expire, oauth_cli

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
    result = oauth_cli(env, server, "tools", *limit)
    assert result.returncode not in (0, 70), f"exit {result.returncode}\n{result.stderr}"
    assert_no_traceback(result)
    assert word.lower() in result.stderr.lower(), result.stderr
    assert len(result.stderr.strip().splitlines()) <= 6, result.stderr
    assert len(result.stderr) < 100_000  # an 8 MB error body is quoted cut, not whole
    if "--as-unreachable" not in knobs:  # the flow's own words, not the requests it met on its way
        assert result.stderr.startswith("mcp-inspector: error: authorization failed: "), result.stderr
    if server.stats()["secrets"]["client_secrets"]:
        assert_no_secret(server, result.stdout, result.stderr)


def test_no_secret_in_output_recording_or_export(oauth_server, env, tmp_path):
    from mcp_inspector.core.traffic.export import export_json, export_session
    from mcp_inspector.core.traffic.loading import load_session

    server = oauth_server("--jwt", "--expires-in", "1", "--dcr-auth-method", "client_secret_post")
    record = tmp_path / "run.jsonl"
    first = oauth_cli(env, server, "--record", str(record), "call", "whoami")
    assert_ok(first)
    let_tokens_expire()
    record2 = tmp_path / "run2.jsonl"
    second = oauth_cli(env, server, "--record", str(record2), "call", "admin_action")  # refresh, then step-up
    assert_ok(second)
    stats = server.stats()
    assert stats["token"]["refresh_token"] >= 1 and stats["authorize"] == 2
    exported = []
    for path in (record, record2):
        store = load_session(path).store
        exported.append(export_session(store, tmp_path / f"{path.stem}-export.jsonl").path)
        exported.append(export_json(store, tmp_path / f"{path.stem}-export.json").path)
    texts = [
        first.stdout,
        first.stderr,
        second.stdout,
        second.stderr,
        *(Path(p).read_text(encoding="utf-8") for p in (record, record2, *exported)),
    ]
    assert_no_secret(server, *texts)
    for kind in ("access_tokens", "refresh_tokens", "codes", "client_secrets"):
        assert stats["secrets"][kind], f"no {kind} issued: the test would prove nothing"


def test_a_token_the_server_echoes_back_is_masked_in_the_output_and_the_recording(oauth_server, env, tmp_path):
    server = oauth_server()
    record = tmp_path / "leak.jsonl"
    result = oauth_cli(env, server, "--record", str(record), "call", "leak_token")
    assert_ok(result)
    assert "you sent: Bearer" in result.stdout and "•••" in result.stdout
    as_json = oauth_cli(env, server, "call", "leak_token", "--json")
    assert_ok(as_json)
    assert "you sent: Bearer" in as_json.stdout
    assert_no_secret(server, result.stdout, result.stderr, as_json.stdout, record.read_text(encoding="utf-8"))
