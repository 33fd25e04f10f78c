"""The leaf every other core folder may use: strict JSON text, the JSON-RPC message model and
framing, the inspector's errors, secret masking and safe file I/O.

It imports nothing else from mcp_inspector (tests/test_import_graph.py checks that folders
depend one way), so transport, protocol, traffic, auth and config can all share it.
"""
