"""'Copy as CLI command': an ``mcp-inspector call ...`` line that repeats a recorded tools/call."""

from __future__ import annotations

from typing import Any

from ...core.base.json_text import parse_frame
from ...core.base.jsonrpc import Kind
from ...core.traffic.entry import TrafficEntry


def cli_command_for(entry: TrafficEntry, server_spec: Any) -> str:
    """An ``mcp-inspector call ...`` command line that repeats a tools/call request."""
    if entry.kind is not Kind.REQUEST or entry.method != "tools/call":
        raise ValueError(f"#{entry.seq} is not a tools/call request.")
    if server_spec is None:
        raise ValueError("No server is known for this log, so no command line can be built.")
    try:
        message, _ = parse_frame(entry.raw)  # an opened file's entry may be anything (JsonTextError is a ValueError)
        params = message.get("params") or {}
        tool = params["name"]
        arguments = params.get("arguments") or {}
    except (ValueError, KeyError, AttributeError, TypeError):
        raise ValueError(f"#{entry.seq} is not a well-formed tools/call request.") from None
    try:
        from ...core.config.cli_command import call_command_line
    except ImportError:
        raise ValueError(
            "Copy as CLI command is not available in this build (core.config.cli_command is missing)."
        ) from None
    return call_command_line(server_spec, tool, arguments)
