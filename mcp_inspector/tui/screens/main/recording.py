"""The main screen showing a recording (``--open FILE``): loaded in a thread, then shown read-only.

The file is read by a thread worker at the app store's caps (what leaves memory is read back from
the file, never copied); the ``ReplayBuilder`` that follows the entries gives the server's facts,
the tool lists (a change shown as a diff) and each tool's recorded outcome and arguments. A file
that cannot be read says why in the status bar and a notification, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from textual.worker import get_current_worker

from ....core.config.servers import ServerSpec
from ....core.session.tooldiff import diff_items
from ....core.traffic.loading import LoadCancelled, LoadedSession, SessionFileError, load_session
from ....core.traffic.store import TrafficStore
from ...messages import ConnectionStatus, ServerFacts
from ...server.replay import RecordedArguments, Replay, ReplayBuilder, recorded_spec
from ...widgets.status_bar import StatusBar
from .checks_state import ChecksState
from .host import ScreenHost
from .server_state import Servers


class RecordingHost(ScreenHost, Protocol):
    """What showing a recording needs of the main screen."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def status_bar(self) -> StatusBar: ...
    @property
    def snapshot_mode(self) -> bool: ...

    def apply_facts(self, facts: ServerFacts) -> None: ...
    def set_log_spec(self, spec: ServerSpec | None) -> None: ...


class Recording:
    """A recording on the main screen (``main.recording``): the file, and the replay once loaded."""

    def __init__(
        self,
        host: RecordingHost,
        path: str,
        arguments: RecordedArguments | None,
        checks: ChecksState,
        servers: Servers,
    ) -> None:
        self.host = host
        self.path = path
        self.arguments = arguments  # the composer's drafts: each tool's recorded arguments
        self.checks = checks  # judges the recording (the live rules)
        self.servers = servers  # shows its tool lists
        self.replay: Replay | None = None

    def shown_path(self) -> str:
        """The file's name in snapshot mode (screenshots, tests), else the path as given."""
        return Path(self.path).name if self.host.snapshot_mode else self.path

    def load(self) -> None:
        self.host.status_bar.status = ConnectionStatus("read-only", detail=f"loading {self.shown_path()}…")
        self.host.run_worker(self._load, thread=True, group="load", exit_on_error=False)

    def _load(self) -> None:
        worker = get_current_worker()
        store = self.host.store
        call = self.host.app.call_from_thread
        builder = ReplayBuilder()
        try:
            # at the app store's caps: what leaves memory is read back from the file, never copied
            loaded = load_session(
                self.path,
                cap=store.cap,
                mem_limit=store.mem_limit,
                on_entry=builder.feed,
                cancelled=lambda: worker.is_cancelled,
            )
            replay = builder.finish()
        except LoadCancelled:
            return
        except SessionFileError as exc:
            call(self._failed, str(exc))
            return
        except Exception as exc:  # never leave the screen on "loading…"
            call(self._failed, f"cannot load {self.path}: {exc.__class__.__name__}: {exc}")
            return
        call(self._loaded, loaded, replay)

    def _failed(self, text: str) -> None:
        self.host.status_bar.status = ConnectionStatus("failed", detail=text)
        self.host.notify(text, title="Cannot open the recording", severity="error", markup=False)

    def _loaded(self, loaded: LoadedSession, replay: Replay) -> None:
        host = self.host
        store = host.store
        # The views were built on the app's (empty) store; it takes over the loaded one.
        store.adopt(loaded.store)
        self.replay = replay
        if self.arguments is not None:
            self.arguments.replay = replay
        header = loaded.header
        server = str(header.get("server") or header.get("command") or "")
        self.checks.judge_recording(server)
        facts = replay.facts or ServerFacts()
        name = str(facts.server_info.get("name") or server or "server")
        detail = f"{self.shown_path()} · {name} · {store.total} entries"
        if loaded.skipped:
            detail += f" · {loaded.skipped} unreadable line{'s' if loaded.skipped != 1 else ''} skipped"
            host.notify(
                loaded.describe_skipped(),
                title="Parts of the recording were skipped",
                severity="warning",
                markup=False,
                timeout=10,
            )
        host.status_bar.status = ConnectionStatus(
            "read-only", name, server, facts.protocol_version, detail=detail, era=facts.era
        )
        if server:
            host.set_log_spec(recorded_spec(str(header.get("name") or name), server))
        host.apply_facts(facts)
        lists = replay.tool_lists
        diff = diff_items(lists[-2], lists[-1]) if len(lists) >= 2 else None
        # the notice says what the change means, in mcp-inspector diff's words, as for list_changed
        title = "The tool list changed during the recording"
        self.servers.show_tools(replay.tools, diff, announce=True, cause="recording", title=title)
