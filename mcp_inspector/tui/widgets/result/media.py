"""A binary content block (image, audio, blob) in a result: what it is, its image drawn when the
terminal can, and keys to save it, open it with the system viewer, or open an embedded resource."""

from __future__ import annotations

import json
import os
import subprocess
from functools import partial
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, Static

from ....core.session.results import BlockInfo, decode_block_bytes
from ...messages import OpenResource
from ..dialogs import dialogs
from .files import extension_for, human_size, private_temp, system_opener
from .text_body import ICONS


class MediaBlock(Vertical, can_focus=True):
    """An image, audio clip or blob: what it is, and keys to save or open it."""

    BINDINGS = [
        Binding("w", "save_block", "Save to file", id="save-block"),
        Binding("o", "open_block", "Open", id="open-block"),
        Binding("v", "open_resource", "Open in Resources", id="open-resource"),
    ]

    def __init__(self, info: BlockInfo, stem: str, *, linkable: bool = True) -> None:
        super().__init__(classes="block media-block")
        self.info = info
        self.stem = stem
        self.linkable = linkable  # an embedded resource offers "Open in Resources" (not in that view itself)

    def compose(self) -> ComposeResult:
        info = self.info
        block = info.block
        what = "embedded blob" if info.type == "resource" else info.type
        header = Text(
            f"{ICONS.get(info.type, '?')} #{info.index} {what} · {info.mime_type or 'no mimeType'} · "
            f"{human_size(info.size)} decoded",
            style="bold",
        )
        yield Static(header, classes="block-header")
        if info.type == "resource":
            yield Static(Text(f"uri: {block['resource'].get('uri')}"), classes="block-meta")
        yield from annotation_line(block)
        if info.problem:
            yield Static(Text(f"⚠ {info.problem}"), classes="block-problem")
            return
        with Horizontal(classes="media-actions"):
            yield Button("Save to file (w)", classes="save-block", compact=True)
            yield Button("Open (o)", classes="open-block", compact=True)
            if info.type == "resource" and self.linkable:
                yield Button("Open in Resources (v)", classes="open-resource", compact=True)
        if info.type == "image" or (info.type == "resource" and (info.mime_type or "").startswith("image/")):
            yield from self._drawn()

    def _drawn(self) -> list[Widget]:  # (the Resources view draws a read's images itself: linkable=False)
        """The image drawn with the terminal's image protocol (tui/images.py) where it has one;
        over DRAW_MAX_BYTES only said (never decoded here), a broken image said."""
        from ... import images

        if not self.linkable:
            return []
        return images.drawn(self.info.size, lambda: decode_block_bytes(self.info.block), "result-image")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_resource":
            return self.info.type == "resource" and self.info.problem is None and self.linkable
        return True

    @on(Button.Pressed, ".open-resource")
    def _open_resource_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_resource()

    def action_open_resource(self) -> None:
        """An embedded blob resource: shown as it came in the Resources view."""
        if self.check_action("open_resource", ()):
            resource = self.info.block["resource"]
            self.post_message(OpenResource(resource["uri"], dict(resource)))

    @on(Button.Pressed, ".save-block")
    def _save_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_save_block()

    @on(Button.Pressed, ".open-block")
    def _open_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_open_block()

    def action_save_block(self) -> None:
        if self.info.problem is None:
            self._save()

    def action_open_block(self) -> None:
        if self.info.problem is None:
            self._open()

    def _save(self) -> None:  # asks where first (widgets/dialogs.py)
        dialogs(self).save_as(
            self,
            partial(decode_block_bytes, self.info.block),
            f"{self.stem}-{self.info.index}",
            extension_for(self.info.mime_type),
            f"the {self.info.type}",
        )

    @work(thread=True, group="result-files")
    def _open(self) -> None:
        opener = system_opener()
        if opener is None:
            self.notify(
                "No system viewer found (xdg-open is not installed); use w to save the file instead.", severity="error"
            )
            return
        try:
            data = decode_block_bytes(self.info.block)
            fd, name = private_temp(f"{self.stem}-{self.info.index}", extension_for(self.info.mime_type))
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            done = subprocess.run([*opener, name], capture_output=True, timeout=15, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return  # some openers stay in the foreground; the viewer is up
        except (OSError, ValueError, KeyError) as exc:
            self.notify(f"Could not open the {self.info.type}: {exc}", severity="error", markup=False)
            return
        if done.returncode != 0:
            detail = done.stderr.decode(errors="replace").strip().splitlines()
            self.notify(
                f"{opener[0]} failed (exit {done.returncode}){': ' + detail[-1] if detail else ''}; the file is {name}",
                severity="error",
                markup=False,
            )
        else:
            self.notify(f"Opened {name}", markup=False)


def annotation_line(block: Any) -> list[Widget]:
    annotations = block.get("annotations") if isinstance(block, dict) else None
    if not isinstance(annotations, dict) or not annotations:
        return []
    parts = [f"{k}={json.dumps(v)}" for k, v in annotations.items()]
    return [Static(Text("annotations: " + ", ".join(parts)), classes="block-meta")]
