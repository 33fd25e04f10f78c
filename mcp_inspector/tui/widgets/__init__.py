"""Widgets and screens of the TUI, one per module."""
