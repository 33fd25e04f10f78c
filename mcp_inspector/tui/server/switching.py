"""Switching servers without losing the working one.

``SwitchingConnection`` is what the main screen (and the app, for quitting) hold: it looks
like one ``Connection`` (``live``, ``session``, ``status``, ``run``, ``shutdown``...) and
forwards to the current one. A switch to another server (F7) starts a second Connection,
the *candidate*, while the current one keeps serving: what the candidate posts is held back
until its handshake succeeds (``ServerReady``). Then the candidate becomes current, the old
server is closed, ``ServerSwitched`` is posted and the held messages follow in order. If the
candidate fails first (the command does not start, the handshake is refused), its messages are
dropped, ``SwitchFailed`` says why, and the working connection is left as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import anyio
from textual.message import Message

from ...core.config.servers import ServerSpec
from ...core.traffic.store import TrafficStore
from ..messages import ConnectionChanged, ConnectionStatus, ServerReady
from .connection import Connection, describe_spec

ENDED = ("failed", "exited", "disconnected")


class ServerSwitched(Message, bubble=False):
    """The candidate answered its handshake: it is the connection now (``spec`` is its server)."""

    def __init__(self, spec: ServerSpec, previous: ServerSpec | None) -> None:
        super().__init__()
        self.spec = spec
        self.previous = previous


class SwitchFailed(Message, bubble=False):
    """The server we tried to switch to did not connect; the working one still runs."""

    def __init__(self, spec: ServerSpec, status: ConnectionStatus, current: ServerSpec | None) -> None:
        super().__init__()
        self.spec = spec
        self.status = status
        self.current = current

    @property
    def reason(self) -> str:
        status = self.status
        reason = status.detail or status.state
        if status.exit_code is not None and str(status.exit_code) not in reason:
            reason += f" (exit code {status.exit_code})"
        tail = [line for line in status.stderr_tail[-2:] if line.strip()]
        return reason + ("\n" + "\n".join(tail) if tail else "")


class SwitchingConnection:
    """The current Connection, and the one being switched to (if any)."""

    def __init__(
        self,
        post: Callable[[Any], Any],
        store: TrafficStore,
        timeout: float | None,
        handlers: dict[str, Any] | None = None,
        max_frame_bytes: int | None = None,
    ) -> None:
        self._post = post
        self._options = dict(store=store, timeout=timeout, handlers=handlers)
        if max_frame_bytes is not None:
            self._options["max_frame_bytes"] = max_frame_bytes
        self.current = self._new()
        self.candidate: Connection | None = None
        self._held: list[Any] = []
        self._auth_ui: Any = None
        #: each connection's ``on_session`` (a switch's candidate too: its frames are the new server's)
        self.on_session: Callable[[str], None] | None = None

    def _new(self) -> Connection:
        connection = Connection(lambda message: None, **self._options)
        connection.post = lambda message, source=connection: self._post_from(source, message)
        connection.on_session = self._session_started
        if getattr(self, "current", None) is not None:
            connection.process_groups = self.current.process_groups  # kill_now reaches every process either started
            connection.auth_ui = self._auth_ui
        return connection

    def _session_started(self, kind: str) -> None:
        if self.on_session is not None:
            self.on_session(kind)

    @property
    def timeout(self) -> float | None:
        """The default request timeout a connection made from now on (a switch's) starts with."""
        return cast("float | None", self._options["timeout"])

    @timeout.setter
    def timeout(self, seconds: float | None) -> None:
        self._options["timeout"] = seconds

    # -- what the screen reads: the current connection's ----------------
    @property
    def live(self):
        return self.current.live

    @property
    def session(self):
        return self.current.session

    @property
    def status(self) -> ConnectionStatus:
        return self.current.status

    @property
    def spec(self) -> ServerSpec | None:
        return self.current.spec

    @property
    def store(self):
        return self.current.store

    @property
    def auth(self):
        return self.current.auth

    @property
    def auth_log(self):
        return self.current.auth_log

    @property
    def auth_ui(self) -> Any:
        return self._auth_ui

    @auth_ui.setter
    def auth_ui(self, value: Any) -> None:
        self._auth_ui = value
        for connection in (self.current, self.candidate):
            if connection is not None:
                connection.auth_ui = value

    @property
    def switching_to(self) -> ServerSpec | None:
        """The server a switch waits for (None when no switch runs)."""
        return self.candidate.spec if self.candidate is not None else None

    # -- running ----------------------------------------------------------
    def can_switch(self, spec: ServerSpec) -> bool:
        """Whether connecting to ``spec`` keeps the current server until it answers: another server
        while the current one is live."""
        current = self.current
        return current.live is not None and current.spec is not None and current.spec.key != spec.key

    async def run(self, spec: ServerSpec, reason: str = "connect") -> None:
        """Connect to ``spec``: a switch (another server while one is live) keeps the current one
        until the new one has answered its handshake; anything else replaces it (reconnect, restart)."""
        self._drop_candidate()
        if not self.can_switch(spec):
            await self.current.run(spec, reason)
            return
        candidate = self.candidate = self._new()
        self._held = []
        await candidate.run(spec, reason)  # until that server ends (as current, once promoted)
        if self.candidate is candidate:  # it ended before it was promoted (failure posted already)
            self.candidate = None

    def _drop_candidate(self) -> None:
        candidate, self.candidate = self.candidate, None
        self._held = []
        if candidate is not None:
            candidate.request_stop()

    def _post_from(self, source: Connection, message: Any) -> None:
        if source is self.current:
            self._post(message)
        elif source is self.candidate:
            self._hold(source, message)
        # else: an old connection winding down after a switch: nothing of it concerns the screen

    def _hold(self, candidate: Connection, message: Any) -> None:
        if isinstance(message, ConnectionChanged) and message.status.state in ENDED:
            self.candidate = None
            self._held = []
            self._post(SwitchFailed(candidate.spec, message.status, self.current.spec))
            return
        self._held.append(message)
        if isinstance(message, ServerReady):
            self._promote(candidate)

    def _promote(self, candidate: Connection) -> None:
        old, self.current, self.candidate = self.current, candidate, None
        held, self._held = self._held, []
        old.request_stop()  # its run (in its own worker) closes the old server
        self._post(ServerSwitched(candidate.spec, old.spec))
        for message in held:
            self._post(message)

    # -- quitting -----------------------------------------------------------
    async def shutdown(self, close_grace: float, term_grace: float) -> None:
        async with anyio.create_task_group() as group:
            for connection in (self.current, self.candidate):
                if connection is not None:
                    group.start_soon(connection.shutdown, close_grace, term_grace)

    def kill_now(self) -> None:
        for connection in (self.current, self.candidate):
            if connection is not None:
                connection.kill_now()

    def request_stop(self) -> None:
        self._drop_candidate()
        self.current.request_stop()


def switching_note(spec: ServerSpec, current: ServerSpec | None) -> str:
    """What the screen says while a switch waits for the new server."""
    kept = f"; {current.name} stays connected until it answers" if current is not None else ""
    return f"Connecting to {spec.name} ({describe_spec(spec)}){kept}."
