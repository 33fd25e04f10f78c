"""Watch a server's files and tell when they change (the development loop: edit, restart, see
what changed). ``paths``: which paths to watch, given or inferred from the server's command;
``watcher``: the file watcher itself (``watchfiles``), debounced, ignoring what is not source."""
