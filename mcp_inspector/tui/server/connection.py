"""Owns the McpSession's lifetime inside an async worker.

Connect, reconnect and restart all go through ``Connection.run``: it waits for
the previous run to finish, spawns the server, does the handshake, fetches the
tool list and then waits until the server exits or we are told to stop (at any
point: a stop during a slow handshake does not wait for its timeout). Session
events become Textual messages posted to ``target``. The TrafficStore is
created once and handed to every session, so the log survives reconnects.

Quitting goes through ``shutdown``: the spec's order (close stdin, wait, SIGTERM
the process group, SIGKILL it) with short waits, so quitting stays quick. If
even that cannot run (the app crashed), ``kill_now`` SIGKILLs every process
group still running.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
from collections.abc import Callable
from typing import Any

import anyio

from ...core.auth.model import AuthLog
from ...core.base.errors import InspectorError
from ...core.base.framing import MAX_LINE_BYTES
from ...core.base.masking import mask_url
from ...core.config import eras
from ...core.config.factory import make_transport as factory
from ...core.config.servers import ServerSpec
from ...core.protocol.rpc import RequestHandler
from ...core.session.events import (
    ElicitationCompleted,
    ListChanged,
    ResourceUpdated,
    ServerClosed,
    SessionState,
    StateChanged,
    TaskUpdated,
)
from ...core.session.events import InputRequested as SessionInputRequested
from ...core.session.mcp_session import McpSession
from ...core.traffic.store import TrafficStore
from ...core.transport.base import TransportError
from ..messages import (
    ConnectionChanged,
    ConnectionProblem,
    ConnectionStatus,
    InputRequested,
    ListFetched,
    ServerFacts,
    ServerReady,
    SessionNotice,
    ToolsFetched,
)


def make_transport(
    spec: ServerSpec,
    max_frame_bytes: int = MAX_LINE_BYTES,
    http_log: Any = None,
    auth_log: Any = None,
    auth_ui: Any = None,
):
    """A transport for a spec (stdio, Streamable HTTP or legacy HTTP+SSE), HTTP exchanges into ``http_log``;
    a URL's OAuth client writes its steps into ``auth_log`` and asks the user through ``auth_ui``."""
    return factory(
        spec,
        max_frame_bytes=max_frame_bytes,
        http_log=http_log,
        insecure=spec.insecure,
        auth_log=auth_log,
        auth_ui=auth_ui,
    )


def describe_spec(spec: ServerSpec) -> str:
    """The command line, or the transport and URL with its secrets masked."""
    if spec.url:
        return f"{spec.transport} {mask_url(spec.url)}"
    return spec.describe()


def make_session(transport: Any, spec: ServerSpec, **options: Any) -> McpSession:
    """An McpSession in the era the spec asks for (``auto`` unless it says: --era, --protocol-version);
    with ``auto``, the era the server spoke last time spares a legacy server the probe (config/eras.py)."""
    era = spec.era or "auto"
    if "era_hint" not in options and eras.hint_applies(era, spec.url, spec.protocol_version):
        options["era_hint"] = eras.remembered(spec.key)
    return McpSession(transport, era=era, protocol_version=spec.protocol_version, **options)


def transport_facts(transport: Any) -> tuple[str, str | None, str | None]:
    """(kind, masked url, HTTP session id) of a transport, whatever it exposes of them."""
    kind = str(getattr(transport, "kind", "") or "")
    try:
        details = transport.details if isinstance(getattr(type(transport), "details", None), property) else {}
    except Exception:  # noqa: BLE001 - a transport's report must not break the connection
        details = {}
    details = details if isinstance(details, dict) else {}
    url = details.get("url") or getattr(transport, "url", None)
    session_id = getattr(transport, "session_id", None) or details.get("session_id") or details.get("session")
    return kind, mask_url(str(url)) if url else None, str(session_id) if session_id else None


def session_facts(session: McpSession) -> ServerFacts:
    """What the server declared, and how the connection runs (era, transport, HTTP session)."""
    kind, url, session_id = transport_facts(session.transport)
    cache = getattr(session, "cache_info", None)
    ack = getattr(session, "subscription_ack", None)
    excluded = getattr(session, "excluded_tools", None)
    return ServerFacts(
        dict(session.server_info or {}),
        session.protocol_version,
        dict(session.capabilities or {}),
        session.instructions,
        transport=kind,
        url=url,
        era=getattr(session, "era", None),
        era_reason=getattr(session, "era_reason", None),
        http_session_id=session_id,
        cache_info=dict(cache) if isinstance(cache, dict) else {},
        subscription_ack=ack if isinstance(ack, dict) else None,
        excluded_tools={str(k): str(v) for k, v in excluded.items()} if isinstance(excluded, dict) else {},
    )


def bound_handlers(handlers: dict[str, RequestHandler], spec: ServerSpec) -> dict[str, RequestHandler]:
    """The handlers for one session of ``spec``: a handler that answers per server (``for_spec``:
    roots/list answers with that server's roots) is bound to it, so two connections at once (a
    switch, tui/server/switching.py) each answer for their own server."""
    bound = dict(handlers)
    for method, handler in handlers.items():
        bind = getattr(handler, "for_spec", None)
        if callable(bind):
            bound[method] = bind(spec)
    return bound


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[0])
    return f"{exc.__class__.__name__}: {exc}"


def first_error(group: BaseExceptionGroup) -> Exception | None:
    """The first InspectorError/TransportError inside a (nested) exception group."""
    for exc in group.exceptions:
        if isinstance(exc, (InspectorError, TransportError)):
            return exc
        if isinstance(exc, BaseExceptionGroup):
            found = first_error(exc)
            if found is not None:
                return found
    return None


class Connection:
    """One server at a time; ``run`` is the body of the connection worker."""

    def __init__(
        self,
        post: Callable[[Any], Any],
        store: TrafficStore,
        timeout: float | None,
        handlers: dict[str, RequestHandler] | None = None,
        max_frame_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.post = post
        self.max_frame_bytes = max_frame_bytes
        self.store = store
        self.timeout = timeout
        self.handlers = handlers or {}
        self.spec: ServerSpec | None = None
        self.session: McpSession | None = None
        self.status = ConnectionStatus()
        self._stop: anyio.Event | None = None
        self._scope: anyio.CancelScope | None = None
        self._idle = anyio.Event()
        self._idle.set()
        self._generation = 0
        self._shutting_down = False
        self.process_groups: set[int] = set()  # process groups started and not yet shut down
        # the OAuthManager of the last HTTP transport (kept after the run: the Auth view shows a failed
        # flow), the ui the app gives it (the print-mode modal), and the AuthLog of the server: one
        # across reconnects, so the Auth view keeps every flow; a new one for another server
        self.auth: Any = None
        self.auth_ui: Any = None
        self.auth_log: AuthLog = AuthLog()
        self._auth_key: Any = None
        #: called with the transport's kind just before a session is made (the live checks start afresh)
        self.on_session: Callable[[str], None] | None = None

    # -- control -------------------------------------------------------
    def request_stop(self) -> None:
        """Ask the current run to close the server (gracefully, as the spec says)."""
        if self._stop is not None:
            self._stop.set()
        if self._scope is not None:
            self._scope.cancel()

    async def shutdown(self, close_grace: float, term_grace: float) -> None:
        """Stop for good (quitting): close the server with these waits and wait for it, bounded.

        No run starts afterwards, not even one that was waiting for this one to end.
        """
        self._shutting_down = True
        session = self.session
        if session is not None:
            transport = session.transport
            for name, value in (("close_grace", close_grace), ("term_grace", term_grace)):
                if hasattr(transport, name):
                    setattr(transport, name, min(getattr(transport, name), value))
        self.request_stop()
        # the transport waits close_grace + term_grace, then SIGKILLs and reaps: give it that and a margin
        with anyio.move_on_after(close_grace + term_grace + 2.0):
            await self._idle.wait()
        self.kill_now()

    def kill_now(self) -> None:
        """SIGKILL every process group we started that was not shut down (no waiting: last resort)."""
        self._shutting_down = True
        for group in list(self.process_groups):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        self.process_groups.clear()

    @property
    def live(self) -> McpSession | None:
        """The session, when it is ready for requests."""
        session = self.session
        if session is not None and session.state is SessionState.READY:
            return session
        return None

    async def run(self, spec: ServerSpec, reason: str = "connect") -> None:
        """Stop whatever runs, then connect to ``spec`` and stay until it ends."""
        self.request_stop()
        await self._idle.wait()
        if self._shutting_down:
            return
        self._idle = anyio.Event()
        self._generation += 1
        self._stop = stop = anyio.Event()
        self.spec = spec
        try:
            await self._run(spec, reason, stop)
        except Exception as exc:  # noqa: BLE001 - a bug must not leave the status saying "connected"
            message = f"the connection failed: {_describe(exc)}"
            self.store.note(message)
            self._set(
                ConnectionStatus(
                    "disconnected",
                    spec.name,
                    describe_spec(spec),
                    self.status.protocol_version,
                    self.status.pid,
                    detail=message,
                )
            )
            self.post(ConnectionProblem(message, "error"))
        finally:
            self.session = None
            self._scope = None
            self._idle.set()

    async def _run(self, spec: ServerSpec, reason: str, stop: anyio.Event) -> None:
        self._set(ConnectionStatus("connecting", spec.name, describe_spec(spec), transport=spec.transport or "stdio"))
        if reason != "connect":
            self.store.note(f"{reason}: {describe_spec(spec)}")
        closed = anyio.Event()
        try:
            if spec.key != self._auth_key:
                self._auth_key = spec.key
                self.auth_log = AuthLog()
            transport = make_transport(spec, self.max_frame_bytes, self.store.http_log, self.auth_log, self.auth_ui)
            self.auth = getattr(transport, "auth", None)
            if self.on_session is not None:
                self.on_session(str(getattr(transport, "kind", "") or "stdio"))
            session = make_session(
                transport, spec, store=self.store, timeout=self.timeout, handlers=bound_handlers(self.handlers, spec)
            )
        except (InspectorError, TransportError) as exc:
            self._fail(spec, str(exc))
            return

        # What the screen follows besides the lists (task news, resource updates, completed URL
        # elicitations) goes through one queue: the newest event per key, handed over by one
        # SessionNotice at a time (the first event after the screen took the queue posts it; the
        # rest wait in the queue). A storm of task status notifications (20,000 froze the screen
        # for 26 s, each rebuilding the Tasks table) or a flood of resources/updated (~12k/s, one
        # message each: view switches waited behind them) is a few messages a frame, not one each.
        # The counts stay exact: the session counts every update, the store records every frame.
        pending: dict[Any, Any] = {}
        serial = itertools.count()

        def take_pending() -> list[Any]:
            events = list(pending.values())
            pending.clear()
            return events

        def queue(key: Any, event: Any) -> None:
            first = not pending
            pending.pop(key, None)  # re-inserted: the queue stays in the order of the newest events
            pending[key] = event
            if first:
                self.post(SessionNotice(event, latest=take_pending))

        def on_event(event: Any) -> None:
            if isinstance(event, TaskUpdated):
                if event.source in ("notification", "poll"):  # a newer status replaces an older one
                    queue(("task", event.task.get("taskId")), event)
                else:  # created, cancel, result: each is handled
                    queue(("task-event", next(serial)), event)
                return
            if isinstance(event, ResourceUpdated):
                queue(("resource", event.uri), event)
                return
            if isinstance(event, ElicitationCompleted):
                queue(("elicitation", event.elicitation_id), event)
                return
            if isinstance(event, ListChanged) and event.kind == "tools":
                if session.state is SessionState.READY:
                    self.post(ServerReady(session_facts(session)))  # excluded tools and cache info may have changed
                self.post(ToolsFetched(event))
                if event.error:
                    self.post(ConnectionProblem(f"tools/list: {event.error}"))
            elif isinstance(event, ListChanged):  # prompts, resources, templates
                self.post(ListFetched(event))
            elif isinstance(event, SessionInputRequested):  # an MRTR round (modern era)
                self.post(InputRequested(event.round, dict(event.requests or {}), event.first_seq))
            elif isinstance(event, ServerClosed):
                closed.set()
            elif isinstance(event, StateChanged) and event.state is SessionState.INITIALIZING:
                self._update(state="initializing", pid=getattr(transport, "pid", None))

        session.add_listener(on_event)
        self.session = session
        group = None
        try:
            async with session:
                group = getattr(transport, "pid", None)
                if group is not None:
                    self.process_groups.add(group)
                # A stop cancels only what runs inside the session: its exit then closes the
                # server while the transport's readers still run to see it go.
                with anyio.CancelScope() as self._scope:
                    if stop.is_set():
                        self._scope.cancel()
                    await self._serve(session, transport, closed)
        except (InspectorError, TransportError) as exc:
            self.process_groups.discard(group)
            self._closed_status(spec, session, str(exc))
            return
        except BaseExceptionGroup as exc_group:  # the session's task group wraps what it raises
            error = first_error(exc_group)
            if error is None:
                if isinstance(exc_group, Exception):  # no cancellation inside: the session did close
                    self.process_groups.discard(group)
                raise
            self.process_groups.discard(group)
            self._closed_status(spec, session, str(error))
            return
        except Exception:
            self.process_groups.discard(group)  # the session closed the server on its way out
            raise
        # Reached only when the session's exit (which shuts the server down) completed.
        self.process_groups.discard(group)
        self._closed_status(spec, session, None)

    async def _serve(self, session: McpSession, transport: Any, closed: anyio.Event) -> None:
        """Handshake, tool list, then wait for the server to go away."""
        self._update(pid=getattr(transport, "pid", None))
        await session.initialize()
        spec = self.spec
        if (
            spec is not None
            and session.era is not None
            and session.era != session.era_hint
            and eras.hint_applies(spec.era, spec.url, spec.protocol_version)
        ):
            await anyio.to_thread.run_sync(eras.remember, spec.key, session.era)
        facts = session_facts(session)
        self._update(
            state="connected",
            protocol_version=session.protocol_version,
            detail="",
            transport=facts.transport,
            era=facts.era,
        )
        self.post(ServerReady(facts))
        if session.supports("tools"):
            try:
                await session.list_tools()
            except InspectorError as exc:
                self.post(ConnectionProblem(f"tools/list failed: {exc}", "error"))
        else:
            self.post(ConnectionProblem("the server does not declare the tools capability", "information"))
        await closed.wait()  # a stop cancels the scope around us instead

    def _closed_status(self, spec: ServerSpec, session: McpSession, error: str | None) -> None:
        info = session.closed
        if info is None:
            self._fail(spec, error or "the connection ended")
        elif info.expected and error is None:
            self._set(
                ConnectionStatus("disconnected", spec.name, describe_spec(spec), detail="closed by the inspector")
            )
        elif info.expected:
            # we closed it because the handshake failed; it may have died first, so keep the exit facts
            detail = (error or info.reason).split("\nlast stderr lines:")[0]
            self._set(
                ConnectionStatus(
                    "failed",
                    spec.name,
                    describe_spec(spec),
                    None,
                    self.status.pid,
                    info.exit_code,
                    info.signal,
                    detail,
                    list(info.stderr_tail)[-5:],
                )
            )
        else:
            state = "failed" if self.status.state in ("connecting", "initializing") else "exited"
            self._set(
                ConnectionStatus(
                    state,
                    spec.name,
                    describe_spec(spec),
                    self.status.protocol_version,
                    self.status.pid,
                    info.exit_code,
                    info.signal,
                    info.reason,
                    list(info.stderr_tail)[-5:],
                )
            )

    def _fail(self, spec: ServerSpec, message: str) -> None:
        self._set(ConnectionStatus("failed", spec.name, describe_spec(spec), detail=message))

    # -- status --------------------------------------------------------
    def _set(self, status: ConnectionStatus) -> None:
        status.in_flight = self.status.in_flight
        if not status.transport and status.server == self.status.server:
            status.transport = self.status.transport
        self.status = status
        self.post(ConnectionChanged(status))

    def _update(self, **changes: Any) -> None:
        current = self.status
        fields = {**current.__dict__, **changes}
        self._set(ConnectionStatus(**fields))
