"""The main screen: the screen itself (screen.py), the views it makes and feeds (views.py),
what it keeps per server (server_state.py) and watching the server's files (watch_state.py)."""
