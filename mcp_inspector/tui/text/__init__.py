"""Plain text renderings shared by views and screens: traffic lines, HTTP exchanges, copy as CLI command."""
