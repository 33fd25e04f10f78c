"""What the user names and keeps: server specs from the command line and config files, the CLI
command line that repeats a call, argument drafts on disk."""
