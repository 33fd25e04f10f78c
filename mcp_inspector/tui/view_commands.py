"""The keys of the Resources, Prompts, Tasks and Notifications views, for the help and the palette.

Each view's keys live in its widgets' own ``BINDINGS``; this table says which widgets make up
which view, so F1 lists them (``screens/help.py``) and the command palette offers each one
(``view_commands``), titled ``view: what it does`` ("resources: Subscribe to the highlighted
resource"). A palette command shows the view first, then runs the action on the widget that owns
the binding (the highlighted resource, the selected task, the shown messages), as the key does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.binding import Binding

from .keymap import VIEW_KEYS, display_key, effective_key


def view_key_classes() -> list[tuple[str, str, list[type]]]:
    """(view name, label, the widget classes whose BINDINGS are the view's keys)."""
    from .widgets.views.checks_view import ChecksView
    from .widgets.views.notifications.view import NotificationsView
    from .widgets.views.prompts.messages import PromptMessages
    from .widgets.views.prompts.view import PromptsView
    from .widgets.views.resources.contents import ContentsPanel
    from .widgets.views.resources.template_form import TemplateForm
    from .widgets.views.resources.view import ResourcesView
    from .widgets.views.tasks_view import TasksView

    return [
        ("notifications", "Notifs", [NotificationsView]),
        ("resources", "Resources", [ResourcesView, ContentsPanel, TemplateForm]),
        ("prompts", "Prompts", [PromptsView, PromptMessages]),
        ("tasks", "Tasks", [TasksView]),
        ("checks", "Checks", [ChecksView]),
    ]


def view_bindings_of(classes: list[type]) -> list[tuple[type, Binding]]:
    """The bindings of ``classes``, one per id (the first class that has it owns it)."""
    seen: set[str] = set()
    rows: list[tuple[type, Binding]] = []
    for cls in classes:
        for binding in cls.BINDINGS:
            if isinstance(binding, Binding) and (binding.id or binding.key) not in seen:
                seen.add(binding.id or binding.key)
                rows.append((cls, binding))
    return rows


#: what to do first when the widget owning an action is not shown
NOT_SHOWN = {
    "TemplateForm": "Open a resource template first (enter on a template in Resources).",
    "PromptMessages": "Get a prompt first (ctrl+s in its form).",
}


def view_commands(app: Any) -> list[tuple[str, Callable[[], Any], str]]:
    """Palette commands for every key of the session views (see the module doc)."""
    keymap = getattr(app, "keymap", {}) or {}
    commands: list[tuple[str, Callable[[], Any], str]] = []
    for name, label, classes in view_key_classes():
        view_key = display_key(effective_key(VIEW_KEYS[name], keymap)).split(",")[-1].strip()
        for cls, binding in view_bindings_of(classes):
            key = display_key(keymap.get(binding.id or "", binding.key))
            title = f"{label.lower()}: {binding.tooltip or binding.description}"
            commands.append((title, _runner(app, name, cls, binding.action), f"key: {key} in {label} ({view_key})"))
    return commands


def _runner(app: Any, name: str, cls: type, action: str) -> Callable[[], Any]:
    async def run() -> None:
        main = app.main
        await main.show_view(name)
        view = main.query_one(f"#view-{name}")
        target = view if isinstance(view, cls) else next(iter(view.query(cls)), None)
        if target is None or not target.display:
            app.notify(NOT_SHOWN.get(cls.__name__, "Not available here now."), severity="warning")
            return
        await target.run_action(action)

    return run
