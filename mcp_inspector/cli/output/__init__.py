"""What the CLI prints: rendering results, warnings and the report, the line feed thread, the server's output."""
