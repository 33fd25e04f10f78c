"""The Notifications view and its filter (method, level, folding, rates)."""
