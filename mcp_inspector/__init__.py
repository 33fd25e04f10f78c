"""mcp-inspector: inspect and debug MCP servers from the terminal.

Kept import-free on purpose: the CLI and the TUI import what they need lazily.
"""

__version__ = "0.1.0"
