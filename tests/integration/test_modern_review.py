"""Review of the 2026-07-28 era against the spec, over real pipes: each test pins a
deviation that was fixed (the spec line is in its docstring)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import PYTHON, SERVERS_DIR
from mcp_inspector.core.protocol.errors import ConnectError
from mcp_inspector.core.session.events import SessionState
from mcp_inspector.core.traffic.entry import Direction, Kind

pytestmark = pytest.mark.anyio
MODERN = [PYTHON, str(SERVERS_DIR / "modern_raw_server.py")]


def sent_methods(store) -> list[str]:
    return [json.loads(e.raw).get("method") for e in store if e.direction is Direction.OUT]


def legacy_server(tmp_path: Path, discover_reply: str) -> list[str]:
    """A legacy server that answers server/discover with ``discover_reply`` (``ID`` is
    replaced by the request's id), then does the 2025-06-18 handshake and tools/list."""
    script = tmp_path / "legacy_odd_discover.py"
    script.write_text(textwrap.dedent(f'''
        import json, sys
        REPLY = {discover_reply!r}
        for line in sys.stdin:
            msg = json.loads(line)
            if msg.get("method") == "server/discover":
                sys.stdout.write(REPLY.replace("ID", json.dumps(msg["id"])) + "\\n"); sys.stdout.flush()
                continue
            if msg.get("method") == "initialize":
                out = {{"jsonrpc": "2.0", "id": msg["id"], "result": {{"protocolVersion": "2025-06-18",
                       "capabilities": {{"tools": {{}}}}, "serverInfo": {{"name": "odd", "version": "1"}}}}}}
            elif "id" in msg and "method" in msg:
                out = {{"jsonrpc": "2.0", "id": msg["id"], "result": {{"tools": []}}}}
            else:
                continue
            sys.stdout.write(json.dumps(out) + "\\n"); sys.stdout.flush()
    '''))
    return [sys.executable, str(script)]


MALFORMED = [
    '{"jsonrpc": "2.0", "id": ID, "result": null}',
    '{"jsonrpc": "2.0", "id": ID, "result": []}',
    '{"jsonrpc": "2.0", "id": ID, "error": {"code": -32600}}',
    '{"jsonrpc": "2.0", "id": ID, "error": {"code": "Server not initialized", "message": "x"}}',
]


@pytest.mark.parametrize("reply", MALFORMED)
async def test_a_malformed_reply_to_the_probe_means_legacy(connect, tmp_path, reply):
    """stdio.mdx §Backward Compatibility: "The server returns any other error, or does not
    respond within a reasonable timeout: the server is legacy. Fall back to the initialize
    handshake." A reply that is neither a DiscoverResult nor a modern error is such an
    error; it used to fail the connect with a ProtocolViolation."""
    async with connect(legacy_server(tmp_path, reply), era="auto") as c:
        s = c.session
        assert s.era == "legacy" and s.protocol_version == "2025-06-18"
        assert "malformed reply" in s.era_reason and "fell back to initialize" in s.era_reason
        assert sent_methods(c.store)[:3] == ["server/discover", "initialize", "notifications/initialized"]
        assert await s.list_tools() == []


async def test_era_modern_and_a_malformed_probe_reply_is_a_connect_error(connect, tmp_path):
    async with connect(legacy_server(tmp_path, MALFORMED[0]), era="modern", initialize=False) as c:
        with pytest.raises(ConnectError, match="--era modern: server/discover failed.*not an object"):
            await c.session.initialize()
        assert "initialize" not in sent_methods(c.store)


async def test_a_discover_result_of_the_wrong_result_type_leaves_no_modern_session(connect, tmp_path):
    """basic/index.mdx §ResultType: input_required only on the MRTR methods, an unknown
    value is invalid. The connect fails with a ConnectError, and the session does not
    claim to be modern (it used to be left era "modern", protocol 2026-07-28, FAILED)."""
    reply = ('{"jsonrpc": "2.0", "id": ID, "result": {"resultType": "input_required", '
             '"supportedVersions": ["2026-07-28"], "capabilities": {}}}')
    async with connect(legacy_server(tmp_path, reply), era="auto", initialize=False) as c:
        with pytest.raises(ConnectError, match="server/discover.*input_required"):
            await c.session.initialize()
        s = c.session
        assert s.state is SessionState.FAILED
        assert s.era is None and s.protocol_version is None and s.request_meta() is None
