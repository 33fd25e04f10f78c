"""The demo server's tools: the registry (which tools exist, dispatch) and the tool modules."""
