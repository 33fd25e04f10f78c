"""Images drawn in the terminal (``textual-image``): Sixel or the Kitty graphics protocol
where the terminal answers for one, else none (the image's size, save and open keys).

The terminal can only be asked before Textual starts (Textual's input thread would take the
answer), so ``prepare()`` runs just before the app: on a terminal, it imports
``textual_image`` (whose import asks, 0.1 s at most per question) and keeps which protocol it
found (not inside tmux or GNU screen: see ``inside_multiplexer``). ``MCP_INSPECTOR_IMAGES``
overrides: ``off`` never draws and never asks; ``halfcell``
(coloured half blocks) or ``unicode`` draw with those on any terminal, without asking. Tests
use ``halfcell`` to draw without a terminal.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

DRAW_MAX_BYTES = 4 << 20  # images larger than this (decoded) are not drawn: size and save only
# Nor more pixels than this: a 4 MB PNG can hold 100 megapixels (a decompression bomb's few hundred MB and
# seconds of decoding on the event loop); the header says the size before anything is decoded.
DRAW_MAX_PIXELS = 16_000_000
MAX_ROWS = 16  # the drawn image's height at most, in terminal rows
FORCED = ("halfcell", "unicode")

_kind: str | None = None  # "sixel", "tgp", "halfcell", "unicode", or None: not drawn
_prepared = False


def prepare() -> str | None:
    """Ask the terminal which image protocol it speaks (once, before the app runs)."""
    global _kind, _prepared
    if _prepared:
        return _kind
    _prepared = True
    setting = os.environ.get("MCP_INSPECTOR_IMAGES", "").strip().lower()
    if setting == "off":
        return None
    if setting in FORCED:
        try:
            import textual_image.widget  # noqa: F401 - (on a terminal its import asks it: now, before the app)
        except Exception:  # noqa: BLE001 - not installed: no drawing
            return None
        _kind = setting
        return _kind
    stdout = sys.__stdout__
    if stdout is None or not stdout.isatty() or sys.__stdin__ is None or not sys.__stdin__.isatty():
        return None
    if inside_multiplexer(os.environ):
        return None
    try:
        import textual_image.widget  # noqa: F401 - fills its cell size cache while the terminal can still answer
        from textual_image import renderable
        from textual_image.renderable.sixel import Image as Sixel
        from textual_image.renderable.tgp import Image as Tgp
    except Exception:  # noqa: BLE001 - not installed, or a terminal that answers oddly: no drawing
        return None
    _kind = {Sixel: "sixel", Tgp: "tgp"}.get(renderable.Image)  # half blocks on a plain terminal: not a protocol
    return _kind


def inside_multiplexer(environ: Mapping[str, str]) -> bool:
    """tmux or GNU screen: they draw neither protocol for the app, and the Kitty query (an APC
    sequence) became tmux's pane title (``Gi=…;AAAA``), so the terminal is not asked there."""
    return bool(environ.get("TMUX") or environ.get("STY")) or environ.get("TERM", "").startswith(("tmux", "screen"))


def kind() -> str | None:
    """The protocol images are drawn with (None: they are not drawn)."""
    if not _prepared and os.environ.get("MCP_INSPECTOR_IMAGES", "").strip().lower() in FORCED:
        prepare()
    return _kind


def describe() -> str:
    return {
        "sixel": "Sixel",
        "tgp": "the Kitty graphics protocol",
        "halfcell": "half blocks",
        "unicode": "Unicode blocks",
    }.get(_kind or "", "")


def image_widget(data: bytes, classes: str = "") -> tuple[Any, str | None]:
    """(a widget drawing the image, None) or (None, why it is not drawn: None when this
    terminal draws no images, else the reason, e.g. an image Pillow cannot read)."""
    current = kind()
    if current is None:
        return None, None
    if len(data) > DRAW_MAX_BYTES:
        return None, f"not drawn: over {DRAW_MAX_BYTES >> 20} MB"
    try:
        from PIL import Image as PILImage

        picture = PILImage.open(io.BytesIO(data))  # reads the header only
        width, height = picture.size
        if width * height > DRAW_MAX_PIXELS:
            return None, f"not drawn: {width:,}×{height:,} pixels (over {DRAW_MAX_PIXELS // 1_000_000} million)"
        picture.load()
    except Exception as exc:  # noqa: BLE001 - a broken image is said, never raised
        return None, f"not drawn: the image cannot be decoded ({exc.__class__.__name__})"
    if current == "sixel":
        from textual_image.widget import SixelImage as Widget
    elif current == "tgp":
        from textual_image.widget import TGPImage as Widget
    elif current == "halfcell":
        from textual_image.widget import HalfcellImage as Widget
    else:
        from textual_image.widget import UnicodeImage as Widget
    widget = Widget(picture, classes=classes)
    widget.styles.width = "auto"
    widget.styles.height = "auto"
    widget.styles.max_height = MAX_ROWS
    return widget, None


def drawn(size: int | None, decode: Callable[[], bytes], classes: str) -> list[Any]:
    """What a result or a resource shows of an image: the drawn image, or a line saying why it is not
    drawn (over DRAW_MAX_BYTES: never decoded; a broken image); nothing on a terminal without images
    or when ``decode`` cannot get the bytes (the block's own problem line says so)."""
    from rich.text import Text
    from textual.widgets import Static

    if kind() is None:
        return []
    if size is not None and size > DRAW_MAX_BYTES:
        return [Static(f"not drawn: over {DRAW_MAX_BYTES >> 20} MB", classes="block-meta")]
    try:
        data = decode()
    except (ValueError, KeyError, TypeError):  # binascii.Error is a ValueError
        return []
    widget, why_not = image_widget(data, classes=classes)
    if widget is not None:
        return [widget]
    return [Static(Text(why_not), classes="block-meta")] if why_not else []
