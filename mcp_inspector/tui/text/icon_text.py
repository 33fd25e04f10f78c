"""Icons (serverInfo, tools, prompts, resources) in words: "PNG icon, 2 KB, 48x48".

A ``data:`` URI is described from its header and its length, never decoded and never printed
(a raw base64 string filled the overview's row); an http(s) icon is named by its address and not
fetched (a hostile server's URL is only ever shown).
"""

from __future__ import annotations

from typing import Any

from .traffic_text import clean

MAX_SHOWN_ICONS = 4


def _size_words(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{round(count / 1024)} KB"
    return f"{count / (1024 * 1024):.1f} MB"


def _kind(mime: str) -> str:
    subtype = mime.partition("/")[2].split("+")[0].strip()
    return {"svg": "SVG", "jpeg": "JPEG", "x-icon": "ICO", "vnd.microsoft.icon": "ICO"}.get(
        subtype.lower(), subtype.upper() or "image"
    )


def describe_icon(icon: Any) -> str:
    """One icon in a few words: its kind and size for a data: URI, its address otherwise."""
    if not isinstance(icon, dict):
        return "icon (not an object)"
    src = icon.get("src")
    if not isinstance(src, str) or not src:
        return "icon (no src)"
    if src[:5].lower() == "data:":
        header, comma, payload = src[5:].partition(",")
        if not comma:
            return "icon (a malformed data: URI)"
        parts = header.split(";")
        mime = clean(parts[0][:60]) if parts[0] else "text/plain"
        if "base64" in (p.strip().lower() for p in parts[1:]):
            size = len(payload) * 3 // 4 - payload[-2:].count("=")
        else:
            size = len(payload)
        words = f"{_kind(mime)} icon, {_size_words(max(0, size))}"
    else:
        shown = clean(src)
        words = "icon at " + (shown if len(shown) <= 60 else shown[:59] + "…")
    sizes = icon.get("sizes")
    if isinstance(sizes, list) and sizes:
        words += ", " + clean(" ".join(str(s) for s in sizes[:3]))[:30]
    theme = icon.get("theme")
    if isinstance(theme, str) and theme:
        words += f", {clean(theme)[:10]} theme"
    return words


def describe_icons(icons: Any) -> str:
    """Every icon of a list, described; "" for no icons."""
    if not isinstance(icons, list) or not icons:
        return ""
    words = [describe_icon(icon) for icon in icons[:MAX_SHOWN_ICONS]]
    if len(icons) > MAX_SHOWN_ICONS:
        words.append(f"{len(icons) - MAX_SHOWN_ICONS} more")
    return "; ".join(words)
