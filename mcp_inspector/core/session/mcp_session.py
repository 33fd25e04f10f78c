"""The MCP session over an RpcConnection, in either era.

It connects (the legacy ``initialize`` handshake, 2024-11-05 to 2025-11-25, or
the 2026-07-28 era found with ``server/discover``: see era.py and modern.py),
keeps what the server declared, fetches lists through every page, re-fetches
them when the server says they changed (and works out what changed), and calls
tools with argument and output validation (answering MRTR rounds: mrtr.py). It
emits ``events`` to listeners; the frames themselves go to the traffic store.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
import anyio.abc

from ... import __version__
from ..base.errors import ConnectError, InspectorError, ProtocolViolation, RpcError, ToolExcluded
from ..protocol.rpc import PendingRequest, RequestHandler, RpcConnection
from ..protocol.versions import LEGACY_VERSIONS
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from ..transport.base import Closed, Transport
from . import era as era_detection
from . import modern, mrtr, tasks
from .events import (
    ELICITATION_COMPLETE,
    LogMessage,
    ResourceUpdated,
    ServerClosed,
    SessionEvent,
    SessionState,
    StateChanged,
)
from .listing import CHANGED, Lister
from .subscriptions import Subscriptions
from .task_model import TaskRecord

if TYPE_CHECKING:  # tool calls' modules: loaded by the first call, not by every command (~5 ms cold)
    from ..schema.validation import Issue
    from .results import ToolResultView

CLIENT_INFO = {"name": "mcp-inspector", "title": "MCP Inspector", "version": __version__}
MAX_COUNTED_URIS = 10_000  # URIs whose updates are counted (a server inventing URIs must not grow the counts)

# server-to-client method -> client capability it needs
HANDLER_CAPABILITIES = {
    "roots/list": ("roots", {"listChanged": True}),
    "sampling/createMessage": ("sampling", {}),
    "elicitation/create": ("elicitation", {"form": {}}),
}

Listener = Callable[[SessionEvent], None]


@dataclass(slots=True)
class ToolCallOutcome:
    """A finished ``tools/call``: the raw result plus what we made of it."""

    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    view: ToolResultView
    argument_issues: list[Issue] = field(default_factory=list)
    elapsed_ms: float = 0.0
    request: PendingRequest | None = None  # the first request (MRTR retries are in ``rounds``)
    rounds: list[PendingRequest] = field(default_factory=list)  # every request sent, the first included
    note: str | None = None  # e.g. a result of an extension's resultType, shown as it came
    task_id: str | None = None  # the task the call ran as (tasks.py), if it did

    @property
    def is_error(self) -> bool:
        return self.view.is_error


class McpSession:
    """One connection to one server. Use as ``async with McpSession(transport) as s``.

    It owns two collaborators and forwards their public methods, so callers keep one object:
    ``lister`` (listing.Lister: ``lists``, ``list_all``, refetch on list_changed) and
    ``task_tracker`` (tasks.TaskTracker: ``tasks``, ``task_support``, ``get_task``...)."""

    def __init__(
        self,
        transport: Transport,
        *,
        store: TrafficStore | None = None,
        timeout: float | None = 60.0,
        init_timeout: float | None = 30.0,
        protocol_version: str | None = None,
        client_info: dict[str, Any] | None = None,
        handlers: dict[str, RequestHandler] | None = None,
        auto_refresh: bool = True,
        era: str = "auto",
        discover_timeout: float = era_detection.DISCOVER_TIMEOUT,
        era_hint: str | None = None,
    ) -> None:
        """``era_hint``: the era the server spoke last time (config/eras.py); with ``era="auto"`` a
        legacy hint sends ``initialize`` first instead of probing with ``server/discover``."""
        self.store = store if store is not None else TrafficStore()
        self.connection = RpcConnection(transport, self.store, default_timeout=timeout)
        self.transport = transport
        self.timeout = timeout
        self.init_timeout = init_timeout
        self.proposed_version = protocol_version
        #: The era asked for ("auto", "legacy", "modern"), why when it was given, and the
        #: contradiction initialize() reports (era and protocol_version disagreeing).
        self.requested_era, self.era_given, self._era_error = era_detection.resolve(era, protocol_version)
        self.discover_timeout = discover_timeout
        self.era_hint = era_hint
        self.client_info = client_info or CLIENT_INFO
        self.auto_refresh = auto_refresh
        for method, handler in (handlers or {}).items():
            self.connection.handlers[method] = handler
        self.state = SessionState.IDLE
        self.protocol_version: str | None = None
        self.server_info: dict[str, Any] = {}
        self.capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.initialize_result: dict[str, Any] | None = None
        self.era: str | None = None  # "legacy" or "modern" once connected
        self.era_reason = ""  # one sentence: why this era
        self.discover_result: dict[str, Any] | None = None
        self.cache_info: dict[str, dict[str, Any]] = {}  # method -> {ttlMs, cacheScope} of its last result
        self.log_level: str | None = None  # modern: sent in every request's _meta
        self.subscription_ack: dict[str, Any] | None = None  # what the server honours on subscriptions/listen
        self.subscriptions = Subscriptions(self)
        # resource URIs we asked the server to tell us about (either era), and how many
        # notifications/resources/updated arrived for each URI (subscribed or not)
        self.subscribed: set[str] = set()
        self.resource_updates: dict[str, int] = {}
        # elicitationId -> seq of the notifications/elicitation/complete that said it is done
        self.completed_elicitations: dict[str, int] = {}
        self.meta_version: str | None = None  # the version put in every request's _meta (modern)
        self._reinitializing = False
        self._listeners: list[Listener] = []
        self.task_group: anyio.abc.TaskGroup | None = None
        self.lister = Lister(self)
        self.task_tracker = tasks.TaskTracker(self, self.lister)
        self.connection.add_notification_listener(self._on_notification)
        self.connection.add_close_listener(self._on_closed)
        self.connection.meta_provider = self._add_meta
        transport.on_session_expired = self._on_session_expired

    # -- listeners -----------------------------------------------------
    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception as exc:  # a listener bug must not stop the reader (events come from it)
                self.store.note(f"error in a session listener: {exc.__class__.__name__}: {exc}", listener_error=True)

    def _set_state(self, state: SessionState, detail: str = "") -> None:
        self.state = state
        self.emit(StateChanged(state, detail))

    # -- lifecycle -----------------------------------------------------
    async def __aenter__(self) -> McpSession:
        self.task_group = anyio.create_task_group()
        await self.task_group.__aenter__()
        try:
            self._set_state(SessionState.CONNECTING, self.transport.description)
            await self.connection.start(self.task_group)
        except BaseException as exc:
            self._set_state(SessionState.FAILED, str(exc))
            self.task_group.cancel_scope.cancel()
            await self.task_group.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self.task_group is not None
        try:
            with anyio.CancelScope(shield=True):
                await self.connection.aclose()
        except BaseException as exc:
            # A cancellation from outside anyio (Textual cancelling the worker again while the
            # server shuts down) reaches into the shield: the task group must still be exited,
            # or anyio keeps its scope, the finished task and all it refers to for ever.
            self.task_group.cancel_scope.cancel()
            await self.task_group.__aexit__(type(exc), exc, exc.__traceback__)
            raise
        self.task_group.cancel_scope.cancel()
        return await self.task_group.__aexit__(*exc_info)

    async def close(self) -> None:
        await self.connection.aclose()

    @property
    def closed(self) -> Closed | None:
        return self.connection.closed

    async def wait_closed(self) -> Closed:
        """Until the connection has closed and the transport said how the server ended (its exit
        status, its stderr). An event, not a poll: the caller bounds the wait."""
        closed = self.connection.closed
        if closed is None:
            ended = anyio.Event()
            self.connection.add_close_listener(lambda _event: ended.set())
            await ended.wait()
            closed = self.connection.closed
        assert closed is not None
        return closed

    def client_capabilities(self) -> dict[str, Any]:
        if self.meta_version is not None:
            return modern.client_capabilities(self.connection.handlers)
        caps: dict[str, Any] = {}
        for method, (name, value) in HANDLER_CAPABILITIES.items():
            if method in self.connection.handlers:
                caps[name] = modern.declared_value(self.connection.handlers[method], value)
        caps["tasks"] = dict(tasks.LEGACY_CLIENT_CAPABILITY)  # what that means: tasks.py
        return caps

    async def initialize(self) -> dict[str, Any]:
        """Connect: find the era (``auto``) and do what it needs (``initialize`` and
        ``notifications/initialized``, or ``server/discover``). Returns that result."""
        self._set_state(SessionState.INITIALIZING, f"proposing {self.proposed_version or 'auto'}")
        try:
            if self._era_error is not None:
                raise ConnectError(self._era_error)
            result = await era_detection.connect(self)
        except InspectorError as exc:
            self._set_state(SessionState.FAILED, str(exc))
            raise
        self._set_state(SessionState.READY, f"protocol {self.protocol_version}")
        if self.era == "modern" and self.auto_refresh:
            self.subscriptions.start()
        return result

    async def send_initialize(self, version: str, reason: str) -> dict[str, Any]:
        """The legacy handshake: ``initialize``, then ``notifications/initialized``."""
        self.meta_version = None
        params = {
            "protocolVersion": version,
            "capabilities": self.client_capabilities(),
            "clientInfo": self.client_info,
        }
        result = await self.connection.request("initialize", params, timeout=self.init_timeout)
        version = result.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            raise ConnectError(
                f"the server chose protocol version {version!r}, which mcp-inspector does not support "
                f"(supported: {', '.join(LEGACY_VERSIONS)})"
            )
        self.era, self.era_reason = "legacy", reason
        self.protocol_version = version
        self.connection.protocol_version = version
        self.transport.set_protocol_version(version)
        self.initialize_result = result
        self.server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {}
        self.capabilities = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        await self.connection.notify("notifications/initialized")
        return result

    async def send_discover(self, version: str, timeout: float | None) -> dict[str, Any]:
        """``server/discover`` with ``version`` in its _meta (the probe of era.connect)."""
        self.meta_version = version
        self.transport.set_protocol_version(version)
        try:
            return await self.connection.request("server/discover", None, timeout=timeout)
        except BaseException:
            self.meta_version = None
            self.transport.set_protocol_version(None)
            raise

    def become_modern(self, version: str, result: dict[str, Any], reason: str) -> None:
        self.era, self.era_reason = "modern", reason
        self.meta_version = version
        self.protocol_version = version
        self.connection.protocol_version = version
        self.connection.initialized = True
        self.connection.modern = True
        self.transport.set_protocol_version(version)
        self.discover_result = result
        self.capabilities = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        self._accept("server/discover", result)

    # -- the modern request path -----------------------------------------
    def request_meta(self) -> dict[str, Any] | None:
        """The ``_meta`` a modern request carries now (None in the legacy era), for
        callers that build frames themselves (``pipe``, the raw composer)."""
        if self.meta_version is None:
            return None
        return modern.request_meta(self.meta_version, self.client_capabilities(), self.client_info, self.log_level)

    def _add_meta(self, method: str, params: dict[str, Any] | None) -> dict | None:
        """Every request in the modern era carries version, capabilities and identity."""
        meta = self.request_meta()
        return params if meta is None else modern.add_request_meta(params, meta)

    def _accept(self, method: str, result: dict[str, Any], reply: TrafficEntry | None = None) -> str | None:
        """Take in a final modern result: its serverInfo and cache facts; judge its
        resultType (an unknown one raises). Returns a note for an extension's type."""
        if self.era != "modern":
            return None
        info = modern.server_info_of(result)
        if info is not None:
            self.server_info = info
        facts = modern.cache_facts(result)
        if facts is not None:
            self.cache_info[method] = facts
        try:
            note = modern.check_result_type(method, result)
        except ProtocolViolation as exc:  # an invalid result (e.g. a task to prompts/get): marked in the traffic too
            self.store.flag(reply, str(exc))
            raise
        if note is not None:
            self.store.note(f"{method}: {note}", result_type=result.get("resultType"))
            if reply is not None and not modern.declares_result_type(
                self.client_capabilities(), result.get("resultType")
            ):
                # an extension the client did not declare: the server broke the rule
                self.store.flag(reply, modern.undeclared_result_type(result))
        return note

    async def begin_request(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> PendingRequest:
        """Send any request (with the modern _meta in that era); finish_request waits."""
        return mrtr.remember(await self.connection.send_request(method, params, **options), params, options)

    async def finish_request(self, pending: PendingRequest) -> dict[str, Any]:
        """The final result of a request started with begin_request: MRTR rounds answered
        (tools/call, prompts/get, resources/read in 2026-07-28; the last request sent is at
        the end of ``pending.successor``), resultType judged, serverInfo and cache facts kept."""
        last = pending
        if self.era == "modern" and pending.method in modern.MRTR_METHODS:
            outcome = await mrtr.complete(self, pending)
            result, last = outcome.result, outcome.rounds[-1]
        else:
            result = await pending.wait()
        self._accept(pending.method, result, last.reply)
        return result

    async def _call(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
        """A request and its result, through MRTR rounds where the era allows them."""
        return await self.finish_request(await self.begin_request(method, params, **options))

    # -- lists (listing.Lister) ------------------------------------------
    @property
    def lists(self) -> dict[str, list[dict[str, Any]]]:
        """List kind -> its items as last fetched."""
        return self.lister.lists

    @property
    def excluded_tools(self) -> dict[str, str]:
        """2026-07-28 HTTP: tools left out of ``lists["tools"]``, and why."""
        return self.lister.excluded_tools

    def supports(self, kind: str) -> bool:
        return self.lister.supports(kind)

    async def list_all(self, kind: str, *, cause: str = "refresh") -> list[dict[str, Any]]:
        return await self.lister.list_all(kind, cause=cause)

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self.lister.list_all("tools")

    async def list_prompts(self) -> list[dict[str, Any]]:
        return await self.lister.list_all("prompts")

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self.lister.list_all("resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        return await self.lister.list_all("resource_templates")

    def tool(self, name: str) -> dict[str, Any] | None:
        for tool in self.lists.get("tools", []):
            if tool.get("name") == name:
                return tool
        return None

    # -- tasks (tasks.TaskTracker) ---------------------------------------
    @property
    def tasks(self) -> dict[str, TaskRecord]:
        """Task id -> its record: every task seen in this session (tasks.py)."""
        return self.task_tracker.records

    def task_support(self, tool_name: str) -> str:
        return self.task_tracker.task_support(tool_name)

    def can_list_tasks(self) -> bool:
        return self.task_tracker.can_list_tasks()

    async def get_task(self, task_id: str, *, source: str = "poll", **options: Any) -> TaskRecord:
        return await self.task_tracker.get_task(task_id, source=source, **options)

    async def cancel_task(self, task_id: str, reason: str = "tasks/cancel was sent", **options: Any) -> TaskRecord:
        return await self.task_tracker.cancel_task(task_id, reason, **options)

    async def task_result(self, task_id: str, **options: Any) -> dict[str, Any]:
        return await self.task_tracker.task_result(task_id, **options)

    async def list_tasks(self) -> list[TaskRecord]:
        return await self.task_tracker.list_tasks()

    # -- tools ---------------------------------------------------------
    def check_arguments(self, name: str, arguments: dict[str, Any]) -> list[Issue]:
        """Validate arguments against the tool's inputSchema (a warning, never a block); a pattern
        that could not be checked is one more warning, at ``$``."""
        tool = self.tool(name)
        if tool is None:
            return []
        from ..schema.validation import Issue, check

        verdict = check(tool.get("inputSchema"), arguments)
        return verdict.issues + [Issue("$", note) for note in verdict.unchecked]

    async def begin_tool_call(
        self, name: str, arguments: dict[str, Any] | None = None, *, as_task: bool | None = None, **options: Any
    ) -> PendingRequest:
        """Send ``tools/call``; the PendingRequest is the first request (MRTR retries,
        if the server asks for input, are sent by finish_tool_call). Legacy: ``as_task``
        None asks for a task when the tool requires one, True when it allows one (tasks.py)."""
        if name in self.excluded_tools:
            raise ToolExcluded(name, self.excluded_tools[name])
        params: dict[str, Any] = {"name": name, "arguments": arguments if arguments is not None else {}}
        task_ttl = options.pop("task_ttl", None)
        if self.era != "modern" and tasks.wants_task(self.task_support(name), as_task):
            params["task"] = {} if task_ttl is None else {"ttl": int(task_ttl)}
        options.setdefault("progress", True)
        if self.era == "modern" and self.transport.kind == "http" and "transport_meta" not in options:
            try:
                headers = modern.tool_param_headers(self.tool(name), params["arguments"])
            except ImportError:
                headers = {}
            if headers:
                options["transport_meta"] = {"headers": headers}
        return mrtr.remember(await self.connection.send_request("tools/call", params, **options), params, options)

    async def finish_tool_call(self, pending: PendingRequest) -> ToolCallOutcome:
        """Wait for a call started with begin_tool_call (answering MRTR rounds in the
        modern era, following a task to its end: tasks.py); JSON-RPC errors raise."""
        try:
            return await self._finish_tool_call(pending)
        except RpcError as exc:  # -32042 raises UrlElicitationRequired: the URLs to complete, the call to retry
            from . import url_elicitation

            raise url_elicitation.url_required(exc, getattr(pending, "mrtr_params", None) or pending.params) from None

    async def _finish_tool_call(self, pending: PendingRequest) -> ToolCallOutcome:
        started = time.perf_counter() - pending.elapsed
        record = None
        if self.era == "modern":
            outcome = await mrtr.complete(self, pending)
            result, rounds = outcome.result, outcome.rounds
            if modern.result_type("tools/call", result) == "task":
                result, record = await self.task_tracker.follow(pending, result, rounds[-1])
                note = None
            else:
                note = self._accept("tools/call", result, rounds[-1].reply)
        else:
            result, rounds, note = await pending.wait(), [pending], None
            if tasks.is_create_task_result(result):
                result, record = await self.task_tracker.follow(pending, result, pending)
        params = getattr(pending, "mrtr_params", None) or pending.params or {}
        name = params.get("name", "")
        arguments = params.get("arguments") or {}
        from .results import analyze_tool_result

        view = analyze_tool_result(result, self.tool(name))
        elapsed = (time.perf_counter() - started) * 1000 if len(rounds) > 1 or record else pending.elapsed * 1000
        return ToolCallOutcome(
            name,
            arguments,
            result,
            view,
            self.check_arguments(name, arguments),
            elapsed,
            pending,
            rounds,
            note,
            record.task_id if record is not None else None,
        )

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> ToolCallOutcome:
        return await self.finish_tool_call(await self.begin_tool_call(name, arguments, **options))

    # -- other requests ------------------------------------------------
    async def ping(self, **options: Any) -> dict[str, Any]:
        """A round trip: ``ping``, or in 2026-07-28 (which has no ping) ``server/discover``."""
        if self.era == "modern":
            return await self._call("server/discover", None, **options)
        return await self.connection.request("ping", None, **options)

    async def read_resource(self, uri: str, **options: Any) -> dict[str, Any]:
        return await self._call("resources/read", {"uri": uri}, **options)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, **options: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self._call("prompts/get", params, **options)

    async def subscribe(self, uri: str, **options: Any) -> dict[str, Any]:
        """``resources/subscribe`` (``options``: the request's, e.g. ``timeout``); in 2026-07-28
        the URI joins the subscriptions/listen filter."""
        if self.era == "modern":
            if uri not in self.subscriptions.uris:
                self.subscriptions.uris.append(uri)
                await self.subscriptions.update()
            self.subscribed.add(uri)
            return {}
        result = await self.connection.request("resources/subscribe", {"uri": uri}, **options)
        self.subscribed.add(uri)
        return result

    async def unsubscribe(self, uri: str) -> dict[str, Any]:
        if self.era == "modern":
            if uri in self.subscriptions.uris:
                self.subscriptions.uris.remove(uri)
                await self.subscriptions.update()
            self.subscribed.discard(uri)
            return {}
        result = await self.connection.request("resources/unsubscribe", {"uri": uri})
        self.subscribed.discard(uri)
        return result

    async def set_log_level(self, level: str) -> dict[str, Any]:
        """``logging/setLevel``; in 2026-07-28 the level goes in every request's _meta."""
        if self.era == "modern":
            self.log_level = level
            return {}
        return await self.connection.request("logging/setLevel", {"level": level})

    async def complete(
        self, ref: dict[str, Any], argument: dict[str, str], context: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        params: dict[str, Any] = {"ref": ref, "argument": argument}
        if context:
            params["context"] = context
        return await self._call("completion/complete", params)

    async def request(self, method: str, params: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
        """Any request, for the raw composer."""
        return await self._call(method, params, **options)

    # -- server-initiated traffic ---------------------------------------
    def _on_notification(self, method: str, params: dict[str, Any] | None, entry: TrafficEntry) -> None:
        if self.era == "modern":
            route = self.subscriptions.route(method, params, entry)
            if route == "acknowledged" or (route == "listen" and method == "notifications/cancelled"):
                return
            if route is None and (method in CHANGED or method == "notifications/resources/updated"):
                self.store.flag(
                    entry, "not tagged with the subscriptionId of an open subscriptions/listen stream (2026-07-28)"
                )
                return
            if route is None and method == "notifications/cancelled":
                self.store.flag(
                    entry,
                    "references no subscriptions/listen stream: a 2026-07-28 server sends "
                    "notifications/cancelled only to end one (cancellation.mdx)",
                )
                return
        kinds = CHANGED.get(method)
        if kinds is not None:
            if self.auto_refresh and self.state is SessionState.READY:
                for kind in kinds:
                    self.lister.changed(kind)
        elif method == "notifications/message" and params is not None:
            self.emit(LogMessage(str(params.get("level", "info")), params.get("logger"), params.get("data"), entry.seq))
        elif method == "notifications/resources/updated" and params is not None:
            uri = str(params.get("uri", ""))
            if uri in self.resource_updates or len(self.resource_updates) < MAX_COUNTED_URIS:
                self.resource_updates[uri] = self.resource_updates.get(uri, 0) + 1
            self.emit(ResourceUpdated(uri, entry.seq))
        elif method == ELICITATION_COMPLETE:
            from . import url_elicitation

            url_elicitation.note_complete(self, params, entry)
        elif method in tasks.STATUS_NOTIFICATIONS and params is not None:
            self.task_tracker.on_status(method, params, entry)

    def _on_session_expired(self) -> None:
        """The HTTP server ended the legacy session (404): handshake again, once at a time."""
        if self.era != "legacy" or self._reinitializing or self.task_group is None or self.closed is not None:
            return
        self._reinitializing = True
        self.task_group.start_soon(self._reinitialize)

    async def _reinitialize(self) -> None:
        try:
            assert self.protocol_version is not None
            await self.send_initialize(self.protocol_version, self.era_reason)
            self.store.note("the server ended the session (HTTP 404): re-initialized", session_expired=True)
        except Exception as exc:  # anything: this runs in the session's task group
            self.store.note(
                f"the server ended the session (HTTP 404); initializing again failed: {exc}", session_expired=True
            )
        finally:
            self._reinitializing = False

    def _on_closed(self, closed: Closed) -> None:
        self._set_state(SessionState.CLOSED, closed.reason)
        self.emit(ServerClosed(closed, closed.stderr_tail))
