"""The Textual front end. Everything protocol-related comes from ``mcp_inspector.core``."""
