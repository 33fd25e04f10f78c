"""OAuth 2.1 for remote servers (the MCP authorization spec, 2025-03-26 to 2026-07-28).

``model`` (settings, discovered metadata, client, tokens, the steps of a flow),
``http`` (the flow's requests, logged and masked). See each module's docstring.
"""
