"""The headless command line: one-shot commands and ``pipe`` for scripts and CI.

Nothing here imports Textual or Rich, so a cold ``mcp-inspector tools`` starts
about as fast as a minimal hand-written client.
"""
