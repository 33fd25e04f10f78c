"""The built-in demo MCP server (``python -m mcp_inspector.demo``).

It is the inspector's default target, so it exercises every feature the
inspector can display while using only the standard library. ``main`` is
re-exported lazily so importing this package stays free of asyncio.
"""


def main(argv: list[str] | None = None) -> int:
    """Run the demo server on this process's stdin/stdout; see ``__main__``."""
    from .__main__ import main as _main

    return _main(argv)
