"""The main screen's nav bar: the views, one key each, named the same everywhere (``VIEWS``).

Making, showing and feeding the views is view_switcher.py's.
"""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual.widgets import Static

from ...keymap import VIEW_KEYS, display_key, effective_key

# One name per view, the same on the bar, in F1, the palette and the help (issue 21: the bar
# said "2 Info", "4 Cons", "7 Res" at 80 columns while F1 said Overview, Console, Resources).
# Short enough that all eleven fit 80 columns in the bar's tightest form.
VIEWS = [
    ("main", "Main"),
    ("overview", "Info"),
    ("notifications", "Notifs"),
    ("console", "Console"),
    ("traffic", "Traffic"),
    ("http", "HTTP"),
    ("resources", "Resources"),
    ("prompts", "Prompts"),
    ("tasks", "Tasks"),
    ("auth", "Auth"),
    ("checks", "Checks"),
]

NAV_TAIL = "  F7 Servers  F1 Help  ^p Palette"


def nav_text(current: str, keymap: dict[str, str], read_only: bool, width: int = 0, key_style: str = "bold") -> Text:
    """The views with their keys; the widest form that fits ``width`` (0: the widest).

    Narrower forms drop spaces, never words: the key is drawn bold in the accent colour, so
    ``5Traffic6HTTP`` still reads as two views.
    """
    keys = {name: display_key(effective_key(VIEW_KEYS[name], keymap)).split(",")[-1].strip() for name, _ in VIEWS}
    # the hints after the views may be cut (the footer has them too); the views may not
    # (before the key, between key and label, after the label)
    forms = [(" ", " ", " "), (" ", " ", ""), ("", " ", " "), ("", "", " "), ("", "", "")]
    text = Text()
    for before, between, after in forms:
        text = Text(no_wrap=True, overflow="ellipsis")
        for name, label in VIEWS:
            key = f"[{key_style}]{escape(keys[name])}[/]"
            chunk = Text.from_markup(f"[@click=app.show_view('{name}')]{before}{key}{between}{label}[/]")
            if name == current:
                chunk.stylize("bold reverse")
            text.append_text(chunk)
            text.append(after)
        if not width or text.cell_len <= width:
            break
    text.append(NAV_TAIL, style="dim")
    if read_only:
        text.append("   read-only", style="bold")
    return text


class NavBar(Static):
    """The views, one key each; the current one highlighted. Clickable. Narrower terminals
    get fewer spaces (never other names), so every view stays on the bar."""

    DEFAULT_CSS = """
    NavBar { height: 1; background: $panel; color: $text-muted; }
    """

    _shown: tuple[str, dict[str, str], bool] | None = None  # what show() was last given

    def show(self, current: str, keymap: dict[str, str], read_only: bool) -> None:
        self._shown = (current, keymap, read_only)
        self.update(nav_text(current, keymap, read_only, self.size.width, self._key_style()))

    def on_resize(self) -> None:
        if self._shown is not None:
            current, keymap, read_only = self._shown
            self.update(nav_text(current, keymap, read_only, self.size.width, self._key_style()))

    def _key_style(self) -> str:
        """Keys bold in the theme's accent: with no space between views they mark where each starts."""
        accent = self.app.current_theme.accent if self.is_attached else None
        return f"bold {accent}" if accent else "bold"
