"""The connection state, always visible: connecting, connected (protocol, pid),
exited (code or signal plus the last stderr lines), failed, read-only."""

from __future__ import annotations

import signal as signals

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ..messages import ConnectionStatus, era_label

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


def describe_status(status: ConnectionStatus, mask_volatile: bool = False, name: str = "") -> tuple[str, list[str]]:
    """The one-line summary and the extra lines (stderr tail) for a status; ``name`` is how to call
    the server (its serverInfo or config entry name: the screen knows), else the status's."""
    pid = ("pid ****" if mask_volatile else f"pid {status.pid}") if status.pid else ""
    name = name or status.server or "server"
    state = status.state
    extra: list[str] = []
    via = f" ({status.transport})" if status.transport else ""
    if state == "connecting":
        line = f"connecting to {name}{via}…  {status.command if not mask_volatile else ''}".rstrip()
    elif state == "initializing":
        line = f"{name}{via}: handshake in progress  {pid}".rstrip()
    elif state == "connected":
        parts = [f"connected to {name}", status.transport, era_label(status.era, status.protocol_version), pid]
        if status.in_flight:
            parts.append(f"{status.in_flight} in flight")
        if status.detail:  # e.g. a request over HTTP that could not be delivered
            parts.append(f"⚠ {status.detail}")
        line = "  ·  ".join(p for p in parts if p)
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
        line, extra = describe_status(status, self.mask_volatile, "" if status.state == "read-only" else self._server_name)
        text = Text()
        text.append(f"{icon} ", style="bold")
        text.append(line)
        if self._switching and status.state == "connected":
            text.append(f"  ·  switching to {self._switching}…", style="bold")
        if self._watching_text:
            text.append(f"  ·  ⟳ {self._watching_text}")
        for row in extra:
            text.append("\n" + row, style="dim")
        self.update(text)
        self.set_class(status.state in ("exited", "failed"), "-bad")
        self.set_class(status.state == "connected", "-good")
