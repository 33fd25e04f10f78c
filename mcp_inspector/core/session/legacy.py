"""The MCP session (legacy era, 2024-11-05 to 2025-11-25) over an RpcConnection.

It does the handshake, keeps what the server declared, fetches lists through
every page, re-fetches them when the server says they changed (and works out
what changed), and calls tools with argument and output validation. It emits
``events`` to listeners; the frames themselves go to the traffic store.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import anyio
import anyio.abc

from ... import __version__
from ..protocol.errors import ConnectError, ConnectionLost, InspectorError, ProtocolViolation
from ..protocol.rpc import PendingRequest, RequestHandler, RpcConnection
from ..protocol.versions import LATEST_LEGACY, LEGACY_VERSIONS
from ..schema.validation import Issue, validate
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from ..transport.base import Closed, Transport
from .events import ListChanged, LogMessage, ResourceUpdated, ServerClosed, SessionEvent, SessionState, StateChanged
from .results import ToolResultView, analyze_tool_result
from .tooldiff import ListDiff, diff_items

CLIENT_INFO = {"name": "mcp-inspector", "title": "MCP Inspector", "version": __version__}
MAX_PAGES = 10_000

# list kind -> (method, result key, capability that declares it, list_changed notification)
LISTS = {
    "tools": ("tools/list", "tools", "tools", "notifications/tools/list_changed"),
    "prompts": ("prompts/list", "prompts", "prompts", "notifications/prompts/list_changed"),
    "resources": ("resources/list", "resources", "resources", "notifications/resources/list_changed"),
    "resource_templates": ("resources/templates/list", "resourceTemplates", "resources", "notifications/resources/list_changed"),
}
_CHANGED = {notification: [k for k, v in LISTS.items() if v[3] == notification] for notification in {v[3] for v in LISTS.values()}}

# server-to-client method -> client capability it needs
HANDLER_CAPABILITIES = {
    "roots/list": ("roots", {"listChanged": True}),
    "sampling/createMessage": ("sampling", {}),
    "elicitation/create": ("elicitation", {"form": {}}),
}

Listener = Callable[[SessionEvent], None]


class PaginationError(ProtocolViolation):
    def __init__(self, message: str, items: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.items = items


@dataclass(slots=True)
class ToolCallOutcome:
    """A finished ``tools/call``: the raw result plus what we made of it."""

    name: str
    arguments: dict[str, Any]
    result: dict[str, Any]
    view: ToolResultView
    argument_issues: list[Issue] = field(default_factory=list)
    elapsed_ms: float = 0.0
    request: PendingRequest | None = None

    @property
    def is_error(self) -> bool:
        return self.view.is_error


class McpSession:
    """One connection to one server. Use as ``async with McpSession(transport) as s``."""

    def __init__(
        self,
        transport: Transport,
        *,
        store: TrafficStore | None = None,
        timeout: float | None = 60.0,
        init_timeout: float | None = 30.0,
        protocol_version: str = LATEST_LEGACY,
        client_info: dict[str, Any] | None = None,
        handlers: dict[str, RequestHandler] | None = None,
        auto_refresh: bool = True,
    ) -> None:
        self.store = store if store is not None else TrafficStore()
        self.connection = RpcConnection(transport, self.store, default_timeout=timeout)
        self.transport = transport
        self.timeout = timeout
        self.init_timeout = init_timeout
        self.proposed_version = protocol_version
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
        self.lists: dict[str, list[dict[str, Any]]] = {}
        self._listeners: list[Listener] = []
        self._task_group: anyio.abc.TaskGroup | None = None
        # list kind -> "running" (a refetch is under way) or "again" (another is due after it)
        self._refresh: dict[str, str] = {}
        self.connection.add_notification_listener(self._on_notification)
        self.connection.add_close_listener(self._on_closed)

    # -- listeners -----------------------------------------------------
    def add_listener(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _emit(self, event: SessionEvent) -> None:
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception as exc:  # a listener bug must not stop the reader (events come from it)
                self.store.note(f"error in a session listener: {exc.__class__.__name__}: {exc}", listener_error=True)

    def _set_state(self, state: SessionState, detail: str = "") -> None:
        self.state = state
        self._emit(StateChanged(state, detail))

    # -- lifecycle -----------------------------------------------------
    async def __aenter__(self) -> "McpSession":
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        try:
            self._set_state(SessionState.CONNECTING, self.transport.description)
            await self.connection.start(self._task_group)
        except BaseException as exc:
            self._set_state(SessionState.FAILED, str(exc))
            self._task_group.cancel_scope.cancel()
            await self._task_group.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        with anyio.CancelScope(shield=True):
            await self.connection.aclose()
        assert self._task_group is not None
        self._task_group.cancel_scope.cancel()
        return await self._task_group.__aexit__(*exc_info)

    async def close(self) -> None:
        await self.connection.aclose()

    @property
    def closed(self) -> Closed | None:
        return self.connection.closed

    def client_capabilities(self) -> dict[str, Any]:
        caps: dict[str, Any] = {}
        for method, (name, value) in HANDLER_CAPABILITIES.items():
            if method in self.connection.handlers:
                caps[name] = value
        return caps

    async def initialize(self) -> dict[str, Any]:
        """The legacy handshake: ``initialize``, then ``notifications/initialized``."""
        self._set_state(SessionState.INITIALIZING, f"proposing {self.proposed_version}")
        params = {
            "protocolVersion": self.proposed_version,
            "capabilities": self.client_capabilities(),
            "clientInfo": self.client_info,
        }
        try:
            result = await self.connection.request("initialize", params, timeout=self.init_timeout)
        except InspectorError as exc:
            self._set_state(SessionState.FAILED, str(exc))
            raise
        version = result.get("protocolVersion")
        if version not in LEGACY_VERSIONS:
            message = (
                f"the server chose protocol version {version!r}, which mcp-inspector does not support "
                f"(supported: {', '.join(LEGACY_VERSIONS)})"
            )
            self._set_state(SessionState.FAILED, message)
            raise ConnectError(message)
        self.protocol_version = version
        self.connection.protocol_version = version
        self.initialize_result = result
        self.server_info = result.get("serverInfo") if isinstance(result.get("serverInfo"), dict) else {}
        self.capabilities = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        await self.connection.notify("notifications/initialized")
        self._set_state(SessionState.READY, f"protocol {version}")
        return result

    # -- lists ---------------------------------------------------------
    def supports(self, kind: str) -> bool:
        """Whether the server declared the capability behind a list kind."""
        return LISTS[kind][2] in self.capabilities

    async def list_all(self, kind: str, *, cause: str = "refresh") -> list[dict[str, Any]]:
        """Fetch every page of a list, update our copy and emit ListChanged."""
        method, key, _, _ = LISTS[kind]
        before = self.lists.get(kind)
        try:
            items = await self._paginate(method, key)
        except PaginationError as exc:
            self._store_list(kind, exc.items, before, cause, str(exc))
            raise
        self._store_list(kind, items, before, cause, None)
        return items

    def _store_list(self, kind: str, items: list[dict[str, Any]], before: list[dict[str, Any]] | None, cause: str, error: str | None) -> None:
        self.lists[kind] = items
        diff = diff_items(before or [], items) if before is not None else ListDiff(added=list(items))
        self._emit(ListChanged(kind, items, diff, "initial" if before is None and cause == "refresh" else cause, error))

    async def _paginate(self, method: str, key: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = {"cursor": cursor} if cursor is not None else None
            result = await self.connection.request(method, params)
            page = result.get(key)
            if not isinstance(page, list):
                raise PaginationError(f"{method} result has no `{key}` array", items)
            items.extend(item for item in page if isinstance(item, dict))
            cursor = result.get("nextCursor")
            if cursor is None or (cursor == "" and self.protocol_version in LEGACY_VERSIONS):
                return items
            if not isinstance(cursor, str):
                raise PaginationError(f"{method}: nextCursor must be a string, got {cursor!r}", items)
            if cursor in seen:
                raise PaginationError(f"{method}: cursor loop, the server returned cursor {cursor!r} twice (stopped after {len(seen) + 1} pages)", items)
            seen.add(cursor)
        raise PaginationError(f"{method}: more than {MAX_PAGES} pages, stopped", items)

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self.list_all("tools")

    async def list_prompts(self) -> list[dict[str, Any]]:
        return await self.list_all("prompts")

    async def list_resources(self) -> list[dict[str, Any]]:
        return await self.list_all("resources")

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        return await self.list_all("resource_templates")

    def tool(self, name: str) -> dict[str, Any] | None:
        for tool in self.lists.get("tools", []):
            if tool.get("name") == name:
                return tool
        return None

    # -- tools ---------------------------------------------------------
    def check_arguments(self, name: str, arguments: dict[str, Any]) -> list[Issue]:
        """Validate arguments against the tool's inputSchema (a warning, never a block)."""
        tool = self.tool(name)
        if tool is None:
            return []
        return validate(tool.get("inputSchema"), arguments)

    async def begin_tool_call(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> PendingRequest:
        params: dict[str, Any] = {"name": name, "arguments": arguments if arguments is not None else {}}
        options.setdefault("progress", True)
        return await self.connection.send_request("tools/call", params, **options)

    async def finish_tool_call(self, pending: PendingRequest) -> ToolCallOutcome:
        """Wait for a call started with begin_tool_call; JSON-RPC errors raise."""
        result = await pending.wait()
        params = pending.params or {}
        name = params.get("name", "")
        arguments = params.get("arguments") or {}
        view = analyze_tool_result(result, self.tool(name))
        return ToolCallOutcome(name, arguments, result, view, self.check_arguments(name, arguments), pending.elapsed * 1000, pending)

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> ToolCallOutcome:
        return await self.finish_tool_call(await self.begin_tool_call(name, arguments, **options))

    # -- other requests ------------------------------------------------
    async def ping(self, **options: Any) -> dict[str, Any]:
        return await self.connection.request("ping", None, **options)

    async def read_resource(self, uri: str, **options: Any) -> dict[str, Any]:
        return await self.connection.request("resources/read", {"uri": uri}, **options)

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None, **options: Any) -> dict[str, Any]:
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = arguments
        return await self.connection.request("prompts/get", params, **options)

    async def subscribe(self, uri: str) -> dict[str, Any]:
        return await self.connection.request("resources/subscribe", {"uri": uri})

    async def unsubscribe(self, uri: str) -> dict[str, Any]:
        return await self.connection.request("resources/unsubscribe", {"uri": uri})

    async def set_log_level(self, level: str) -> dict[str, Any]:
        return await self.connection.request("logging/setLevel", {"level": level})

    async def complete(self, ref: dict[str, Any], argument: dict[str, str], context: dict[str, Any] | None = None) -> dict[str, Any]:
        params: dict[str, Any] = {"ref": ref, "argument": argument}
        if context:
            params["context"] = context
        return await self.connection.request("completion/complete", params)

    async def request(self, method: str, params: dict | None = None, **options: Any) -> dict[str, Any]:
        """Any request, for the raw composer."""
        return await self.connection.request(method, params, **options)

    # -- server-initiated traffic ---------------------------------------
    def _on_notification(self, method: str, params: dict | None, entry: TrafficEntry) -> None:
        kinds = _CHANGED.get(method)
        if kinds is not None:
            if self.auto_refresh and self.state is SessionState.READY:
                for kind in kinds:
                    self._schedule_refresh(kind)
        elif method == "notifications/message" and params is not None:
            self._emit(LogMessage(str(params.get("level", "info")), params.get("logger"), params.get("data"), entry.seq))
        elif method == "notifications/resources/updated" and params is not None:
            self._emit(ResourceUpdated(str(params.get("uri", "")), entry.seq))

    def _schedule_refresh(self, kind: str) -> None:
        """Coalesce bursts: one refetch runs at a time, plus at most one queued."""
        if kind in self._refresh:
            self._refresh[kind] = "again"
            return
        self._refresh[kind] = "running"
        assert self._task_group is not None
        self._task_group.start_soon(self._refresh_loop, kind)

    async def _refresh_loop(self, kind: str) -> None:
        try:
            while True:
                self._refresh[kind] = "running"
                try:
                    await self.list_all(kind, cause="notification")
                except ConnectionLost:
                    return
                except InspectorError:
                    pass  # the ListChanged event (or the log) already carries the failure
                if self._refresh[kind] != "again":
                    return
        finally:
            self._refresh.pop(kind, None)

    def _on_closed(self, closed: Closed) -> None:
        self._set_state(SessionState.CLOSED, closed.reason)
        self._emit(ServerClosed(closed, closed.stderr_tail))


