"""A result's text, bounded: what the result panel, the Resources view and the Prompts view show of
a text or JSON block (at most ``TRUNCATE_AT`` characters, long lines broken, JSON pretty-printed
only when small), and the readable dump ``$PAGER`` gets."""

from __future__ import annotations

import json
from typing import Any

from rich.highlighter import JSONHighlighter
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static, TextArea

from ....core.base.json_text import JsonTextError, loads_strict
from ....core.base.masking import scrub
from .json_text import json_text_area

TRUNCATE_AT = 100_000  # characters of one block shown in the UI
SMALL_TEXT = 2_000  # up to this, a Static; above, a scrollable read-only TextArea
LONG_LINE = 1_000  # longer lines are broken for display
ICONS = {"text": "¶", "image": "▣", "audio": "♪", "resource_link": "↗", "resource": "▤", "unknown": "?"}  # single-width
_JSON_HIGHLIGHTER = JSONHighlighter()


def pretty_json_text(text: str) -> str | None:
    """``text`` pretty-printed if it is a JSON object or array, else None."""
    stripped = text.lstrip()
    if stripped[:1] not in ("{", "["):
        return None
    try:
        return json.dumps(loads_strict(text), indent=2, ensure_ascii=False)
    except JsonTextError:
        return None


def bounded_json(value: Any, limit: int = TRUNCATE_AT) -> tuple[str, bool]:
    """Pretty JSON of ``value``, at most about ``limit`` characters, and whether it was cut.

    Unlike ``json.dumps`` this never encodes more than it shows, so a 50 MB
    string inside structuredContent costs the same as a small one (and no C
    call holds the GIL for long, which a thread worker would not fix).
    """
    out: list[str] = []
    size = 0
    cut = False

    class Full(Exception):
        pass

    def emit(text: str) -> None:
        nonlocal size
        out.append(text)
        size += len(text)
        if size >= limit:
            raise Full

    def scalar(item: Any) -> str:
        nonlocal cut
        if isinstance(item, str) and len(item) > limit:
            cut = True
            return json.dumps(item[:limit], ensure_ascii=False)[:-1] + "…"
        return json.dumps(item, ensure_ascii=False)

    def walk(item: Any, indent: str) -> None:
        inner = indent + "  "
        if isinstance(item, dict) and item:
            emit("{")
            for i, (key, sub) in enumerate(item.items()):
                emit(("," if i else "") + "\n" + inner + scalar(str(key)) + ": ")
                walk(sub, inner)
            emit("\n" + indent + "}")
        elif isinstance(item, list) and item:
            emit("[")
            for i, sub in enumerate(item):
                emit(("," if i else "") + "\n" + inner)
                walk(sub, inner)
            emit("\n" + indent + "]")
        else:
            emit(scalar(item) if not isinstance(item, (dict, list)) else ("{}" if isinstance(item, dict) else "[]"))

    try:
        walk(value, "")
    except Full:
        cut = True
    except (TypeError, ValueError, RecursionError):
        return repr(value)[:limit], True
    text = "".join(out)
    if len(text) > limit:
        text, cut = text[:limit], True
    return text, cut


def readable_dump(result: Any) -> str:
    """A result for humans (the pager): text blocks as text, binary data summarised."""
    if not isinstance(result, dict):
        return json.dumps(result, indent=2, ensure_ascii=False)
    out: list[str] = []
    content = result.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            out.append(f"=== content[{index}] text ===\n{block['text']}\n")
        elif kind in ("image", "audio"):
            data = block.get("data")
            out.append(
                f"=== content[{index}] {kind} {block.get('mimeType')} ({len(data) if isinstance(data, str) else 0} "
                "base64 chars, not shown) ===\n"
            )
        elif (
            kind == "resource"
            and isinstance(block.get("resource"), dict)
            and isinstance(block["resource"].get("text"), str)
        ):
            resource = block["resource"]
            out.append(f"=== content[{index}] embedded resource {resource.get('uri')} ===\n{resource['text']}\n")
        else:
            summary = {
                k: (v if k not in ("data", "blob") else f"<{len(v) if isinstance(v, str) else 0} base64 chars>")
                for k, v in (block.items() if isinstance(block, dict) else [])
            }
            out.append(
                f"=== content[{index}] {kind} "
                f"===\n{json.dumps(summary if summary else block, indent=2, ensure_ascii=False)}\n"
            )
    for key, value in result.items():
        if key != "content":
            out.append(f"=== {key} ===\n{json.dumps(value, indent=2, ensure_ascii=False)}\n")
    return "\n".join(out)


def text_body(text: str, *, language: str | None = None) -> tuple[list[Widget], bool]:
    """Widgets showing ``text`` (at most TRUNCATE_AT characters) and whether it was cut; a secret
    this process holds (an OAuth token) that the server echoes is masked (in what is shown only:
    a 50 MB text is not searched once per secret)."""
    size = len(text)
    truncated = size > TRUNCATE_AT
    shown = scrub(text[:TRUNCATE_AT] if truncated else text)
    pretty = None if truncated else pretty_json_text(shown)
    if pretty is not None:
        shown, language = pretty if len(pretty) <= TRUNCATE_AT else pretty[:TRUNCATE_AT], "json"
        truncated = truncated or len(pretty) > TRUNCATE_AT
    widgets: list[Widget] = []
    if len(shown) <= SMALL_TEXT and shown.count("\n") < 40:
        body = _JSON_HIGHLIGHTER(Text(shown)) if language == "json" else Text(shown)
        widgets.append(Static(body, classes="block-text"))
    else:
        if any(len(line) > LONG_LINE for line in shown.split("\n")):
            # TextArea re-wraps a giant line on every paint; shorter lines keep it fast.
            shown = "\n".join(_chunks(shown))
            widgets.append(
                Static(
                    f"lines longer than {LONG_LINE:,} characters are broken for display (s / p give the exact text)",
                    classes="block-meta",
                )
            )
        area = (
            json_text_area(shown, read_only=True, soft_wrap=True)
            if language == "json"
            else TextArea(shown, read_only=True, soft_wrap=True)
        )
        area.add_class("block-text-area")
        widgets.append(area)
    if truncated:
        note = (
            f"truncated — showing the first {TRUNCATE_AT // 1000} KB of {size:,} characters · "
            "s: save whole result · p: open in $PAGER"
        )
        widgets.append(Static(note, classes="truncated-note"))
    return widgets, truncated


def _chunks(text: str):
    for line in text.split("\n"):
        if len(line) <= LONG_LINE:
            yield line
        else:
            yield from (line[i : i + LONG_LINE] for i in range(0, len(line), LONG_LINE))
