"""Split a byte stream into newline-delimited frames.

Works on bytes, not text, so that split writes (even mid UTF-8 character), CRLF
endings and lines of any size survive intact; decoding happens later, per frame.
"""

from __future__ import annotations


class LineFramer:
    """Accumulates chunks and returns complete lines (without the line ending).

    A chunk with no newline costs one list append, so a 50 MB line arriving in
    64 KiB chunks is joined once, not re-scanned on every chunk.
    """

    __slots__ = ("_pending", "_pending_size")

    def __init__(self) -> None:
        self._pending: list[bytes] = []
        self._pending_size = 0

    @property
    def pending_size(self) -> int:
        """Bytes of the unfinished line held so far."""
        return self._pending_size

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        find = data.find
        while True:
            nl = find(b"\n", start)
            if nl < 0:
                break
            piece = data[start:nl]
            if self._pending:
                self._pending.append(piece)
                piece = b"".join(self._pending)
                self._pending = []
                self._pending_size = 0
            if piece.endswith(b"\r"):
                piece = piece[:-1]
            lines.append(piece)
            start = nl + 1
        if start < len(data):
            rest = data[start:] if start else data
            self._pending.append(rest)
            self._pending_size += len(rest)
        return lines

    def flush(self) -> bytes | None:
        """Return the unterminated tail at end of stream, if any."""
        if not self._pending:
            return None
        tail = b"".join(self._pending)
        self._pending = []
        self._pending_size = 0
        if tail.endswith(b"\r"):
            tail = tail[:-1]
        return tail


def is_blank(line: bytes) -> bool:
    """Blank lines carry no message; transports skip them instead of reporting garbage."""
    return not line or (line[0] in _ASCII_SPACE and not line.strip())


_ASCII_SPACE = b" \t\n\r\x0b\x0c"  # what bytes.strip() removes; a frame starting otherwise is not blank
