"""The value types of the command line's options (argparse ``type=``): each turns a word into
a value or raises ArgumentTypeError with what was wrong."""

from __future__ import annotations

import argparse


def timeout_seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError("must be >= 0 (0 means no timeout)")
    if value == float("inf"):
        return None  # "inf" means what 0 means: no timeout
    return value or None


_SIZE_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_size(text: str) -> int:
    """``262144``, ``64K``, ``256M``, ``1G`` (binary units); at least 1K."""
    scale = _SIZE_UNITS.get(text[-1:].upper())
    try:
        value = int(text[:-1] if scale else text) * (scale or 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 262144, 64K, 256M, 1G)") from None
    if value < 1024:
        raise argparse.ArgumentTypeError("must be at least 1K")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a number of seconds > 0")
    return value


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError("must be a port number (1-65535)")
    return value


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value
