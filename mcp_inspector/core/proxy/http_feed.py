"""The HTTP proxy's exchanges on the live feed (and in its recording), so a viewer's HTTP view shows
them as for a direct connection.

``http.HttpProxy`` says what happens to each exchange as a record (:func:`begin`, :func:`response`,
:func:`event`, :func:`body`, :func:`finish`); the recorder thread puts it on the feed in order with
the frames (``recorder.FrameRecorder.http``), and in the session file when recording; the viewer
applies it to its store's ``HttpLog`` (:func:`apply`). The frames an exchange carried name it in
``meta["exchange"]``, as in the recording; :func:`link_entry` links them (the request's body first,
with its JSON-RPC method).

The record's shape, its strict :func:`parse` are ``core/traffic/http_records``'s, :func:`apply` ``http_log``'s:
one format for the feed and for session files (``--open`` reads a proxy's recording the same way).
URL and headers are masked by the proxy before they leave it.
"""

from __future__ import annotations

from ..traffic.http_log import apply, link_entry
from ..traffic.http_records import (
    MAX_HEADERS,
    MAX_TEXT,
    NOTES,
    OPS,
    TYPE,
    HttpOp,
    begin,
    body,
    event,
    finish,
    parse,
    response,
)

__all__ = [
    "MAX_HEADERS",
    "MAX_TEXT",
    "NOTES",
    "OPS",
    "TYPE",
    "HttpOp",
    "apply",
    "begin",
    "body",
    "event",
    "finish",
    "link_entry",
    "parse",
    "response",
]
