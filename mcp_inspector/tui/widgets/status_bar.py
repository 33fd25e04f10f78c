"""The connection state, always visible: connecting, connected (protocol, pid),
exited (code or signal plus the last stderr lines), failed, read-only."""

from __future__ import annotations

import signal as signals

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ..messages import ConnectionStatus, era_label
from ..text.check_text import counts_text

ICONS = {
    "idle": ("○", "$text-muted"),
    "connecting": ("◌", "$warning"),
    "initializing": ("◌", "$warning"),
    "connected": ("●", "$success"),
    "exited": ("✖", "$error"),
    "failed": ("✖", "$error"),
    "disconnected": ("○", "$text-muted"),
    "read-only": ("▣", "$accent"),
}


def signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"signal {number}"


SEPARATOR = "  ·  "
#: the parts of a connected status dropped first when the line does not fit: pid, transport, era
DROP_ORDER = ("pid", "transport", "era")


def connected_parts(status: ConnectionStatus, mask_volatile: bool = False, name: str = "") -> list[tuple[str, str]]:
    """A connected status's parts, in order, each with its kind (``DROP_ORDER`` says which go first)."""
    pid = ("pid ****" if mask_volatile else f"pid {status.pid}") if status.pid else ""
    parts = [
        ("name", f"connected to {name or status.server or 'server'}"),
        ("transport", status.transport or ""),
        ("era", era_label(status.era, status.protocol_version)),
        ("pid", pid),
    ]
    if status.in_flight:
        parts.append(("in-flight", f"{status.in_flight} in flight"))
    if status.detail:  # e.g. a request over HTTP that could not be delivered
        parts.append(("detail", f"⚠ {status.detail}"))
    return [(kind, text) for kind, text in parts if text]


def fit_parts(parts: list[tuple[str, str]], width: int) -> str:
    """The parts joined on one line of ``width`` cells: the less important dropped first (DROP_ORDER)."""
    parts = list(parts)
    for kind in DROP_ORDER:
        if width <= 0 or cell_len(SEPARATOR.join(text for _, text in parts)) <= width:
            break
        parts = [part for part in parts if part[0] != kind]
    line = SEPARATOR.join(text for _, text in parts)
    excess = cell_len(line) - width
    if width > 0 and excess > 0 and parts and parts[0][0] == "name" and cell_len(parts[0][1]) - excess > 20:
        name = parts[0][1]  # still too long: the name gives way (the end keeps in flight and warnings)
        parts[0] = ("name", name[: len(name) - excess - 1] + "…")
        line = SEPARATOR.join(text for _, text in parts)
    return line


def describe_status(status: ConnectionStatus, mask_volatile: bool = False, name: str = "") -> tuple[str, list[str]]:
    """The one-line summary and the extra lines (stderr tail) for a status; ``name`` is how to call
    the server (its serverInfo or config entry name: the screen knows), else the status's."""
    pid = ("pid ****" if mask_volatile else f"pid {status.pid}") if status.pid else ""
    state = status.state
    extra: list[str] = []
    via = f" ({status.transport})" if status.transport else ""
    if state == "connected":
        return fit_parts(connected_parts(status, mask_volatile, name), 0), extra
    name = name or status.server or "server"
    if state == "connecting":
        line = f"connecting to {name}{via}…  {status.command if not mask_volatile else ''}".rstrip()
    elif state == "initializing":
        line = f"{name}{via}: handshake in progress  {pid}".rstrip()
    elif state in ("exited", "failed"):
        how = []
        if status.exit_code is not None:
            how.append(f"exit code {status.exit_code}")
        if status.signal is not None:
            how.append(f"killed by {signal_name(status.signal)}")
        verb = "server exited" if state == "exited" else "connection failed"
        line = f"{name}: {verb}" + (f" ({', '.join(how)})" if how else "")
        redundant = how and status.detail.startswith(("the server exited", "the server was killed"))
        if status.detail and not redundant:
            line += f": {status.detail}"
        line += "  ·  ctrl+r reconnect, f7 other server"
        extra = [f"stderr │ {text}" for text in status.stderr_tail[-3:]]
    elif state == "disconnected":
        line = f"{name}: disconnected ({status.detail or 'closed'})  ·  ctrl+r reconnect"
    elif state == "read-only":
        era = era_label(status.era, status.protocol_version)
        line = f"read-only recording: {status.detail}" + (f"  ·  {era}" if era else "")
    else:
        line = "not connected"
    return line, extra


class StatusBar(Static):
    """One line normally; a few more when the server died (its last stderr lines)."""

    DEFAULT_CSS = """
    StatusBar { height: auto; max-height: 4; padding: 0 1; background: $panel; }
    StatusBar.-bad { background: $error 25%; }
    StatusBar.-good { background: $success 12%; }
    """

    status: reactive[ConnectionStatus] = reactive(ConnectionStatus, always_update=True)

    def __init__(self, mask_volatile: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mask_volatile = mask_volatile
        self._server_name = ""
        self._switching = ""
        self._watching_text = ""
        self._checks: dict = {}

    @property
    def watching_text(self) -> str:
        """What watch and restart is doing: "watching 2 paths", "restarted after edit of x.py (0.4 s)"."""
        return self._watching_text

    @watching_text.setter
    def watching_text(self, text: str) -> None:
        if text != self._watching_text:
            self._watching_text = text
            self.watch_status(self.status)

    @property
    def checks(self) -> dict:
        """The live checks' counts by severity (errors and warnings are shown)."""
        return self._checks

    @checks.setter
    def checks(self, counts: dict) -> None:
        if counts != self._checks:
            self._checks = dict(counts)
            self.watch_status(self.status)

    def _checks_part(self, room: int) -> str:
        """ "  ·  2 errors · 3 warnings" when it fits ``room`` cells, else "  ·  ✖2 ▲3"."""
        counts = {severity: count for severity, count in self._checks.items() if severity.value != "info"}
        full = counts_text(counts)
        if not full:
            return ""
        if cell_len(SEPARATOR + full) <= room:
            return SEPARATOR + full
        return SEPARATOR + counts_text(counts, compact=True)

    @property
    def server_name(self) -> str:
        """The server's name as the user knows it (not the command that runs it: ``node``)."""
        return self._server_name

    @server_name.setter
    def server_name(self, name: str) -> None:
        if name != self._server_name:
            self._server_name = name
            self.watch_status(self.status)

    @property
    def switching(self) -> str:
        """The server a switch (F7) waits for while this one stays connected ("" when none)."""
        return self._switching

    @switching.setter
    def switching(self, name: str) -> None:
        if name != self._switching:
            self._switching = name
            self.watch_status(self.status)

    def watch_status(self, status: ConnectionStatus) -> None:
        icon, _ = ICONS.get(status.state, ("?", ""))
        # a read-only recording's status names its own server
        line, extra = describe_status(
            status, self.mask_volatile, "" if status.state == "read-only" else self._server_name
        )
        switching = (
            f"{SEPARATOR}switching to {self._switching}…" if self._switching and status.state == "connected" else ""
        )
        watching = f"{SEPARATOR}⟳ {self._watching_text}" if self._watching_text else ""
        room = self.content_size.width - 2 - cell_len(switching) - cell_len(watching) - cell_len(line)
        checks = self._checks_part(room if self.content_size.width > 0 else 10_000)
        # one line whatever the width (80 columns): pid, transport, era go first, then the end is cut
        width = self.content_size.width - 2 - cell_len(switching) - cell_len(watching) - cell_len(checks)
        if status.state == "connected" and width > 0:
            line = fit_parts(connected_parts(status, self.mask_volatile, self._server_name), width)
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        text.append(f"{icon} ", style="bold")
        text.append(line)
        if checks:
            text.append(checks, style="bold red" if "error" in checks or "✖" in checks else "bold yellow")
        if switching:
            text.append(switching, style="bold")
        if watching:
            text.append(watching)
        if self.content_size.width > 0:
            text.truncate(self.content_size.width, overflow="ellipsis")
        for row in extra:
            cut = Text(row, style="dim", no_wrap=True)
            if self.content_size.width > 0:
                cut.truncate(self.content_size.width, overflow="ellipsis")
            text.append("\n")
            text.append_text(cut)
        self.update(text)
        self.set_class(status.state in ("exited", "failed"), "-bad")
        self.set_class(status.state == "connected", "-good")

    def on_resize(self) -> None:
        self.watch_status(self.status)
