"""core/auth/deferred.py: the CLI's OAuth client is made at the first challenge when nothing is
stored (the manager's modules: ~5 ms of every cold --url command). Until then it must treat each
request exactly as the manager would with no token: another origin gets no credential, the
server's origin gets the headers as they are. With something stored, or an OAuth option given,
the manager is made at once (it has a token to add, or a flow the user asked for)."""

from __future__ import annotations

import pytest

from mcp_inspector.core.auth.deferred import DeferredAuth, nothing_stored
from mcp_inspector.core.auth.manager import OAuthManager
from mcp_inspector.core.auth.model import AuthSettings
from mcp_inspector.core.config.factory import make_auth
from mcp_inspector.core.config.servers import ServerSpec

pytestmark = pytest.mark.anyio

URL = "https://mcp.example/mcp"


@pytest.fixture
def state(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path / "mcp-inspector"


def never_built():
    raise AssertionError("the OAuth client was made before any challenge")


async def test_until_a_challenge_the_server_origin_gets_its_headers_and_another_none():
    auth = DeferredAuth(URL, never_built)
    own = {"Authorization": "Bearer user-given", "X-Tenant": "a"}
    state: dict = {}
    await auth.prepare("POST", URL, own, state=state)
    assert own == {"Authorization": "Bearer user-given", "X-Tenant": "a"}
    assert state == {"generation": 0}
    other = {"authorization": "Bearer user-given", "DPoP": "proof", "X-Tenant": "a"}
    await auth.prepare("GET", "https://elsewhere.example/sse", other)
    assert other == {"X-Tenant": "a"}
    # another origin's challenge runs no flow, and makes nothing
    assert await auth.challenged("GET", "https://elsewhere.example/sse", 401, {}, 1) is False
    assert auth.manager is None and auth.authorizing is False


def test_the_cli_defers_only_when_nothing_is_stored_and_no_oauth_option_was_given(state):
    spec = ServerSpec(name="remote", url=URL)
    assert nothing_stored()
    assert isinstance(make_auth(spec, defer=True), DeferredAuth)
    assert isinstance(make_auth(spec), OAuthManager)  # (the TUI: its Auth view reads the manager)
    given = ServerSpec(name="remote", url=URL, auth=AuthSettings(client_id="mine"))
    assert isinstance(make_auth(given, defer=True), OAuthManager)
    (state / "auth").mkdir(parents=True)
    assert nothing_stored()  # an empty directory stores nothing
    (state / "auth" / "0123.json").write_text("{}")
    assert not nothing_stored()
    assert isinstance(make_auth(spec, defer=True), OAuthManager)


async def test_the_first_challenge_makes_the_manager_with_what_the_transport_gave(state):
    spec = ServerSpec(name="remote", url=URL)
    auth = make_auth(spec, defer=True)
    assert isinstance(auth, DeferredAuth)
    auth.protocol_version = "2025-11-25"
    manager = auth.built()  # what challenged() builds, without running a flow
    assert isinstance(manager, OAuthManager)
    assert manager.protocol_version == "2025-11-25" and auth.manager is manager
