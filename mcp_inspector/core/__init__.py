"""The protocol engine: transports, JSON-RPC, the MCP session and the traffic store.

Nothing in this package may import Textual or Rich (tests/test_core_isolation.py
proves it), so the headless CLI, the TUI and the benchmarks share one engine.
"""
