"""Split a byte stream into newline-delimited frames.

Works on bytes, not text, so that split writes (even mid UTF-8 character), CRLF
endings and lines of any size survive intact; decoding happens later, per frame.

A line may not grow without bound: once the unfinished line passes ``max_line``
bytes, the framer keeps only its head, counts the rest as it arrives and, when
the newline finally comes, returns an :class:`OverlongLine` (the head, with the
whole line's size). Memory stays bounded by the cap whatever the peer sends.
"""

from __future__ import annotations

MAX_LINE_BYTES = 256 << 20  # default cap: well above the 50 MB results we support
OVERLONG_HEAD = 64 << 10  # what is kept of a line over the cap


class OverlongLine(bytes):
    """The head of a line longer than the cap; ``size`` is the whole line's length
    in bytes (without its line ending)."""

    size: int

    def __new__(cls, head: bytes, size: int) -> OverlongLine:
        line = super().__new__(cls, head)
        line.size = size
        return line

    def __repr__(self) -> str:
        return f"OverlongLine({len(self)} of {self.size} bytes)"


class LineFramer:
    """Accumulates chunks and returns complete lines (without the line ending).

    A chunk with no newline costs one list append, so a 50 MB line arriving in
    64 KiB chunks is joined once, not re-scanned on every chunk. A line over
    ``max_line`` bytes comes out as an :class:`OverlongLine` (None: no cap).
    """

    __slots__ = (
        "_pending",
        "_pending_size",
        "max_line",
        "head_size",
        "_over",
        "_over_head",
        "_over_size",
        "_over_cr",
        "max_held",
    )

    def __init__(self, max_line: int | None = MAX_LINE_BYTES, head: int = OVERLONG_HEAD) -> None:
        if max_line is not None and max_line < 1:
            raise ValueError("max_line must be positive")
        self._pending: list[bytes] = []
        self._pending_size = 0
        self.max_line = max_line if max_line is not None else 1 << 62
        self.head_size = min(head, self.max_line)
        self._over = False  # discarding the rest of a line over the cap
        self._over_head = b""
        self._over_size = 0
        self._over_cr = False  # the last byte counted was a CR
        self.max_held = 0  # the most bytes of an unfinished line ever held at once

    @property
    def pending_size(self) -> int:
        """Bytes of the unfinished line held so far (only the head once it is over the cap)."""
        return len(self._over_head) if self._over else self._pending_size

    @property
    def discarding(self) -> bool:
        """True while the unfinished line is over the cap."""
        return self._over

    def feed(self, data: bytes) -> list[bytes]:
        if self._over or self._pending_size + len(data) > self.max_line:
            return self._feed_capped(data)
        # No line can reach the cap within this chunk: the plain fast path.
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
            if self._pending_size > self.max_held:
                self.max_held = self._pending_size
        return lines

    def _feed_capped(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        find = data.find
        while True:
            nl = find(b"\n", start)
            if nl < 0:
                if start < len(data):
                    self._add(data[start:] if start else data)
                return lines
            self._add(data[start:nl])
            lines.append(self._finish())
            start = nl + 1

    def _add(self, piece: bytes) -> None:
        if self._over:
            self._over_size += len(piece)
            if piece:
                self._over_cr = piece[-1] == 13
            return
        if self._pending_size + len(piece) <= self.max_line:
            if piece:
                self._pending.append(piece)
                self._pending_size += len(piece)
                if self._pending_size > self.max_held:
                    self.max_held = self._pending_size
            return
        # The line crosses the cap: keep its head, drop what is held, count from now on.
        need = self.head_size
        parts: list[bytes] = []
        for part in (*self._pending, piece):
            if need <= 0:
                break
            part = part[:need]
            parts.append(part)
            need -= len(part)
        self._over_head = b"".join(parts)
        self._over_size = self._pending_size + len(piece)
        last = piece or (self._pending[-1] if self._pending else b"")
        self._over_cr = bool(last) and last[-1] == 13
        self._pending = []
        self._pending_size = 0
        self._over = True

    def _finish(self) -> bytes:
        if self._over:
            line = OverlongLine(self._over_head, self._over_size - self._over_cr)
            self._over = False
            self._over_head = b""
            self._over_size = 0
            self._over_cr = False
            return line
        piece = b"".join(self._pending)
        self._pending = []
        self._pending_size = 0
        if piece.endswith(b"\r"):
            piece = piece[:-1]
        return piece

    def flush(self) -> bytes | None:
        """Return the unterminated tail at end of stream, if any (an OverlongLine if over the cap)."""
        if not self._pending and not self._over:
            return None
        return self._finish()


def is_blank(line: bytes) -> bool:
    """Blank lines carry no message; transports skip them instead of reporting garbage."""
    return not line or (line[0] in _ASCII_SPACE and not line.strip())


_ASCII_SPACE = b" \t\n\r\x0b\x0c"  # what bytes.strip() removes; a frame starting otherwise is not blank
