"""The footer's keys without Textual's recompose on every view switch (see ``ViewFooter``)."""

from __future__ import annotations

import asyncio

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from ..textual_compat import FooterKey, footer_composes_now, pending_children

#: below this width the footers are compact (less space around each key), so that the Traffic
#: view's keys and the palette's fit in 80 columns
COMPACT_BELOW = 110


class KeysFooter(Footer):
    """Textual's Footer showing one set of keys, composed once (``ViewFooter`` keeps a few)."""

    def __init__(self, compact: bool = False) -> None:
        super().__init__(compact=compact)
        footer_composes_now(self)
        self.showing: tuple | None = None

    def compose(self) -> ComposeResult:
        self.showing = footer_showing(self)
        width = self.app.size.width
        if not self.compact or width <= 0:
            yield from super().compose()
            return
        # narrow: only the keys that fit whole (the view's own come first, the app's after), then
        # the palette's, docked right; F1 lists them all
        keys = list(super().compose())
        palette = [key for key in keys if key.has_class("-command-palette")]
        room = width - sum(key_width(key) + 2 for key in palette)
        for key in keys:
            if key in palette:
                continue
            room -= key_width(key) + 1
            if room < 0:
                break
            yield key
        yield from palette

    def bindings_changed(self, screen: Screen) -> None:
        """Not its own business: the ViewFooter picks which footer is shown."""


def key_width(widget: Widget) -> int:
    """The cells a compact footer key (or a group of them) takes, its margin aside."""
    if isinstance(widget, FooterKey):
        return cell_len(widget.key_display) + (1 + cell_len(widget.description) if widget.description else 0)
    # a KeyGroup, not composed yet: its children are still pending
    return sum(key_width(child) + 1 for child in pending_children(widget)) + 1


def footer_showing(footer: Widget) -> tuple:
    """Everything a Footer's compose() reads, as a comparable value."""
    app = footer.app
    keys = tuple(
        (
            binding.key,
            app.get_key_display(binding),
            binding.description,
            binding.action,
            enabled,
            tooltip,
            binding.tooltip,
            id(binding.group) if binding.group is not None else None,
        )
        for (_, binding, enabled, tooltip) in footer.screen.active_bindings.values()
        if binding.show
    )
    return (app.ENABLE_COMMAND_PALETTE, keys)


class ViewFooter(Widget):
    """The footer's keys, one ``KeysFooter`` per set of keys, the current one displayed.

    Textual's Footer recomposes (unmounts and mounts a FooterKey per binding, then
    lays the screen out twice) whenever the keys change, and switching views
    changes them each time; during a flood that was ~25 ms of each switch. Here
    the few sets seen (per view and focus) stay mounted and switching only
    toggles which one is displayed (in the same layout as the views' own switch).
    """

    DEFAULT_CSS = """
    ViewFooter { dock: bottom; height: 1; }
    """
    KEEP: int = 8

    def __init__(self) -> None:
        super().__init__()
        self._footers: dict[tuple, KeysFooter] = {}
        self._current: KeysFooter | None = None
        self._lock = asyncio.Lock()
        self._width = 0  # the app's width the kept footers were composed for

    @property
    def current(self) -> KeysFooter | None:
        return self._current

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def _compact(self) -> bool:
        return 0 < self.app.size.width < COMPACT_BELOW

    async def on_resize(self) -> None:
        """Another width: the kept footers were composed for the old one (which keys fit)."""
        width = self.app.size.width
        if width == self._width:
            return
        self._width = width
        async with self._lock:
            old = list(self._footers.values())
            self._footers.clear()
            self._current = None
            for footer in old:
                await footer.remove()
        await self._update()

    def _bindings_changed(self, screen: Screen) -> None:
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update)

    def show_cached(self) -> None:
        """Show the footer for the keys now active if one is kept (no wait: a view switch
        calls this so that both changes are laid out together)."""
        if not self.is_attached or self._lock.locked():
            return
        footer = self._footers.get(footer_showing(self))
        if footer is not None and footer is not self._current:
            self._footers[footer.showing] = self._footers.pop(footer.showing)  # the newest last
            if self._current is not None:
                self._current.display = False
            footer.display = True
            self._current = footer

    async def _update(self) -> None:
        async with self._lock:
            for _ in range(3):  # the keys can change again while a new footer mounts
                if not self.is_attached:
                    return
                showing = footer_showing(self)
                if self._current is not None and self._current.showing == showing:
                    return
                footer = self._footers.pop(showing, None)
                if footer is None:
                    footer = KeysFooter(compact=self._compact())
                    footer.display = False
                    await self.mount(footer)
                    if footer.showing is None:
                        return
                twin = self._footers.pop(footer.showing, None)  # composed with keys that changed back meanwhile
                if twin is not None and twin is not footer:
                    if twin is self._current:
                        self._footers[twin.showing] = twin
                        await footer.remove()
                        return
                    await twin.remove()
                self._footers[footer.showing] = footer  # the newest last
                if self._current is not None and self._current is not footer:
                    self._current.display = False
                footer.display = True
                self._current = footer
                while len(self._footers) > self.KEEP:
                    await self._footers.pop(next(iter(self._footers))).remove()
