"""The views other than Main: each a tab of the main screen (made and fed by screens/main/view_switcher.py)."""
