"""The MCP session over an rpc connection: its lifecycle, the events it emits, list diffs, tool results."""
