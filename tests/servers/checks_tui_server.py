"""A stdio server with a few defects for the TUI's Checks view (tests/tui/test_checks_view.py).

Live rules: a banner on stdout before the handshake (stdout-not-jsonrpc), tools/list_changed
without listChanged declared (list-changed-undeclared), log messages without the logging
capability (logging-undeclared). The active checks (r in the Checks view): a tool name with a
space (tool-name-format). Built on the check fixtures' hand-written server (tests/servers/check).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "check"))

from base import Server, run  # noqa: E402


class Defects(Server):
    name = "checks-tui"

    def start(self):
        self.write_line("Weather server v2 starting on stdio...")

    def capabilities(self):
        return {"tools": {}, "resources": {}, "prompts": {}, "completions": {}}

    def tools(self):
        tools = super().tools()
        tools.append({"name": "get weather", "description": "A name with a space.", "inputSchema": {"type": "object"}})
        return tools

    def notification(self, method, params):
        if method == "notifications/initialized":
            self.send({"method": "notifications/message", "params": {"level": "info", "data": "ready"}})
            self.send({"method": "notifications/tools/list_changed"})


run(Defects)
