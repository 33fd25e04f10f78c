"""``python -m mcp_inspector``: the same entry point as the ``mcp-inspector`` script."""

import sys

from mcp_inspector.cli.main import main

sys.exit(main())
