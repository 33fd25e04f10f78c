"""JSON-RPC and MCP on the wire: framing, strict JSON text, classification, the rpc connection, errors, versions."""
