"""Watch and restart on the main screen: the development loop (``--watch [PATH]``, ``ctrl+b``).

A worker runs the file watcher (core/watch) and posts ``FilesChanged`` for each burst of edits;
the handler restarts the server the way F8 does, so the traffic log (with a marker line), the
drafts, the result and the tool list's baseline are kept, and the first tool list of the new
process is compared with the last one listed: the tool list marks what the edit changed and
ctrl+g shows the diff. The status bar says "watching N paths", and after a restart "restarted
after edit of server.py (0.4 s)". A server that fails to start after an edit shows its stderr
(the notification, the console view) and leaves the tools and the result as they were; the next
save tries again. With re-run on (``--rerun``, the palette) the last tools/call is sent again,
with the same arguments, once the new tool list is in.

Only a stdio server is watched; switching to a remote server stops watching. The paths are the
ones given for the server the inspector started with, else inferred from the current server's
command (its script or package directory).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message

from ....core.config.servers import ServerSpec
from ....core.session.tooldiff import ListDiff
from ....core.watch.paths import WatchError, resolve_watch_paths
from ....core.watch.watcher import FileChanges, FileWatcher
from .host import ScreenHost

if TYPE_CHECKING:
    from ....core.session.mcp_session import McpSession
    from ...server.switching import SwitchingConnection


class FilesChanged(Message, bubble=False):
    """A burst of edits under the watched paths (from the watch worker)."""

    def __init__(self, changes: FileChanges, watcher: FileWatcher) -> None:
        super().__init__()
        self.changes = changes
        self.watcher = watcher


class WatchFailed(Message, bubble=False):
    """The watcher stopped on an error (a watched folder was removed...)."""

    def __init__(self, reason: str, watcher: FileWatcher) -> None:
        super().__init__()
        self.reason = reason
        self.watcher = watcher


@dataclass
class PendingRestart:
    changes: FileChanges
    started: float  # time.monotonic() when the edit was seen


@dataclass
class LastCall:
    tool: str
    arguments: dict[str, Any]
    as_task: bool | None = None


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class WatchHost(ScreenHost, Protocol):
    """What watch and restart needs of the main screen."""

    @property
    def spec(self) -> ServerSpec | None: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def cwd(self) -> str: ...
    @property
    def connection(self) -> SwitchingConnection: ...

    def connect(self, spec: ServerSpec, reason: str = "connect", force: bool = False) -> None: ...
    def call_tool(
        self, session: McpSession, name: str, arguments: dict[str, Any], as_task: bool | None = None
    ) -> object: ...
    def dismiss_tool_changes(self) -> None: ...
    def show_watch_text(self, text: str) -> None: ...


class WatchState:
    """Watching the server's files and restarting it: the main screen's ``watch``."""

    def __init__(self, host: WatchHost, paths: list[str] | None, rerun: bool) -> None:
        self.host = host
        self.given = list(paths or [])  # for the server the inspector started with
        self.paths: list[str] = []
        self.rerun = rerun
        self.last_call: LastCall | None = None
        self.restarts = 0  # restarts after an edit (tests and the status bar)
        self._watcher: FileWatcher | None = None
        self._watch_key = host.spec.key if host.spec is not None else None
        self._restart: PendingRestart | None = None

    @property
    def watching(self) -> bool:
        return self._watcher is not None

    @property
    def listening(self) -> bool:
        """The watcher is on and sees edits (its thread is up)."""
        return self._watcher is not None and self._watcher.listening

    # -- on and off ---------------------------------------------------------
    def start(self, announce: bool = True) -> bool:
        """Watch the current server's paths (given, else inferred); False (and a note) when it cannot."""
        host = self.host
        spec = host.spec
        if host.read_only or spec is None:
            host.notify("Nothing to restart: watch needs a server command.", severity="warning")
            return False
        # --watch (or the entry's "watch") for the server we started with; else the entry's, else inferred
        own = spec.key == self._watch_key and self.given
        given = self.given if own else list(getattr(spec, "watch", None) or [""])
        try:
            paths = resolve_watch_paths(given, spec, base=host.cwd)
        except WatchError as exc:
            host.notify(str(exc), title="Cannot watch", severity="error", markup=False, timeout=8)
            return False
        self.stop(quiet=True)
        self.paths = paths
        watcher = self._watcher = FileWatcher(paths, ignore=self._own_files())
        host.run_worker(self._watch_files(watcher), group="watch", exclusive=True, exit_on_error=False)
        host.show_watch_text(f"watching {plural(len(paths), 'path')}")
        if announce:
            host.notify(
                "Watching " + ", ".join(paths) + ": saving a file restarts the server.",
                title="Watch on",
                markup=False,
                timeout=5,
            )
        return True

    def stop(self, quiet: bool = False) -> None:
        watcher, self._watcher = self._watcher, None
        self._restart = None
        if watcher is None:
            return
        watcher.stop()  # the watch thread sees it within milliseconds; the worker then ends
        self.host.show_watch_text("")
        if not quiet:
            self.host.notify("Watching off: edits no longer restart the server.", title="Watch off", timeout=4)

    def toggle(self) -> None:
        if self.watching:
            self.stop()
        else:
            self.start()

    def toggle_rerun(self) -> None:
        self.rerun = not self.rerun
        what = "on: after a restart the last call is sent again" if self.rerun else "off"
        self.host.notify(f"Re-run the last call after a restart: {what}", title="Watch", markup=False, timeout=4)

    def _own_files(self) -> list[str]:
        app = self.host.app
        recorder = getattr(app, "recorder", None)
        path = getattr(recorder, "path", None) or getattr(app, "record", None)
        return [str(path)] if path else []

    def follow(self, spec: ServerSpec) -> None:
        """The screen changed server (F7): watch the new one's files (a config entry with "watch" is
        watched from the start), or stop for a remote one."""
        if not self.watching:
            if spec.watch and not spec.url:
                self.start(announce=False)
            return
        if spec.url:
            self.stop(quiet=True)
            self.host.notify("Watching stopped: a remote server is not restarted by us.", title="Watch off", timeout=5)
            return
        self.start(announce=False)

    # -- the worker and its messages (the screen's handlers pass them on) -------
    async def _watch_files(self, watcher: FileWatcher) -> None:
        try:
            async for changes in watcher.changes():
                self.host.post_message(FilesChanged(changes, watcher))
        except OSError as exc:
            self.host.post_message(WatchFailed(str(exc), watcher))

    def files_changed(self, message: FilesChanged) -> None:
        spec = self.host.spec
        if message.watcher is not self._watcher or spec is None or spec.url:
            return  # a watcher stopped since, or nothing to restart
        changes = message.changes
        self._restart = PendingRestart(changes, time.monotonic())
        self.host.show_watch_text(f"restarting after edit of {changes.describe()}…")
        self.host.connect(spec, reason=f"restart after edit of {changes.describe()}", force=True)

    def watch_failed(self, message: WatchFailed) -> None:
        if message.watcher is self._watcher:
            self.stop(quiet=True)
            self.host.notify(message.reason, title="Watching stopped", severity="error", markup=False, timeout=8)

    # -- what the restart led to (called by the screen's handlers) -------------
    def tools_title(self) -> str | None:
        """The title of the tool-list notification after a restart caused by an edit."""
        pending = self._restart
        return f"Tool list changed after the edit of {pending.changes.describe()}" if pending is not None else None

    def tools_shown(self, diff: ListDiff | None) -> None:
        """The new process listed its tools: the restart is done; re-run the last call if asked. The
        marks say what this edit changed: none when it changed no tool (not an earlier edit's)."""
        pending, self._restart = self._restart, None
        if pending is None:
            return
        self.restarts += 1
        elapsed = time.monotonic() - pending.started
        unchanged = diff is None or diff.empty
        if unchanged:
            self.host.dismiss_tool_changes()
        self.host.show_watch_text(
            f"restarted after edit of {pending.changes.describe()} ({elapsed:.1f} s)"
            + (", tools unchanged" if unchanged else "")
        )
        if self.rerun and self.last_call is not None:
            self._rerun_last_call()

    def server_ready(self, capabilities: dict[str, Any] | None) -> None:
        """A server without tools lists none: its restart is done once it answered."""
        if self._restart is not None and "tools" not in (capabilities or {}):
            self.tools_shown(None)

    def start_failed(self) -> None:
        """The server did not come up after an edit: the views stay as they were; the next save retries."""
        pending, self._restart = self._restart, None
        if pending is None:
            return
        self.host.show_watch_text(
            f"{pending.changes.describe()}: the server failed to start; the next save tries again"
        )

    def remember_call(self, tool: str, arguments: dict[str, Any], as_task: bool | None) -> None:
        self.last_call = LastCall(tool, dict(arguments), as_task)

    def _rerun_last_call(self) -> None:
        call = self.last_call
        session = self.host.connection.live
        if call is None or session is None:
            return
        if session.tool(call.tool) is None:
            self.host.notify(
                f"Not re-run: the server no longer lists {call.tool}.", title="Watch", severity="warning", markup=False
            )
            return
        self.host.notify(f"Re-running {call.tool} with the same arguments.", title="Watch", markup=False, timeout=3)
        self.host.call_tool(session, call.tool, call.arguments, call.as_task)
