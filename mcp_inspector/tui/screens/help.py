"""F1 / ?: the key bindings (as remapped by the user) and what each view is for."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keymap import APP_KEYS, VIEW_KEYS, display_key, effective_key

VIEWS_TEXT = """\
Main: tools on the left, the request composer and the result in the middle, the live traffic below.
Info (2): who the server is, its era and protocol version (and why), its instructions and its capabilities explained.
Notifs (3), notifications: log messages, list changes, resource updates and progress, with counts and rates;
  l sets the server's log level, / filters by method, m by log level, f folds repeats.
Console: the server's stderr, live.
Traffic: the full log; enter opens a frame with pretty and raw JSON side by side (h: its HTTP exchange);
  | filters it with a jq query (the count, and the selected frame's outputs, shown; x clears).
HTTP: each POST, GET stream and DELETE of a remote server; enter shows headers, SSE events and frames.
Resources (7): resources and templates; enter reads one (or opens a template's form), s subscribes, updates counted.
Prompts (8): prompts and their arguments; fill the form (completion as you type), ctrl+s gets the messages.
Tasks (9): the tasks of this session (tasks/list where offered); enter shows a result, c cancels, p polls.
Auth (0): a remote server's OAuth flow as steps (requests, documents, what the spec expects); r restarts, s steps.
Replay (ctrl+n): re-run a recording against this server; enter on a request shows recorded and now side by side.
Watch (ctrl+b, --watch): saving a server file restarts it; the tool list marks what the edit changed (ctrl+g).
Servers (f7): servers found in Claude Desktop, Cursor, VS Code and .mcp.json configs, or any command line or URL.
Remap keys in $XDG_CONFIG_HOME/mcp-inspector/config.toml under [keymap], by binding id.
Every action is also in the command palette (ctrl+p)."""


def bindings_table(keymap: dict[str, str], narrow: bool = False) -> Table:
    """Key, Action, Binding id; a group's title is a row of its own in the Action column (in the
    Key column it made that column ~36 wide and mostly empty). Narrow (80 columns) there is no
    Binding id column: the id follows the action, dim, so Action keeps the room (it had 27 of 80)."""
    table = Table(box=None, padding=(0, 2 if not narrow else 1), show_header=True, header_style="bold")
    table.add_column("Key", style="bold", no_wrap=not narrow, max_width=16 if narrow else None)
    table.add_column("Action", ratio=1)
    if not narrow:
        table.add_column("Binding id", style="dim", no_wrap=True)

    def heading(title: str) -> None:
        table.add_row("", Text(title, style="bold underline"), *([] if narrow else [""]))

    def row(key: str | Text, action: str | Text, binding_id: str) -> None:
        if narrow:
            cell = Text(action) if isinstance(action, str) else action.copy()
            if binding_id:
                cell.append(f"  {binding_id}", style="dim")
            table.add_row(key, cell)
        else:
            table.add_row(key, action, binding_id)

    # one heading per group, in the order the groups first appear ("General" came twice)
    groups: dict[str, list] = {}
    for spec in APP_KEYS:
        groups.setdefault(spec.group, []).append(spec)
    for group, specs in groups.items():
        heading(group)
        for spec in specs:
            row(display_key(effective_key(spec, keymap)), spec.description, spec.id)
    extra = [
        ("ctrl+s", "Send the request (composer)", "send-request"),
        ("ctrl+t", "Composer: switch between form and JSON", "toggle-json-editor"),
        ("ctrl+delete", 'Form: an empty text field sends "" (again: leaves it out)', "send-empty-string"),
        ("enter", "Form list: add an item after this one (in an empty last item: on to the next field)", ""),
        ("ctrl+delete", "Form list: remove the item the focus is in", "list.remove-item"),
        ("ctrl+e, ctrl+n", "Raw frame, replay: from a composer field too (end: end of line)", ""),
        ("ctrl+z", "Tool list: wider (half the screen) or back", "tools.widen"),
        (
            "ctrl+k",
            "Cancel the newest request in flight (c on a selected one); in a text field too while "
            "one is in flight, else the field's delete-to-end",
            "cancel-request",
        ),
        ("escape", "Composer: leave the field for the tool list (digits switch views again)", "leave-field"),
        ("ctrl+p", "Command palette", "command-palette"),
        ("s", "Result: save the whole result (asks where; enter again replaces a file)", "save-result"),
        ("|", "Result: a jq query over the whole result (outputs in its place; x clears)", "result.query"),
        ("e,E", "Traffic log: export the session as JSONL, JSON (asks where first)", "traffic.export"),
    ]
    heading("Requests and palette")
    for key, text, binding_id in extra:
        row(display_key(keymap.get(binding_id, key)), text, binding_id)
    asked = [  # ServerRequestScreen: elicitation (form or URL) and sampling, legacy or an MRTR input round
        ("ctrl+s", "Accept (a form is checked first); URL required (-32042): retry the call", "server-request.accept"),
        ("ctrl+r", "Decline", "server-request.decline"),
        ("escape", "Cancel (URL required: close, no retry)", "cancel-server-request"),
        ("ctrl+o", "URL elicitation: open the (focused) URL in the browser", "server-request.open-url"),
    ]
    heading("When the server asks")
    for key, text, binding_id in asked:
        row(display_key(keymap.get(binding_id, key)), text, binding_id)
    for title, bindings in view_bindings(keymap):
        heading(title)
        for binding in bindings:
            row(
                display_key(keymap.get(binding.id or "", binding.key)),
                binding.tooltip or binding.description,
                binding.id or "",
            )
    heading("Completion fields")
    for key, text in COMPLETION_KEYS:
        row(key, text, "")
    return table


# CompletionInput reads these keys itself (on_key), so they are listed here by hand
COMPLETION_KEYS = [
    ("type", "Suggestions from completion/complete (debounced; stale requests cancelled)"),
    ("down", "Ask now / open the suggestions; up, down move in them"),
    ("enter, tab", "Take the highlighted suggestion"),
    ("esc", "Close the suggestions (again: leave the field)"),
]


def view_bindings(keymap: dict[str, str] | None = None) -> list[tuple[str, list[Binding]]]:
    """The Notifications, Resources, Prompts, Tasks and Auth views' keys (and other screens'),
    read from their own BINDINGS (one row per id)."""
    from ..view_commands import view_key_classes
    from ..widgets.query_bar import QueryBar
    from ..widgets.result.history import ResultHistoryScreen
    from ..widgets.views.auth.view import AuthView
    from ..widgets.views.traffic.log import TrafficLog, TrafficPanel
    from .answer.rules import SamplingRulesScreen
    from .dialogs.roots_editor import RootsEditor, RootsList
    from .traffic.inject_frame import InjectFrameScreen
    from .traffic.pick_list import PickList
    from .traffic.raw_frame import RawFrameScreen
    from .traffic.replay_run import ReplayScreen
    from .traffic.side_diff import SideDiffScreen

    keymap = keymap or {}
    diff_ids = ("traffic.mark", "traffic.diff", "result-history.mark", "result-history.diff")
    diff_keys = [
        b for b in [*TrafficLog.BINDINGS, *ResultHistoryScreen.BINDINGS] if isinstance(b, Binding) and b.id in diff_ids
    ]

    groups = [
        ("Traffic (5): jq query", [TrafficPanel.BINDINGS, QueryBar.BINDINGS]),
        *[
            (
                f"{label} ({display_key(effective_key(VIEW_KEYS[name], keymap)).split(',')[-1].strip()})",
                [cls.BINDINGS for cls in classes],
            )
            for name, label, classes in view_key_classes()
        ],
        ("Auth (0)", [AuthView.BINDINGS]),
        ("Roots editor (ctrl+f)", [RootsEditor.BINDINGS, RootsList.BINDINGS]),
        ("Raw frame (ctrl+e)", [RawFrameScreen.BINDINGS, PickList.BINDINGS]),
        ("Frame into a proxy's session (ctrl+e, attached)", [InjectFrameScreen.BINDINGS]),
        ("Saved sampling answers (palette)", [SamplingRulesScreen.BINDINGS]),
        ("Diffs (traffic, F10, ctrl+n)", [diff_keys, ReplayScreen.BINDINGS, SideDiffScreen.BINDINGS]),
    ]
    out = []
    for title, lists in groups:
        seen: set[str] = set()
        rows: list[Binding] = []
        for bindings in lists:
            for binding in bindings:
                if isinstance(binding, Binding) and binding.id not in seen:
                    seen.add(binding.id or binding.key)
                    rows.append(binding)
        out.append((title, rows))
    return out


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical { width: 100; max-width: 95%; height: 90%; border: thick $primary; background: $surface; }
    HelpScreen #help-title { background: $primary 30%; padding: 0 1; text-style: bold; }
    HelpScreen VerticalScroll { padding: 0 1; }
    HelpScreen #help-views { margin-top: 1; }
    """
    BINDINGS = [Binding("escape,f1,q,question_mark", "app.pop_screen", "Close", id="close-help")]

    NARROW = 100  # columns of the terminal below which the table is laid out narrow

    def narrow(self) -> bool:
        return self.app.size.width < self.NARROW

    def on_resize(self) -> None:
        if self.is_mounted and getattr(self, "_narrow", None) != self.narrow():
            self._narrow = self.narrow()
            self.query_one("#help-keys", Static).update(
                bindings_table(getattr(self.app, "keymap", {}) or {}, self._narrow)
            )

    def compose(self) -> ComposeResult:
        keymap = getattr(self.app, "keymap", {}) or {}
        self._narrow = self.narrow()
        with Vertical():
            yield Static("mcp-inspector: keys and views   (escape closes)", id="help-title")
            with VerticalScroll():
                yield Static(bindings_table(keymap, self.narrow()), id="help-keys")
                yield Static(VIEWS_TEXT, id="help-views", markup=False)
