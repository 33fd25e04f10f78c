"""Cursor pagination for the ``*/list`` methods.

Cursors are opaque to the client (base64 of ``kind:offset``); the kind lets
us reject a cursor that was issued for a different list with -32602.
"""

from __future__ import annotations

import base64
import binascii

from .errors import INVALID_PARAMS, RpcError


def _encode(kind: str, offset: int) -> str:
    return base64.urlsafe_b64encode(f"{kind}:{offset}".encode()).decode().rstrip("=")


def _decode(kind: str, cursor: object) -> int:
    if not isinstance(cursor, str):
        raise RpcError(INVALID_PARAMS, "Invalid cursor: must be a string")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        cursor_kind, _, offset_text = raw.partition(":")
        offset = int(offset_text)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise RpcError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor}) from None
    if cursor_kind != kind or offset < 0:
        raise RpcError(INVALID_PARAMS, "Invalid cursor", {"cursor": cursor})
    return offset


def paginate(kind: str, items: list, params: dict, page_size: int) -> tuple[list, str | None]:
    """Return one page of ``items`` and the cursor for the next one (or None).

    ``page_size`` 0 means "everything in one page". An empty-string cursor is
    treated as the start, as 2026-07-28 requires.
    """
    cursor = params.get("cursor")
    start = 0 if cursor in (None, "") else _decode(kind, cursor)
    if start > len(items):
        raise RpcError(INVALID_PARAMS, "Invalid cursor: past the end of the list", {"cursor": cursor})
    end = len(items) if page_size <= 0 else start + page_size
    next_cursor = _encode(kind, end) if end < len(items) else None
    return items[start:end], next_cursor
