"""The server's stderr, live, with the process events (start, exit, restart) in between.

It is a view over the same TrafficStore as the traffic log (kinds STDERR and
EVENT), so it costs one index of seqs, bounded by the store's cap.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text

from ....core.base.jsonrpc import Kind
from ....core.traffic.entry import TrafficEntry
from ...text.traffic_text import preview_text
from ..store_lines import StoreLinesView

CONSOLE_KINDS = (Kind.STDERR, Kind.EVENT)
#: A stderr line longer than this is cut (servers sometimes dump a whole payload to stderr).
CONSOLE_LINE_BYTES = 2000


class ConsoleView(StoreLinesView):
    """stderr lines as the server wrote them, and events marked with ●."""

    INCLUDES_EVERYTHING: ClassVar[bool] = False

    def include(self, entry: TrafficEntry) -> bool:
        return entry.kind in CONSOLE_KINDS

    def format_entry(self, entry: TrafficEntry) -> Text:
        text = Text.assemble((self.time_format(entry.ts), self.style_for("time")), " ")
        body = preview_text(entry.raw, CONSOLE_LINE_BYTES)
        if entry.kind is Kind.EVENT:
            text.append("● " + body, self.style_for("local") + self.style_for("method"))
        else:
            text.append(body, self.style_for("stderr"))
        return text
