"""``auth status`` and ``auth logout``: what is stored, said without a secret; removed on request."""

from __future__ import annotations

import json
import os
import time
from argparse import Namespace
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest

from mcp_inspector.cli.commands.auth import cmd_auth_logout, cmd_auth_status, relative_expiry
from mcp_inspector.core.auth.model import ClientInfo, TokenSet
from mcp_inspector.core.auth.store import StoredAuth, TokenStore, url_key

ACCESS = "at-Vb7Nm3Kq9Wx2Lp5Zr8Ty"
REFRESH = "rt-Gh4Jk8Df2Sa6Qw0Er3Tu"
DCR_SECRET = "dcr-Ui9Op7As5Df3Gh1Jk2L"
A = "https://a.example.com/mcp"
B = "https://b.example.com/mcp?api_key=key-Zx9Cv8Bn7Mm6"


@pytest.fixture
def state(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "mcp-inspector" / "auth"


def args(
    url: str | None = None, *, json_out: bool = False, everything: bool = False, store: str | None = None
) -> Namespace:
    return Namespace(url=url, all=everything, json=json_out, auth_store=store)


def save_two(store: TokenStore) -> None:
    now = time.time()
    store.save(
        StoredAuth(
            A,
            A,
            "https://as.example.com",
            ClientInfo("client-a", DCR_SECRET, "client_secret_basic", "dynamic", "https://as.example.com"),
            TokenSet(ACCESS, "Bearer", REFRESH, now + 190, "read write", "https://as.example.com", A, "client-a"),
            now - 10,
        )
    )
    store.save(
        StoredAuth(
            B,
            B,
            "https://idp.example.com",
            ClientInfo("client-b", None, "none", "pre-registered"),
            TokenSet(ACCESS + "B", "DPoP", None, now - 7230, None, dpop_jkt="thumb"),
            now,
        )
    )


def test_status_with_nothing_stored(state, capsys):
    assert cmd_auth_status(args()) == 0
    assert capsys.readouterr().out == f"no stored authorization for any server (in {state})\n"
    assert cmd_auth_status(args(json_out=True)) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert cmd_auth_status(args(A)) == 0
    assert "no stored authorization for https://a.example.com/mcp" in capsys.readouterr().out


def test_status_says_everything_but_a_secret(state, capsys):
    save_two(TokenStore())
    assert cmd_auth_status(args()) == 0
    out = capsys.readouterr().out
    for secret in (ACCESS, REFRESH, DCR_SECRET, "key-Zx9Cv8Bn7Mm6"):
        assert secret not in out
    first, second = out.split("\n\n")
    assert first.splitlines()[0] == A
    assert "  issuer         https://as.example.com" in first
    assert "  client         client-a (dynamic client registration)" in first
    assert "  token          Bearer, expires in 3 min" in first
    assert "  scopes         read write" in first
    assert "  refresh token  yes" in first
    assert second.splitlines()[0] == "https://b.example.com/mcp?api_key=key-•••"
    assert "  client         client-b (pre-registered)" in second
    assert "  token          DPoP, expired 2 h ago" in second
    assert "  refresh token  no" in second


def test_status_json(state, capsys):
    save_two(TokenStore())
    assert cmd_auth_status(args(json_out=True)) == 0
    out = capsys.readouterr().out
    assert ACCESS not in out and REFRESH not in out and DCR_SECRET not in out
    first, second = json.loads(out)
    assert first["server_url"] == A and first["client_id"] == "client-a" and first["registered_via"] == "dynamic"
    assert first["client_secret_stored"] is True and first["refresh_token"] is True and first["expired"] is False
    assert 150 < first["expires_in"] <= 190 and first["scope"] == "read write" and first["token_type"] == "Bearer"
    assert second["expired"] is True and second["refresh_token"] is False and second["dpop_bound"] is True
    assert second["client_secret_stored"] is False


def test_status_of_one_server(state, capsys):
    save_two(TokenStore())
    assert cmd_auth_status(args(B)) == 0
    out = capsys.readouterr().out
    assert out.startswith("https://b.example.com/mcp?api_key=key-•••\n") and "client-a" not in out


def test_a_corrupt_file_is_a_warning_not_a_failure(state, capsys):
    save_two(TokenStore())
    (state / f"{url_key(A)[:40]}.json").write_text("{ torn")
    assert cmd_auth_status(args()) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("https://b.example.com/mcp")
    assert "mcp-inspector: warning: ignored " in captured.err and "not valid JSON" in captured.err
    assert "Traceback" not in captured.err


def test_logout_one_then_nothing_then_all(state, capsys):
    save_two(TokenStore())
    assert cmd_auth_logout(args(A)) == 0
    assert capsys.readouterr().out == f"removed the stored authorization for {A}\n"
    assert TokenStore().load(A) is None and TokenStore().load(B) is not None
    assert cmd_auth_logout(args(A)) == 0
    assert capsys.readouterr().out == f"nothing stored for {A}: nothing to remove\n"
    save_two(TokenStore())
    assert cmd_auth_logout(args(everything=True)) == 0
    out = capsys.readouterr().out
    assert out.startswith("removed 2 stored authorizations: ") and A in out and "key-Zx9Cv8Bn7Mm6" not in out
    assert list(state.iterdir()) == []
    assert cmd_auth_logout(args(everything=True)) == 0
    assert capsys.readouterr().out == f"nothing stored (in {state}): nothing to remove\n"


def test_logout_by_the_url_status_shows(state, capsys):
    save_two(TokenStore())
    assert cmd_auth_logout(args("https://b.example.com/mcp?api_key=key-•••")) == 0
    assert "removed the stored authorization" in capsys.readouterr().out
    assert TokenStore().load(B) is None


def test_logout_needs_a_url_or_all_not_both(state, capsys):
    assert cmd_auth_logout(args()) == 64
    assert cmd_auth_logout(args(A, everything=True)) == 64
    assert capsys.readouterr().err.count("auth logout needs a server URL or --all") == 2


def test_the_none_store_has_nothing(state, capsys):
    save_two(TokenStore())
    assert cmd_auth_status(args(store="none")) == 0
    assert "--auth-store none keeps nothing" in capsys.readouterr().out
    assert cmd_auth_logout(args(everything=True, store="none")) == 0
    assert "nothing to remove" in capsys.readouterr().out
    assert len(TokenStore().entries()) == 2


class DictKeyring(keyring.backend.KeyringBackend):
    enabled = False  # keyring's own discovery must never pick it: viable only inside the fixture

    @keyring.backend.properties.classproperty
    def priority(cls) -> float:
        if not cls.enabled:
            raise RuntimeError("a test backend")
        return 0.01

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.data.get((service, username))

    def set_password(self, service, username, password):
        self.data[(service, username)] = password

    def delete_password(self, service, username):
        if self.data.pop((service, username), None) is None:
            raise keyring.errors.PasswordDeleteError("not there")


@pytest.fixture
def ring():
    previous = keyring.get_keyring()
    DictKeyring.enabled = True
    backend = DictKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)
    DictKeyring.enabled = False


def test_keyring_entries_status_without_the_keyring_and_logout_clears_it(state, capsys, ring):
    save_two(TokenStore("keyring"))
    assert len(ring.data) == 2
    keyring.set_keyring(keyring.backends.fail.Keyring())  # status asks the keyring nothing
    assert cmd_auth_status(args(A)) == 0
    out = capsys.readouterr().out
    assert "refresh token  yes" in out and "secrets in the system keyring" in out
    keyring.set_keyring(ring)
    assert cmd_auth_logout(args(everything=True, store="keyring")) == 0
    assert ring.data == {} and list(state.iterdir()) == []


def test_relative_expiry_words():
    now = 1_000_000.0
    assert relative_expiry(None, now) == "no expiry given"
    assert relative_expiry(now + 45, now) == "expires in 45 s"
    assert relative_expiry(now + 180, now) == "expires in 3 min"
    assert relative_expiry(now + 3 * 3600 + 600, now) == "expires in 3 h 10 min"
    assert relative_expiry(now - 60, now) == "expired 1 min ago"
    assert relative_expiry(now - 2 * 86400, now) == "expired 2 d ago"


def test_through_the_real_cli(state, tmp_path):
    """`mcp-inspector auth status|logout` as a user types them (parsing.py runs these functions)."""
    from cli_helpers import assert_no_traceback, cli

    save_two(TokenStore())
    (state / "stray.json").write_text("not ours")
    env = {"XDG_STATE_HOME": os.environ["XDG_STATE_HOME"]}
    status = cli("auth", "status", "--json", env=env)
    assert status.returncode == 0, status.stderr
    assert [entry["server_url"] for entry in json.loads(status.stdout)] == [
        A,
        "https://b.example.com/mcp?api_key=key-•••",
    ]
    assert "warning: ignored " in status.stderr and "stray.json" in status.stderr
    for text in (status.stdout, status.stderr):
        assert ACCESS not in text and REFRESH not in text and DCR_SECRET not in text
    one = cli("auth", "status", A, env=env)
    assert one.returncode == 0 and one.stdout.startswith(A + "\n") and "client-b" not in one.stdout
    assert cli("auth", "logout", env=env).returncode == 64
    logout = cli("auth", "logout", A, env=env)
    assert logout.returncode == 0 and logout.stdout == f"removed the stored authorization for {A}\n"
    again = cli("auth", "logout", A, env=env)
    assert again.returncode == 0 and again.stdout == f"nothing stored for {A}: nothing to remove\n"
    everything = cli("auth", "logout", "--all", env=env)
    assert everything.returncode == 0 and everything.stdout.startswith("removed 1 stored authorization")
    assert [path.name for path in state.iterdir()] == ["stray.json"]  # not ours: left alone
    assert_no_traceback(everything)
