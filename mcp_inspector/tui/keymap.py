"""Every key binding, in one table, each with an id.

Users remap by id in config.toml (``[keymap] reconnect = "ctrl+e"``), which the
app applies with ``App.set_keymap``. The help screen and the command palette
read this same table, so they can never disagree with the real bindings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.binding import Binding

if TYPE_CHECKING:
    from textual.screen import Screen


@dataclass(frozen=True)
class KeySpec:
    id: str
    key: str
    action: str
    description: str
    group: str
    show: bool = True
    priority: bool = False
    palette: bool = True  # offered in the command palette
    # priority only where it should be (tui/key_reach.py): the key runs ``reach_key(id)``, the palette the action.
    # "main": on the main screen, before a text field's own key; "panels": on any screen, before an Input's
    # or a read-only TextArea's key (an editable TextArea keeps it: ctrl+z is its undo)
    reach: str = ""


APP_KEYS: list[KeySpec] = [
    KeySpec("help", "f1,question_mark", "help", "Help", "General"),
    KeySpec("quit", "ctrl+q", "quit", "Quit", "General", priority=True),
    KeySpec("connect", "f7", "connect", "Servers", "Connection"),
    KeySpec("reconnect", "ctrl+r", "reconnect", "Reconnect", "Connection"),
    KeySpec("restart", "f8", "restart", "Restart server", "Connection", show=False),
    KeySpec("edit-roots", "ctrl+f", "edit_roots", "Roots (the folders roots/list answers)", "Connection", show=False),
    KeySpec(
        "watch", "ctrl+b", "toggle_watch", "Restart the server when its files change (on/off)", "Watch", show=False
    ),
    KeySpec("view-main", "f2,1", "show_view('main')", "Main", "Views", show=False),
    KeySpec("view-overview", "f3,2", "show_view('overview')", "Info", "Views", show=False),
    KeySpec("view-notifications", "f4,3", "show_view('notifications')", "Notifs", "Views", show=False),
    KeySpec("view-console", "f5,4", "show_view('console')", "Console", "Views", show=False),
    KeySpec("view-traffic", "f6,5", "show_view('traffic')", "Traffic", "Views", show=False),
    KeySpec("view-http", "f9,6", "show_view('http')", "HTTP", "Views", show=False),
    KeySpec("view-resources", "7", "show_view('resources')", "Resources", "Views", show=False),
    KeySpec("view-prompts", "8", "show_view('prompts')", "Prompts", "Views", show=False),
    KeySpec("view-tasks", "9", "show_view('tasks')", "Tasks", "Views", show=False),
    KeySpec("view-auth", "0", "show_view('auth')", "Auth", "Views", show=False),
    KeySpec("view-checks", "exclamation_mark", "show_view('checks')", "Checks", "Views", show=False),
    KeySpec("refresh-tools", "ctrl+l", "refresh_tools", "Refresh tools", "Tools", show=False),
    KeySpec("show-tool-diff", "ctrl+g", "show_tool_diff", "Tool diff", "Tools", show=False),
    KeySpec("dismiss-tool-changes", "ctrl+x", "dismiss_tool_changes", "Dismiss tool changes", "Tools", show=False),
    KeySpec("focus-tools", "slash", "focus_tools", "Filter tools", "Tools", show=False),
    KeySpec("tool-detail", "ctrl+o", "tool_detail", "Tool details (full definition, legend)", "Tools", show=False),
    KeySpec("result-history", "f10", "result_history", "Result history of the tool", "Tools", show=False),
    KeySpec(
        "maximize",
        "ctrl+z",
        "toggle_maximize",
        "Maximize the focused panel: form, result, traffic, frame detail (again or escape: restore)",
        "General",
        show=False,
        reach="panels",
    ),
    KeySpec("screenshot", "f12", "screenshot", "Save screenshot", "General", show=False),
    KeySpec("request-timeout", "f11", "request_timeout", "Request timeout", "Settings", show=False),
    KeySpec("compare-snapshot", "ctrl+w", "compare_snapshot", "compare with a snapshot…", "Surface", show=False),
    KeySpec("replay", "ctrl+n", "replay", "re-run a recording against this server", "Replay", show=False),
    # reach: it opens from a composer field too, where ctrl+e was the field's end of line (end still is);
    # only on the main screen and where no widget binds the key itself (tui/key_reach.py)
    KeySpec("raw-frame", "ctrl+e", "raw_frame", "send a JSON-RPC frame by hand", "Raw frame", show=False, reach="main"),
]

VIEW_KEYS = {spec.id.removeprefix("view-"): spec for spec in APP_KEYS if spec.id.startswith("view-")}


def bindings(specs: list[KeySpec]) -> list[Binding]:
    return [
        Binding(
            s.key,
            f"reach_key('{s.id}')" if s.reach else s.action,
            s.description,
            show=s.show,
            priority=s.priority or bool(s.reach),
            id=s.id,
        )
        for s in specs
    ]


KEYS_BY_ID = {spec.id: spec for spec in APP_KEYS}


def effective_key(spec: KeySpec, keymap: dict[str, str]) -> str:
    """The key(s) a binding really uses after the user's remapping."""
    return keymap.get(spec.id, spec.key)


def display_key(keys: str) -> str:
    names = {"question_mark": "?", "slash": "/", "escape": "esc", "vertical_line": "|", "exclamation_mark": "!"}
    return ", ".join(names.get(k.strip(), k.strip()) for k in keys.split(","))


def screen_palette_commands(
    screen: Screen[Any], prefix: str, entries: Sequence[tuple[str, str]]
) -> list[tuple[str, Callable[[], Any], str]]:
    """A modal screen's actions for the command palette opened over it: ``prefix: title``, the
    action run on the screen, and the key it has after the user's remapping."""
    keymap = getattr(screen.app, "keymap", {}) or {}
    keys = {binding.action: binding for binding in screen.BINDINGS if isinstance(binding, Binding)}
    return [
        (
            f"{prefix}: {title}",
            partial(screen.run_action, action),
            f"key: {display_key(keymap.get(keys[action].id or '', keys[action].key))}",
        )
        for title, action in entries
    ]
