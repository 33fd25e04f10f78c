"""The contents of a ``resources/read``, rendered by type.

Text as text; ``text/markdown`` rendered (Textual's Markdown widget up to 2,500 characters, Rich's
Markdown in one Static up to 60,000 characters: the widget's cost grows faster than the
text); JSON pretty-printed and
highlighted; an image or any blob as its size with save (w) and open (o) keys (images
say their pixel size when the header is readable); other binary data also with a hex
preview of its first 256 bytes; an image is also drawn where the terminal has an image
protocol (``tui/images.py``: Sixel, Kitty's). Several contents in one read are shown in order; each is
capped like a tool result (``result/text_body.TRUNCATE_AT``), and the whole result can be
saved (w) or paged (p). Failures (a JSON-RPC error such as -32002 "resource not found",
a timeout, a malformed result) are shown here, in words.

The panel is the tool result panel (``ResultPanel``) with its keys rebound so that ``s``
stays free for subscribing.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from .....core.base.json_text import JsonTextError, loads_strict
from .....core.session.results import BlockInfo, blob_text, content_problem
from .... import images
from ....text.icon_text import describe_icons
from ....text.traffic_text import clean
from ...result.files import human_size
from ...result.media import MediaBlock
from ...result.text_body import TRUNCATE_AT, bounded_json, text_body
from ...result.view import ResultPanel

HEX_PREVIEW = 256  # bytes shown in a hex preview
MARKDOWN_WIDGET_MAX = (
    2_500  # up to this, Textual's Markdown widget (a widget per block: 4,000 dense chars ~1.2 s, 10,000 ~9 s)
)
MARKDOWN_MAX = 60_000  # up to this, Rich's Markdown in one Static (~1 s for 60,000); longer: plain text
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
PRETTY_MAX = 2_000_000  # characters of JSON indented for display when over the cap (~0.2 s)
TREE_MAX = 300_000  # characters of JSON that can be shown as a foldable tree (t)


def hex_preview(data: bytes, limit: int = HEX_PREVIEW, per_line: int = 16) -> str:
    """``offset  hex bytes  ascii`` lines, ``per_line`` bytes each, of the first ``limit`` bytes."""
    lines = []
    for offset in range(0, min(len(data), limit), per_line):
        chunk = data[offset : offset + per_line]
        hexed = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{offset:08x}  {hexed:<{per_line * 3 - 1}}  {text}")
    return "\n".join(lines)


def hex_per_line(width: int) -> int:
    """16 bytes a line when they fit (8 + 2 + 47 + 2 + 16 columns), else 8 (39), else 4."""
    return 16 if width >= 75 or width <= 0 else 8 if width >= 39 else 4


def image_dimensions(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG or GIF from its header (None when not readable)."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    return None


def is_markdown(mime: str | None, uri: str) -> bool:
    return (mime or "").split(";")[0].strip().lower() in MARKDOWN_TYPES or (not mime and uri.lower().endswith(".md"))


def is_json(mime: str | None) -> bool:
    base = (mime or "").split(";")[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def pretty_big_json(text: str) -> str:
    """JSON over the display cap and up to PRETTY_MAX characters, indented (text_body indents
    only what it shows whole, so a compact 150 KB document showed as one raw line); else as is."""
    if not TRUNCATE_AT < len(text) <= PRETTY_MAX:
        return text
    try:
        return json.dumps(loads_strict(text), indent=2, ensure_ascii=False)
    except (JsonTextError, ValueError, RecursionError):
        return text


def readable_contents(result: Any) -> str:
    """A read result for the pager: text as text, blobs summarised."""
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list):
        return json.dumps(result, indent=2, ensure_ascii=False)
    out = []
    for index, item in enumerate(contents):
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append(f"=== contents[{index}] {item.get('uri')} {item.get('mimeType') or ''} ===\n{item['text']}\n")
        elif isinstance(item, dict) and (text := blob_text(item.get("blob"), item.get("mimeType"))) is not None:
            out.append(
                f"=== contents[{index}] {item.get('uri')} {item.get('mimeType') or ''} (a base64 blob, as text) "
                f"===\n{text}\n"
            )
        elif isinstance(item, dict) and isinstance(item.get("blob"), str):
            out.append(
                f"=== contents[{index}] {item.get('uri')} {item.get('mimeType') or ''} "
                f"({len(item['blob'])} base64 characters, not shown) ===\n"
            )
        else:
            out.append(f"=== contents[{index}] ===\n{json.dumps(item, indent=2, ensure_ascii=False)}\n")
    return "\n".join(out)


FULL_DECODE_MAX = 1_000_000  # base64 characters decoded (and so checked) whole on the event loop


def blob_facts(blob: str) -> tuple[int | None, bytes | None, str | None]:
    """Decoded size, the first bytes (for the hex preview and the image header) and a problem.

    A blob up to FULL_DECODE_MAX characters is decoded whole; a bigger one only at its two
    ends (its size follows from its length), so a 50 MB blob costs nothing to show; saving it
    decodes it in a thread and reports a bad one then."""
    try:
        if len(blob) <= FULL_DECODE_MAX:
            data = base64.b64decode(blob, validate=True)
            return len(data), data[:HEX_PREVIEW], None
        if len(blob) % 4:
            raise ValueError("length")
        head = base64.b64decode(blob[: ((HEX_PREVIEW + 2) // 3) * 4], validate=True)
        tail = base64.b64decode(blob[-4:], validate=True)
    except (binascii.Error, ValueError):
        return None, None, "`blob` is not valid base64"
    return (len(blob) // 4 - 1) * 3 + len(tail), head[:HEX_PREVIEW], None


def own_keys(shown: tuple[list[Widget], bool]) -> tuple[list[Widget], bool]:
    """``text_body``'s widgets with the truncation note naming this panel's keys (w saves here: s subscribes)."""
    widgets, cut = shown
    for widget in widgets:
        if isinstance(widget, Static) and widget.has_class("truncated-note"):
            widget.update(
                f"truncated — showing the first {TRUNCATE_AT // 1000} KB · w: save the whole result · "
                "p: open it in $PAGER"
            )
        elif isinstance(widget, Static) and widget.has_class("block-meta") and "(s / p give" in str(widget.render()):
            widget.update(str(widget.render()).replace("(s / p give", "(w / p give"))
    return widgets, cut


class JsonBlock(Vertical):
    """A JSON content: pretty text, or (t) a tree whose objects and arrays fold (enter / space)."""

    DEFAULT_CSS = """
    JsonBlock { height: auto; }
    JsonBlock > Tree { height: auto; max-height: 30; }
    """

    def __init__(self, data: Any, *children: Widget) -> None:
        super().__init__(*children, classes="block json-block")
        self.data = data
        self.json_tree: Any = None

    def show_tree(self, on: bool) -> None:
        for child in self.children:
            if child is not self.json_tree and "block-header" not in child.classes:
                child.display = not on
        if on and self.json_tree is None:
            from textual.widgets import Tree

            self.json_tree = Tree("contents", classes="json-tree")
            self.json_tree.add_json(self.data)
            self.json_tree.root.expand()
            for node in self.json_tree.root.children:
                if len(node.children) <= 20:
                    node.expand()
            self.mount(self.json_tree)
        elif self.json_tree is not None:
            self.json_tree.display = on


def fit_status(status: str, width: int) -> str:
    """``status`` with its longest word (the URI) cut from the left (``…ure.md``) so that the
    line fits ``width``, or, when the rest is too long for one line anyway, so that the word
    fits a line with its mark (``✓``)."""
    words = status.split(" ")
    longest = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[longest]
    rest = len(status) - len(word)
    room = width - rest if rest < width else width - 2
    room = max(12, room)
    if len(status) <= width or len(word) <= room:
        return status
    words[longest] = "…" + word[-(room - 1) :]
    return " ".join(words)


class ContentsPanel(ResultPanel):
    """Shows a read: ``show_reading``, ``show_contents``, ``show_error`` (inherited), ``show_note``."""

    BINDINGS = [
        Binding(
            "s", "subscribe", "Subscribe", id="resources.subscribe", tooltip="Subscribe to the shown resource (or stop)"
        ),
        Binding("w", "save_result", "Save all", id="resources.save", tooltip="Save the whole read result as JSON"),
        Binding("p", "open_pager", "Pager", id="resources.pager", tooltip="Open the contents in $PAGER"),
        Binding(
            "t",
            "toggle_tree",
            "JSON tree",
            id="resources.json-tree",
            tooltip="Show JSON contents as a foldable tree (again: as text)",
        ),
    ]
    DEFAULT_CSS = """
    ContentsPanel #contents-stale { height: auto; padding: 0 1; background: $warning 25%; display: none; }
    ContentsPanel #contents-stale.-stale { display: block; }
    ContentsPanel .content-markdown { height: auto; margin: 0; padding: 0; }
    ContentsPanel .content-markdown MarkdownBlock { margin-bottom: 0; }
    ContentsPanel .hex-preview { height: auto; color: $text-muted; }
    ContentsPanel .resource-meta { color: $text-muted; height: auto; }
    """

    class SubscribeRequested(Message):
        """``s`` pressed on the contents: the view (un)subscribes the shown resource."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stale = Static("", id="contents-stale")
        self.uri: str | None = None  # what is shown
        self.tree_mode = False  # JSON contents shown as trees

    # -- the status line, fitted ------------------------------------------------------
    def _show(
        self, kind: str, status: str, widgets: list[Widget], payload: Any, name: str, frame: bytes | None = None
    ) -> None:
        super()._show(kind, status, widgets, payload, name, frame)
        self._fit_status()

    def on_resize(self) -> None:
        self._fit_status()

    def _fit_status(self) -> None:
        """The status line as shown: its URI shortened from the left when it would not fit
        (``status_text`` keeps it whole). Else the line broke after ``✓`` and cut the URI."""
        # less 2: the panel's scrollbar may come with the contents, after this is measured
        width = self._status_label.content_region.width - 2
        if self.status_text:  # hidden (no width yet): as it is, fitted on the next resize
            self._status_label.update(Text(fit_status(self.status_text, width) if width > 0 else self.status_text))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_tree":
            return bool(self.query(JsonBlock))
        return True

    def action_toggle_tree(self) -> None:
        blocks = list(self.query(JsonBlock))
        if not blocks:
            return
        self.tree_mode = not self.tree_mode
        for block in blocks:
            block.show_tree(self.tree_mode)
        if self.tree_mode:
            blocks[0].json_tree.focus()

    def compose(self):
        yield self.stale
        yield from super().compose()

    def action_subscribe(self) -> None:
        self.post_message(self.SubscribeRequested())

    # -- what is shown ---------------------------------------------------------
    def show_note(self, text: str) -> None:
        self.uri = None
        self.set_stale("")
        self._show("empty", text, [], None, "resource")

    def show_preview(self, kind: str, item: dict[str, Any]) -> None:
        """Before any read: what the list says about the highlighted item, and what enter does."""
        if kind == "resources":
            status = f"{clean(str(item.get('uri', '')))} · enter reads it"
        else:
            status = f"{clean(str(item.get('uriTemplate', '')))} · enter opens its form"
        self._show("empty", status, self._item_meta(item), None, "resource")

    def show_reading(self, uri: str) -> None:
        self.set_stale("")
        self._show("pending", f"… reading {clean(uri)}", [], None, "resource")

    def show_read_error(self, uri: str, error: BaseException, elapsed_ms: float | None = None) -> None:
        """A failed read: the error in words (``show_error``), the URI in the status line."""
        self.show_error(error, elapsed_ms)
        self.uri = uri
        self.status_text = f"{clean(uri)}: {self.status_text}"
        self._fit_status()

    def set_stale(self, text: str) -> None:
        self.stale.update(Text(text))
        self.stale.set_class(bool(text), "-stale")

    def show_contents(
        self,
        uri: str,
        result: Any,
        *,
        elapsed_ms: float | None = None,
        item: dict[str, Any] | None = None,
        source: str = "read",
    ) -> None:
        """``result`` of resources/read for ``uri`` (``source`` "embedded": content that came in a tool result)."""
        self.uri = uri
        self.set_stale("")
        stem = "mcp-resource-" + (uri.rsplit("/", 1)[-1] or "contents")[:40]
        widgets: list[Widget] = []
        if item:
            widgets.extend(self._item_meta(item))
        contents = result.get("contents") if isinstance(result, dict) else None
        if not isinstance(contents, list):
            what = "not an object" if not isinstance(result, dict) else "no `contents` array"
            widgets.append(Static(Text(f"⚠ malformed result: {what}"), classes="block-problem"))
            body, _ = own_keys(text_body(bounded_json(result)[0], language="json"))
            widgets.append(Vertical(*body, classes="block"))
            self._show("rpc-error", f"✖ {clean(uri)}: the read result is malformed", widgets, result, stem)
            return
        truncated = False
        for index, content in enumerate(contents):
            block, cut = self._content(index, content, stem, uri)
            widgets.append(block)
            truncated = truncated or cut
        took = f" · {elapsed_ms:,.0f} ms" if elapsed_ms is not None else ""
        count = f"{len(contents)} content{'s' if len(contents) != 1 else ''}"
        if source == "embedded":
            status = f"▤ {clean(uri)} · {count} embedded in a tool result (as it came) · r reads it from the server"
        else:
            status = f"✓ {clean(uri)} · {count}{took}"
        if not contents:
            widgets.append(Static("The server returned no contents for this URI.", classes="block-meta"))
        self._show("ok", status, widgets, result, stem)
        self.truncated = truncated

    def _item_meta(self, item: dict[str, Any]) -> list[Widget]:
        """What the list said about the resource: its name, title, description, annotations, icons."""
        lines = Text()
        for key in ("name", "title", "description"):
            value = item.get(key)
            if isinstance(value, str) and value and not (key == "title" and value == item.get("name")):
                lines.append(f"{key}: ", style="bold")
                lines.append(clean(value) + "\n")
        annotations = item.get("annotations")
        if isinstance(annotations, dict) and annotations:
            lines.append("annotations: ", style="bold")
            lines.append(
                clean(", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in annotations.items())) + "\n"
            )
        icons = item.get("icons")
        if isinstance(icons, list) and icons:
            lines.append("icons: ", style="bold")
            lines.append(describe_icons(icons) + "\n")
        lines.rstrip()
        return [Static(lines, classes="resource-meta")] if lines.plain else []

    def _content(self, index: int, content: Any, stem: str, uri: str) -> tuple[Widget, bool]:
        problem = content_problem(content)
        if problem is not None:
            header = Static(Text(f"? #{index} content", style="bold"), classes="block-header")
            body, cut = own_keys(text_body(bounded_json(content)[0], language="json"))
            return Vertical(header, Static(Text(f"⚠ {problem}"), classes="block-problem"), *body, classes="block"), cut
        mime = content.get("mimeType") if isinstance(content.get("mimeType"), str) else None
        item_uri = content["uri"]
        where = "" if item_uri == uri else f" · {clean(item_uri)}"
        note = None
        if "blob" in content:
            text = blob_text(content["blob"], mime)
            if text is None:
                return self._blob(index, content, mime, stem), False
            note = Static(
                f"came as a base64 blob ({human_size(len(text.encode('utf-8')))} of UTF-8), shown as text",
                classes="block-meta",
            )
        else:
            text = content["text"]
        header = Static(
            Text(f"¶ #{index} {clean(mime or 'no mimeType')}{where} · {len(text):,} characters", style="bold"),
            classes="block-header",
        )
        widgets: list[Widget] = [header] if note is None else [header, note]
        if is_markdown(mime, item_uri) and len(text) <= MARKDOWN_WIDGET_MAX:
            from textual.widgets import Markdown

            widgets.append(Markdown(text, classes="content-markdown"))
            return Vertical(*widgets, classes="block"), False
        if is_markdown(mime, item_uri) and len(text) <= MARKDOWN_MAX:
            from rich.markdown import Markdown as RichMarkdown

            widgets.append(Static(RichMarkdown(text), classes="content-markdown rich-markdown"))
            return Vertical(*widgets, classes="block"), False
        body, cut = own_keys(
            text_body(pretty_big_json(text) if is_json(mime) else text, language="json" if is_json(mime) else None)
        )
        widgets.extend(body)
        data = self._json_data(text, mime)
        if data is not None:
            block = JsonBlock(data, *widgets)
            if self.tree_mode:
                self.call_after_refresh(block.show_tree, True)
            return block, cut
        return Vertical(*widgets, classes="block"), cut

    @staticmethod
    def _json_data(text: str, mime: str | None) -> Any:
        """The parsed JSON of a content that is an object or array and small enough for a tree."""
        if len(text) > TREE_MAX or not (is_json(mime) or text.lstrip()[:1] in ("{", "[")):
            return None
        try:
            data = loads_strict(text)
        except JsonTextError:
            return None
        return data if isinstance(data, (dict, list)) else None

    def _blob(self, index: int, content: dict[str, Any], mime: str | None, stem: str) -> Widget:
        size, head, problem = blob_facts(content["blob"])
        info = BlockInfo(index, "resource", {"type": "resource", "resource": content}, problem, size, mime)
        media = MediaBlock(info, stem, linkable=False)
        extra: list[Widget] = []
        if head is not None and size is not None:
            pixels = image_dimensions(head) if (mime or "").startswith("image/") else None
            if (mime or "").startswith("image/"):
                extra.extend(self._drawn(content["blob"], size))
            if pixels is not None:
                extra.append(
                    Static(
                        f"image {pixels[0]}×{pixels[1]} px · w saves it, o opens it in the system viewer",
                        classes="block-meta",
                    )
                )
            elif not (mime or "").startswith(("image/", "audio/", "video/")):
                shown = min(size, HEX_PREVIEW)
                extra.append(
                    Static(f"first {shown} of {human_size(size)}:" if shown < size else "hex:", classes="block-meta")
                )
                # (the panel less its padding and scrollbar: a wrapped line would break the columns)
                per_line = hex_per_line(self.size.width - 4 if self.size.width else 0)
                extra.append(Static(Text(hex_preview(head, per_line=per_line)), classes="hex-preview"))
        return Vertical(media, *extra, classes="block")

    @staticmethod
    def _drawn(blob: str, size: int) -> list[Widget]:
        """The image drawn with the terminal's image protocol (images.py), when it has one."""
        return images.drawn(size, lambda: base64.b64decode(blob, validate=True), "resource-image")

    # -- pager (ResultPanel's, with the contents as text) -------------------------
    PAGED = "the text"

    def readable(self, payload: Any) -> str:
        return readable_contents(payload)


__all__ = ["ContentsPanel", "TRUNCATE_AT", "hex_preview", "image_dimensions", "readable_contents"]
