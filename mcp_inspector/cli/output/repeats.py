"""Repeated lines said once in a while: the first few of each shape, then how many more.

Why: a 10,000-property inputSchema called with no arguments printed 10,000 warnings, one
``'pN' is a required property`` each. Lines of one shape (the same once quoted names and
numbers are set aside) are shown ``KEEP`` at a time, then ``…and 9,997 more like this``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

KEEP = 3
# quoted text (no nested quantifier: each character matches one way) and whole numbers
_VARYING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\d+")


def shape(line: str) -> str:
    """``line`` with its quoted parts and numbers replaced by …, as two lines "like this" share."""
    return _VARYING.sub("…", line)


def summarized(lines: Iterable[str], keep: int = KEEP) -> list[str]:
    """``lines`` in order, at most ``keep`` of each shape; then one line per shape that had more."""
    shown: list[str] = []
    counts: dict[str, int] = {}
    for line in lines:
        key = shape(line)
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= keep:
            shown.append(line)
    for key, count in counts.items():
        if count > keep:
            shown.append(f"…and {count - keep:,} more like this ({key})")
    return shown
