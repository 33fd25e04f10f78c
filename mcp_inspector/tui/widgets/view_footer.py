"""The footer's keys without Textual's recompose on every view switch (see ``ViewFooter``)."""

from __future__ import annotations

import asyncio

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer


class KeysFooter(Footer):
    """Textual's Footer showing one set of keys, composed once (``ViewFooter`` keeps a few)."""

    def __init__(self) -> None:
        super().__init__()
        self.set_reactive(Footer._bindings_ready, True)
        self.showing: tuple | None = None

    def compose(self) -> ComposeResult:
        self.showing = footer_showing(self)
        yield from super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        """Not its own business: the ViewFooter picks which footer is shown."""


def footer_showing(footer: Widget) -> tuple:
    """Everything a Footer's compose() reads, as a comparable value."""
    app = footer.app
    keys = tuple(
        (binding.key, app.get_key_display(binding), binding.description, binding.action, enabled,
         tooltip, binding.tooltip, id(binding.group) if binding.group is not None else None)
        for (_, binding, enabled, tooltip) in footer.screen.active_bindings.values() if binding.show
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

    @property
    def current(self) -> KeysFooter | None:
        return self._current

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

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
                    footer = KeysFooter()
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
