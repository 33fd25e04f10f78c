"""The JSON-RPC engine: reads messages, dispatches requests, correlates replies.

Each incoming request runs in its own asyncio task so a slow tool never
blocks others, and ``notifications/cancelled`` can cancel exactly one task.
Server->client requests get ids ``demo-N`` and wait on a future until the
client's response (or a timeout) arrives.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
from typing import BinaryIO

from . import completions, handshake, prompts, tasks
from .errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    ClientRpcError,
    RpcError,
)
from .paging import paginate
from .resources import CLOCK_URI, ResourceStore
from .stdio import StdioTransport
from .tools.kit import LOG_LEVELS
from .tools.registry import ToolRegistry


class Options:
    """Settings from the command line (see ``__main__``)."""

    def __init__(
        self,
        tools_page_size: int = 0,
        resources_page_size: int = 0,
        prompts_page_size: int = 0,
        client_timeout: float = 60.0,
        log_level: str = "debug",
        shutdown_grace: float = 1.0,
        verbose: bool = False,
        tick_interval: float = 1.0,
        tasks_page_size: int = 0,
        task_ttl_ms: int = 300_000,
        task_poll_interval_ms: int = 1000,
    ) -> None:
        self.tools_page_size = tools_page_size
        self.resources_page_size = resources_page_size
        self.prompts_page_size = prompts_page_size
        self.client_timeout = client_timeout
        self.log_level = log_level
        self.shutdown_grace = shutdown_grace
        self.verbose = verbose
        self.tick_interval = tick_interval  # seconds between demo://clock updates while subscribed
        self.tasks_page_size = tasks_page_size
        self.task_ttl_ms = task_ttl_ms  # when params.task has no ttl
        self.task_poll_interval_ms = task_poll_interval_ms  # the pollInterval we suggest


def stderr(message: str) -> None:
    """Diagnostics go to stderr only; stdout carries nothing but JSON-RPC."""
    print(f"[mcp-inspector-demo] {message}", file=sys.stderr, flush=True)


class RequestContext:
    """What a tool handler may do while serving one request."""

    def __init__(self, server: DemoServer, params: dict) -> None:
        self._server = server
        meta = params.get("_meta")
        self.progress_token = meta.get("progressToken") if isinstance(meta, dict) else None
        self.resources = server.resources
        self.task: tasks.DemoTask | None = None  # set when this tools/call runs as a task

    @property
    def client_capabilities(self) -> dict:
        return self._server.client_capabilities

    @property
    def protocol_version(self) -> str | None:
        return self._server.protocol_version

    @property
    def log_level(self) -> str:
        return self._server.log_level

    @property
    def client_timeout(self) -> float:
        return self._server.options.client_timeout

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> bool:
        """Send notifications/progress if the request asked for it."""
        if self.progress_token is None:
            return False
        params: dict = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        if self.task is not None:
            params["_meta"] = {tasks.RELATED_TASK: {"taskId": self.task.task_id}}
        self._server.notify("notifications/progress", params)
        return True

    def status(self, message: str) -> None:
        """Set the task's statusMessage (sends notifications/tasks/status); nothing outside a task."""
        if self.task is not None:
            self._server.tasks.set_message(self.task, message)

    def log(self, level: str, data: object, logger: str = "demo") -> bool:
        return self._server.log(level, data, logger)

    def notify(self, method: str, params: dict | None) -> None:
        self._server.notify(method, params)

    async def ask_client(self, method: str, params: dict) -> dict:
        if self.task is not None:
            return await self._server.tasks.ask(self.task, method, params)
        return await self._server.request_client(method, params)


class DemoServer:
    """One stdio connection's worth of MCP server state."""

    def __init__(self, options: Options, transport: StdioTransport) -> None:
        self.options = options
        self.transport = transport
        self.tools = ToolRegistry()
        self.resources = ResourceStore()
        self.tasks = tasks.TaskManager(
            self, options.task_ttl_ms, options.task_poll_interval_ms, options.tasks_page_size
        )
        self.protocol_version: str | None = None
        self.client_capabilities: dict = {}
        self.client_info: dict = {}
        self.initialized = False
        self.log_level = options.log_level
        self._inflight: dict[object, tuple[str, asyncio.Task]] = {}
        self._pending: dict[str, asyncio.Future] = {}
        self._next_id = 0
        self._ticker: asyncio.Task | None = None
        self._handlers = {
            "initialize": self._initialize,
            "ping": self._ping,
            "logging/setLevel": self._set_level,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
            "resources/list": self._resources_list,
            "resources/templates/list": self._templates_list,
            "resources/read": self._resources_read,
            "resources/subscribe": self._subscribe,
            "resources/unsubscribe": self._unsubscribe,
            "prompts/list": self._prompts_list,
            "prompts/get": self._prompts_get,
            "completion/complete": self._complete,
            "tasks/get": self._task_method(self.tasks.get),
            "tasks/result": self._task_method(self.tasks.result),
            "tasks/list": self._task_method(self.tasks.list),
            "tasks/cancel": self._task_method(self.tasks.cancel),
        }

    # -- main loop -------------------------------------------------------------

    async def run(self) -> int:
        """Serve until stdin reaches EOF (or stdout breaks); returns the exit code."""
        queue = self.transport.start()
        while True:
            line = await queue.get()
            if line is None:
                break
            self.handle_line(line)
        await self._shutdown()
        return 0

    async def _shutdown(self) -> None:
        """Let quick in-flight requests finish (piped input), then cancel the rest."""
        self._stop_ticker()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ConnectionError("the client closed the connection"))
        runners = self.tasks.shutdown()  # nobody is left to ask for their results
        inflight = [task for _, task in self._inflight.values()]
        if inflight:
            _, slow = await asyncio.wait(inflight, timeout=self.options.shutdown_grace)
            for task in slow:
                task.cancel()
            await asyncio.gather(*slow, return_exceptions=True)
        await asyncio.gather(*runners, return_exceptions=True)

    def handle_line(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError) as exc:
            self._send_error(None, RpcError(PARSE_ERROR, "Parse error", str(exc)))
            return
        if isinstance(message, list):
            self._send_error(None, RpcError(INVALID_REQUEST, "Batches are not supported"))
            return
        if not isinstance(message, dict):
            self._send_error(None, RpcError(INVALID_REQUEST, "A message must be a JSON object"))
            return
        self.handle_message(message)

    def handle_message(self, message: dict) -> None:
        msg_id = message.get("id")
        valid_id = isinstance(msg_id, (str, int)) and not isinstance(msg_id, bool)
        if message.get("jsonrpc") != "2.0":
            self._send_error(msg_id if valid_id else None, RpcError(INVALID_REQUEST, "jsonrpc must be '2.0'"))
            return
        method = message.get("method")
        if isinstance(method, str):
            if "id" not in message:
                self._on_notification(method, message.get("params"))
            elif not valid_id:
                self._send_error(None, RpcError(INVALID_REQUEST, "id must be a string or an integer"))
            else:
                self._start_request(msg_id, method, message.get("params"))
        elif valid_id and ("result" in message or "error" in message):
            self._on_response(msg_id, message)
        else:
            self._send_error(msg_id if valid_id else None, RpcError(INVALID_REQUEST, "Invalid request"))

    # -- incoming requests -----------------------------------------------------

    def _start_request(self, msg_id: object, method: str, params: object) -> None:
        if self.options.verbose:
            stderr(f"<- {method} (id {msg_id!r})")
        task = asyncio.create_task(self._run_request(msg_id, method, params))
        self._inflight[msg_id] = (method, task)
        task.add_done_callback(lambda t: self._forget(msg_id, t))

    def _forget(self, msg_id: object, task: asyncio.Task) -> None:
        if self._inflight.get(msg_id, (None, None))[1] is task:
            del self._inflight[msg_id]

    async def _run_request(self, msg_id: object, method: str, params: object) -> None:
        try:
            handler = self._handlers.get(method)
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
            if params is None:
                params = {}
            if not isinstance(params, dict):
                raise RpcError(INVALID_PARAMS, "params must be an object")
            result = await handler(params, RequestContext(self, params))
        except asyncio.CancelledError:
            if self.options.verbose:
                stderr(f"cancelled {method} (id {msg_id!r})")
            raise  # a cancelled request gets no response
        except RpcError as exc:
            self._send_error(msg_id, exc)
        except Exception as exc:  # noqa: BLE001 - report, never crash the loop
            traceback.print_exc(file=sys.stderr)
            self._send_error(msg_id, RpcError(INTERNAL_ERROR, f"Internal error: {exc}"))
        else:
            self._send({"jsonrpc": "2.0", "id": msg_id, "result": result})

    # -- incoming notifications and responses ------------------------------------

    def _on_notification(self, method: str, params: object) -> None:
        params = params if isinstance(params, dict) else {}
        if method == "notifications/initialized":
            self.initialized = True
        elif method == "notifications/cancelled":
            request_id = params.get("requestId")
            hashable = isinstance(request_id, (str, int)) and not isinstance(request_id, bool)
            entry = self._inflight.get(request_id) if hashable else None
            if entry and entry[0] != "initialize":  # initialize must not be cancelled
                entry[1].cancel()
        elif method == "notifications/roots/list_changed":
            self.log("info", "The client says its roots changed.", "demo.roots")
        elif self.options.verbose:
            stderr(f"ignored notification {method}")

    def _on_response(self, msg_id: object, message: dict) -> None:
        future = self._pending.get(msg_id) if isinstance(msg_id, str) else None
        if future is None or future.done():
            if self.options.verbose:
                stderr(f"ignored response to unknown or finished request {msg_id!r}")
            return
        if "error" in message:
            future.set_exception(ClientRpcError(message["error"]))
        else:
            future.set_result(message.get("result"))

    # -- outgoing messages -------------------------------------------------------

    def _send(self, message: dict) -> None:
        self.transport.write(message)

    def _send_error(self, msg_id: object, error: RpcError) -> None:
        self._send({"jsonrpc": "2.0", "id": msg_id, "error": error.to_json()})

    def notify(self, method: str, params: dict | None = None) -> None:
        message: dict = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def log(self, level: str, data: object, logger: str = "demo") -> bool:
        """Send notifications/message if ``level`` passes logging/setLevel."""
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return False
        self.notify("notifications/message", {"level": level, "logger": logger, "data": data})
        return True

    async def request_client(self, method: str, params: dict) -> object:
        """Send a server->client request and wait for its result.

        Raises ClientRpcError, asyncio.TimeoutError or ConnectionError. If we
        give up (timeout or our own cancellation) the client is told with
        notifications/cancelled.
        """
        if self.transport.closed:
            raise ConnectionError("the client is gone")
        self._next_id += 1
        request_id = f"demo-{self._next_id}"
        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        try:
            return await asyncio.wait_for(future, self.options.client_timeout)
        except TimeoutError:
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": "timed out"})
            raise
        except asyncio.CancelledError:
            self.notify("notifications/cancelled", {"requestId": request_id, "reason": "tool call cancelled"})
            raise
        finally:
            self._pending.pop(request_id, None)

    # -- request handlers --------------------------------------------------------

    async def _initialize(self, params: dict, ctx: RequestContext) -> dict:
        self.protocol_version = handshake.negotiate(params.get("protocolVersion"))
        capabilities = params.get("capabilities")
        self.client_capabilities = capabilities if isinstance(capabilities, dict) else {}
        client_info = params.get("clientInfo")
        self.client_info = client_info if isinstance(client_info, dict) else {}
        if self.options.verbose:
            stderr(
                f"initialize from {self.client_info.get('name')!r}: version {self.protocol_version}, "
                f"client capabilities {sorted(self.client_capabilities)}"
            )
        return handshake.initialize_result(self.protocol_version)

    async def _ping(self, params: dict, ctx: RequestContext) -> dict:
        return {}

    async def _set_level(self, params: dict, ctx: RequestContext) -> dict:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise RpcError(INVALID_PARAMS, f"Unknown log level: {level!r}", {"levels": LOG_LEVELS})
        self.log_level = level
        return {}

    @staticmethod
    def _page(kind: str, key: str, items: list, params: dict, page_size: int) -> dict:
        page, next_cursor = paginate(kind, items, params, page_size)
        out: dict = {key: page}
        if next_cursor is not None:
            out["nextCursor"] = next_cursor
        return out

    async def _tools_list(self, params: dict, ctx: RequestContext) -> dict:
        definitions = self.tools.definitions()
        if not tasks.supported(self.protocol_version):  # `execution` is a 2025-11-25 field
            definitions = [{k: v for k, v in d.items() if k != "execution"} for d in definitions]
        return self._page("tools", "tools", definitions, params, self.options.tools_page_size)

    async def _tools_call(self, params: dict, ctx: RequestContext) -> dict:
        if self.tasks.check_call(params, self.tools.definition(params.get("name"))):
            return self.tasks.create(params, ctx)
        return await self.tools.call(params, ctx)

    def _task_method(self, handler):
        async def run(params: dict, ctx: RequestContext) -> dict:
            if not tasks.supported(self.protocol_version):
                raise RpcError(
                    METHOD_NOT_FOUND,
                    f"Tasks need protocol {tasks.TASKS_VERSION}; this session speaks {self.protocol_version}",
                )
            return await handler(params)

        return run

    async def _resources_list(self, params: dict, ctx: RequestContext) -> dict:
        return self._page("resources", "resources", self.resources.list(), params, self.options.resources_page_size)

    async def _templates_list(self, params: dict, ctx: RequestContext) -> dict:
        return self._page(
            "templates", "resourceTemplates", self.resources.templates(), params, self.options.resources_page_size
        )

    async def _resources_read(self, params: dict, ctx: RequestContext) -> dict:
        return {"contents": self.resources.read(params.get("uri"))}

    async def _subscribe(self, params: dict, ctx: RequestContext) -> dict:
        self.resources.subscribe(params.get("uri"))
        if params.get("uri") == CLOCK_URI and (self._ticker is None or self._ticker.done()):
            self._ticker = asyncio.create_task(self._tick())
        return {}

    async def _unsubscribe(self, params: dict, ctx: RequestContext) -> dict:
        self.resources.unsubscribe(params.get("uri"))
        if params.get("uri") == CLOCK_URI:
            self._stop_ticker()
        return {}

    async def _tick(self) -> None:
        """While demo://clock is subscribed: one notifications/resources/updated per tick."""
        while not self.transport.closed:
            await asyncio.sleep(self.options.tick_interval)
            if CLOCK_URI not in self.resources.subscriptions:
                return
            self.resources.ticks += 1
            self.notify("notifications/resources/updated", {"uri": CLOCK_URI})

    def _stop_ticker(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    async def _prompts_list(self, params: dict, ctx: RequestContext) -> dict:
        return self._page("prompts", "prompts", prompts.list_prompts(), params, self.options.prompts_page_size)

    async def _prompts_get(self, params: dict, ctx: RequestContext) -> dict:
        return prompts.get_prompt(params.get("name"), params.get("arguments"))

    async def _complete(self, params: dict, ctx: RequestContext) -> dict:
        return completions.complete(params, self.resources)


def serve(options: Options | None = None, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Run the server on the given binary streams (default: this process's stdio)."""
    options = options or Options()
    transport = StdioTransport(stdin or sys.stdin.buffer, stdout or sys.stdout.buffer)
    server = DemoServer(options, transport)
    return asyncio.run(server.run())
