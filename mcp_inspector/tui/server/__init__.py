"""The TUI's side of a server: connecting, switching (F7), declared capabilities, roots, replay."""
