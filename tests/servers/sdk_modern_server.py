"""A 2026-07-28 MCP server over stdio, built with the official ``mcp`` SDK (2.3.0).

Usage::

    python tests/servers/sdk_modern_server.py [--dual]

Default: modern only. Every request must carry the 2026-07-28 ``_meta`` envelope
(``io.modelcontextprotocol/protocolVersion`` = ``2026-07-28``, ``.../clientInfo``,
``.../clientCapabilities``); ``server/discover`` answers ``supportedVersions:
["2026-07-28"]``; an ``initialize`` request is REJECTED with JSON-RPC error -32022
(UNSUPPORTED_PROTOCOL_VERSION, "connection is serving the 2026-07-28 protocol; the
initialize handshake is not accepted", ``data.supported`` lists the served versions). A
request without the envelope gets an error too (the SDK's inbound classification).
Server-to-client requests are impossible: elicitation comes back as an
``input_required`` result (``inputRequests`` + ``requestState``) to retry with
``inputResponses``.

``--dual``: the SDK's ordinary stdio serving, where the client's FIRST request decides the
era for the whole connection (``initialize`` -> legacy, an enveloped request -> modern;
the other era is refused afterwards). ``tests/servers/sdk_server.py`` behaves the same way.

Tools, resources and the prompt are those of ``tests/servers/sdk_http_server.py`` (echo,
add, progress_and_log, change_tools, ask_user, sleep, close_stream; ``info://server``,
``greeting://{name}``; ``greet_prompt``). Log notifications are sent in the modern era only
when the request's ``_meta`` carries ``io.modelcontextprotocol/logLevel``. Exits on stdin
EOF.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

import anyio

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp.server.runner import _serve_modern_stream  # noqa: E402  (private: the SDK has no public modern-only entry)
from mcp.server.stdio import stdio_server  # noqa: E402 - after the sys.path/environment setup above
from sdk_http_server import server  # noqa: E402  (the same tools as the HTTP fixture)

warnings.filterwarnings("ignore")


async def serve_modern_only() -> None:
    low = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream), low.lifespan(low) as lifespan_state:
        try:
            await _serve_modern_stream(
                low, read_stream, write_stream, lifespan_state=lifespan_state, raise_exceptions=False
            )
        finally:
            await write_stream.aclose()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dual", action="store_true", help="serve both eras (first request decides)")
    args = parser.parse_args(argv)
    try:
        if args.dual:
            server.run("stdio")
        else:
            anyio.run(serve_modern_only)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
