"""The command palette: every action in the keymap table, the themes, and
copy commands, titled ``category: action`` so they are easy to find."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .keymap import APP_KEYS, display_key, effective_key


class InspectorCommands(Provider):
    def _commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        app = self.app
        keymap = getattr(app, "keymap", {}) or {}
        commands: list[tuple[str, Callable[[], Any], str]] = []
        for spec in APP_KEYS:
            if not spec.palette:
                continue
            title = f"{spec.group.lower()}: {spec.description}"
            commands.append(
                (title, partial(app.run_action, spec.action), f"key: {display_key(effective_key(spec, keymap))}")
            )
        for name in sorted(app.available_themes):
            commands.append((f"theme: {name}", partial(setattr, app, "theme", name), "switch the colour theme"))
        extra = getattr(app, "extra_commands", None)
        if callable(extra):
            commands.extend(extra())
        own = getattr(self.screen, "palette_commands", None)  # a screen's own actions (the raw frame screen)
        if callable(own):
            commands.extend(own())
        return commands

    async def discover(self) -> Hits:
        for title, callback, help_text in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
