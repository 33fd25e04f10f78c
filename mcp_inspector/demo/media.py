"""Tiny PNG and WAV files generated in code, so the repo holds no binaries.

Both are built lazily and cached: importing this module costs nothing.
"""

from __future__ import annotations

import base64
import math
import struct
import zlib
from functools import cache


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _encode_png(width: int, height: int, pixels) -> bytes:
    """Encode ``pixels(x, y) -> (r, g, b, a)`` as an 8-bit RGBA PNG."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            rows.extend(pixels(x, y))
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + _png_chunk(b"IEND", b"")
    )


def _logo_pixel(x: int, y: int, size: int = 32) -> tuple[int, int, int, int]:
    """A magnifying glass over a teal-to-violet gradient."""
    cx = cy = size * 0.42
    distance = math.hypot(x + 0.5 - cx, y + 0.5 - cy)
    lens_outer, lens_inner = size * 0.30, size * 0.21
    on_handle = x > cx and y > cy and abs((x - cx) - (y - cy)) < 2.2 and x < size - 3 and distance > lens_outer - 1
    if lens_inner <= distance <= lens_outer or on_handle:
        return (255, 255, 255, 255)
    if distance < lens_inner:
        return (200, 235, 255, 255)
    t = (x + y) / (2 * size)
    return (int(20 + 110 * t), int(160 - 90 * t), int(170 + 60 * t), 255)


@cache
def logo_png() -> bytes:
    """A 32x32 RGBA logo (used by demo://logo.png, icons and image content)."""
    return _encode_png(32, 32, _logo_pixel)


@cache
def beep_wav(frequency: float = 440.0, seconds: float = 0.25, rate: int = 8000) -> bytes:
    """A short mono 16-bit sine beep with a fade in/out so it does not click."""
    count = int(seconds * rate)
    fade = max(1, count // 10)
    frames = bytearray()
    for i in range(count):
        envelope = min(1.0, i / fade, (count - 1 - i) / fade)
        sample = int(12000 * envelope * math.sin(2 * math.pi * frequency * i / rate))
        frames += struct.pack("<h", sample)
    header = b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVE"
    fmt = b"fmt " + struct.pack("<IHHIIHH", 16, 1, 1, rate, rate * 2, 2, 16)
    return header + fmt + b"data" + struct.pack("<I", len(frames)) + bytes(frames)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@cache
def logo_data_uri() -> str:
    """The logo as a ``data:`` URI, for MCP ``icons``."""
    return "data:image/png;base64," + b64(logo_png())
