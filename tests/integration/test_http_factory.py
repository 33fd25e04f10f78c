"""factory.make_transport: a ServerSpec becomes the right transport, with its options."""

from __future__ import annotations

import pytest

from mcp_inspector.core.config.factory import make_transport
from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.traffic.http_log import HttpLog
from mcp_inspector.core.transport.base import TransportError
from mcp_inspector.core.transport.http import HttpTransport
from mcp_inspector.core.transport.stdio import StdioTransport


def test_url_specs_become_http_transports_in_their_mode():
    log = HttpLog()
    for transport, mode in (("http", "auto"), ("streamable-http", "streamable-http"), ("sse", "sse")):
        spec = ServerSpec(
            "remote",
            url="https://example.test/mcp?api_key=abcdef1234567890",
            transport=transport,
            headers={"Authorization": "Bearer abcdef1234567890"},
        )
        made = make_transport(spec, http_log=log, max_frame_bytes=1 << 20)
        assert isinstance(made, HttpTransport)
        assert made.mode == mode and made.http_log is log and made.max_frame_bytes == 1 << 20
        assert made.verify and made.headers == {"Authorization": "Bearer abcdef1234567890"}
        assert "abcdef1234567890" not in made.description and "abcdef1234567890" not in repr(made.details)
        assert made.kind == ("sse" if mode == "sse" else "http")


def test_insecure_from_the_call_or_the_spec_turns_verification_off():
    spec = ServerSpec("remote", url="https://example.test/mcp", transport="http")
    assert not make_transport(spec, insecure=True).verify
    spec.insecure = True  # type: ignore[attr-defined]  # the CLI's ServerSpec field
    assert not make_transport(spec).verify


@pytest.mark.anyio
async def test_commands_become_stdio_transports():  # StdioTransport makes its events at once: inside a loop
    made = make_transport(
        ServerSpec("local", command=["python", "-m", "x"], env={"A": "1"}), max_frame_bytes=4096, write_stall=5
    )
    assert isinstance(made, StdioTransport) and made.max_line_bytes == 4096 and made.write_stall == 5
    assert made.env == {"A": "1"}


def test_bad_specs_are_clear_errors():
    with pytest.raises(TransportError, match="unknown transport"):
        make_transport(ServerSpec("r", url="http://127.0.0.1:1/mcp", transport="websocket"))
    with pytest.raises(TransportError, match="not an http"):
        make_transport(ServerSpec("r", url="ftp://127.0.0.1/mcp", transport="http"))
    for url in ("http://127.0.0.1:99999/mcp", "http://host\x00name/mcp", "http://:80/"):
        with pytest.raises(TransportError, match="URL"):
            make_transport(ServerSpec("r", url=url, transport="http"))
    with pytest.raises(TransportError, match="neither a command nor a URL"):
        make_transport(ServerSpec("empty"))
