"""The CLI's commands: basic (info, tools, call, read, get, ...), session (subscribe, complete, ...),
tasks, query, replay, watch and auth."""
