"""The Traffic view: the frame log, its filter bar and its jq query."""
