"""No text a server sent reaches the terminal as a control sequence.

Rich and Textual strip only a few control characters (BEL, BS, VT, FF, CR) from text; an ESC in a
server's name, a tool description or a prompt would reach the terminal inside the segments Textual
writes, and a server could retitle the window (OSC 0), write the clipboard (OSC 52) or move the
cursor over the app. ``ControlCharacters`` is a Textual line filter, the last step before output:
it removes C0 controls, DEL and C1 controls from every segment's text. They have no width, so the
layout is unchanged; the rest of a sequence (``]0;title``) shows as the plain text it is. (The
traffic log's lines are cleaned before this, with the escapes shown: traffic_text.clean.)
"""

from __future__ import annotations

import re

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class ControlCharacters(LineFilter):
    """Removes control characters from the text of each segment (styles and widths kept)."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not CONTROLS.search("".join([segment.text for segment in segments])):  # one scan a line (~5 us)
            return segments
        return [
            Segment(CONTROLS.sub("", text), style, control) if CONTROLS.search(text) else Segment(text, style, control)
            for text, style, control in segments
        ]
