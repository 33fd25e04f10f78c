"""The main screen (screen.py) and the parts it owns, each a class with its own state that sees
the screen through a typed Protocol (host.py): the views it makes and feeds (view_switcher.py,
with the nav bar in nav_bar.py), the tool calls (calls.py), a recording (recording.py), the
checks (checks_state.py), watching the server's files (watch_state.py), connecting and what it
keeps per server (server_state.py), and the attached proxy (attach_state.py)."""
