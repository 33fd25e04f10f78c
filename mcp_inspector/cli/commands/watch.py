"""``mcp-inspector watch -- SERVER``: restart a stdio server whenever its files change, and say what
the edit changed.

The server is started, its tools listed (the baseline), then each burst of edits under the
watched paths (core/watch) stops it and starts it again. Each restart prints one block on
stdout: the time, the files that changed, what changed in the tool list since the last start
that worked (added, removed, changed and how: core/session/tooldiff.py; each change classified as
``diff`` classifies it: core/surface/diff.py), and with ``--call`` the
tool's result, rendered as ``call`` renders it. ``--json`` prints one JSON object per start
instead. A server that fails to start prints why and its last stderr lines, and the watch goes
on: the next save tries again, compared with the last tools that were listed.

It runs until Ctrl-C (exit 0) or ``--count N`` restarts (exit 0, or 3 when the last start
failed). One TrafficStore spans every start, so ``--record`` keeps the whole development session.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import anyio

from ...core.base import jsonrpc
from ...core.base.errors import ConnectionLost, InspectorError, RpcError
from ...core.config.servers import ServerSpec
from ...core.session.mcp_session import McpSession
from ...core.session.tooldiff import ListDiff, diff_items
from ...core.surface.diff import TITLES, classify, counts, counts_text
from ...core.traffic.store import TrafficStore
from ...core.transport.base import TransportError
from ...core.watch.watcher import FileChanges, FileWatcher
from .. import exit_codes
from ..output import render
from ..output.report import error, write_err
from ..runner import RunOptions, make_cli_transport, make_store

RESTART_CLOSE_GRACE = 0.2  # seconds for the old server to exit once its stdin is closed (as F8 in the TUI)
RESTART_TERM_GRACE = 1.0
CLOSE_WAIT = 1.0  # seconds to wait for a failed server's exit status and stderr


@dataclass
class WatchRequest:
    """What the command line asked for."""

    paths: list[str]
    call: str | None = None  # --call TOOL: called after every start
    arguments: dict[str, Any] = field(default_factory=dict)
    count: int | None = None  # --count N: stop after N restarts
    ignore: list[str] = field(default_factory=list)  # our own files (--record, --report)


@dataclass
class Start:
    """One start of the server: its tools, or why it failed."""

    ok: bool
    seconds: float
    tools: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""
    stderr: list[str] = field(default_factory=list)
    call: dict[str, Any] | None = None  # {"tool", "text"|"error", "raw", "isError"}


class ServerRun:
    """One server process and its session, alive until ``stop``: started in a task, so the
    session's context (its reader tasks) outlives the call that started it."""

    def __init__(self, spec: ServerSpec, options: RunOptions, store: TrafficStore) -> None:
        self.spec = spec
        self.options = options
        self.store = store
        self.session: McpSession | None = None
        self.ready = anyio.Event()
        self.done = anyio.Event()
        self._scope = anyio.CancelScope()  # what runs inside the session: a stop cancels it, the session then closes
        self.start = Start(False, 0.0)

    async def run(self, request: WatchRequest) -> None:
        started = time.perf_counter()
        try:
            transport = make_cli_transport(self.spec, self.options, self.store)
            session = self.session = McpSession(
                transport,
                store=self.store,
                timeout=self.options.timeout,
                init_timeout=self.options.timeout,
                auto_refresh=False,
                handlers=self.options.handlers,
                era=self.spec.era,
                protocol_version=self.spec.protocol_version,
            )
            async with session:
                with self._scope:
                    try:
                        await session.initialize()
                        tools = await session.list_all("tools") if session.supports("tools") else []
                    except (InspectorError, TransportError) as exc:
                        await self._failed(exc, started)
                        return
                    self.start = Start(True, time.perf_counter() - started, tools)
                    if request.call is not None:
                        self.start.call = await call_tool(session, request.call, request.arguments)
                    self.ready.set()
                    await anyio.sleep_forever()
        except (InspectorError, TransportError) as exc:
            await self._failed(exc, started)
        except Exception as exc:  # noqa: BLE001 - an exception group from the session's task group
            await self._failed(_leaf(exc), started)
        finally:
            self.ready.set()
            self.done.set()

    async def _failed(self, exc: BaseException, started: float) -> None:
        session = self.session
        closed = None
        if session is not None:
            with anyio.move_on_after(CLOSE_WAIT):
                await session.wait_closed()
            closed = session.closed
        reason = str(exc)
        tail = list(getattr(exc, "stderr_tail", None) or [])
        if closed is not None:
            reason = closed.reason if isinstance(exc, ConnectionLost) else reason
            tail = list(closed.stderr_tail) or tail
        self.start = Start(
            False, time.perf_counter() - started, error=reason.split("\nlast stderr lines:")[0], stderr=tail[-10:]
        )

    async def stop(self) -> None:
        """Close the server (the spec's order, short waits: it is being replaced) and wait for it."""
        session = self.session
        transport = session.transport if session is not None else None
        for name, value in (("close_grace", RESTART_CLOSE_GRACE), ("term_grace", RESTART_TERM_GRACE)):
            if transport is not None and hasattr(transport, name):
                setattr(transport, name, min(getattr(transport, name), value))
        self._scope.cancel()
        await self.done.wait()


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def call_tool(session: McpSession, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call ``name``: its result rendered as ``call`` renders it, and exactly as received (``raw``)."""
    try:
        pending = await session.begin_tool_call(name, arguments)
        outcome = await session.finish_tool_call(pending)
    except RpcError as exc:
        return {"tool": name, "error": str(exc), "raw": dict(exc.error)}
    except InspectorError as exc:
        return {"tool": name, "error": str(exc)}
    raw = jsonrpc.raw_member(pending.reply.raw, "result") if pending.reply is not None else None
    return {
        "tool": name,
        "text": render.tool_result(outcome.view),
        "isError": outcome.view.is_error,
        "raw": json.loads(raw) if raw else outcome.result,
    }


# -- output -------------------------------------------------------------------------------------
def clock(ts: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(ts)) + f".{int(ts * 1000) % 1000:03d}"


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def diff_text(diff: ListDiff) -> str:
    """The tool diff: a summary line, the changes classified as ``diff`` classifies them (their
    counts, then each with its kind and JSON path), then each changed field as a unified diff."""
    if diff.empty:
        return "  tools: unchanged"
    lines = [f"  tools: {diff.summary()}"]
    changes = classify("tools", diff)
    lines.append(f"  classified as mcp-inspector diff does: {counts_text(changes)}")
    lines.extend(f"    {TITLES[c.kind]}: {c.path}: {c.message}" for c in changes)
    for change in diff.changed:
        for name in change.fields:
            lines.append(f"  {change.name} {name}:")
            lines.append(_indent(change.field_diff(name) or "(no textual difference)"))
    return "\n".join(lines)


def block_text(
    event: str, at: float, start: Start, changes: FileChanges | None, diff: ListDiff | None, kept: bool = True
) -> str:
    """One start as text; ``kept``: an earlier start listed tools (a failure keeps them)."""
    what = f"restart after edit of {changes.describe()}" if changes is not None else "started"
    if start.ok:
        count = len(start.tools)
        head = f"[{clock(at)}] {what} ({start.seconds:.2f} s): {count} tool{'' if count == 1 else 's'}"
    else:
        head = f"[{clock(at)}] {what}: the server failed to start: {start.error}"
    lines = [head]
    if changes is not None:
        lines.append("  files: " + ", ".join(changes.paths))
    if not start.ok:
        if start.stderr:
            lines.append("  stderr:")
            lines.extend(f"    {line}" for line in start.stderr)
        lines.append(
            "  the tools are kept from the last start that worked; the next save tries again"
            if kept
            else "  the next save tries again"
        )
        return "\n".join(lines)
    if diff is not None:
        lines.append(diff_text(diff))
    if start.call is not None:
        call = start.call
        if "error" in call:
            lines.append(f"  call {call['tool']}: failed: {call['error']}")
        else:
            lines.append(f"  call {call['tool']}:")
            lines.append(_indent(call["text"]))
    return "\n".join(lines)


def block_json(
    event: str, at: float, start: Start, changes: FileChanges | None, diff: ListDiff | None
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "event": event,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(at)) + f".{int(at * 1000) % 1000:03d}Z",
        "ok": start.ok,
        "seconds": round(start.seconds, 3),
    }
    if changes is not None:
        document["files"] = list(changes.paths)
    if not start.ok:
        document.update(error=start.error, stderr=start.stderr)
        return document
    document["tools"] = [tool.get("name") for tool in start.tools]
    if diff is not None:
        classified = classify("tools", diff)
        document["diff"] = {
            "added": [t.get("name") for t in diff.added],
            "removed": [t.get("name") for t in diff.removed],
            "changed": [
                {
                    "name": c.name,
                    "fields": c.fields,
                    "before": {k: c.before.get(k) for k in c.fields},
                    "after": {k: c.after.get(k) for k in c.fields},
                }
                for c in diff.changed
            ],
            # as diff --json has them: each change's kind, JSON path and message; the count of each kind
            "changes": [change.as_json() for change in classified],
            "counts": counts(classified),
        }
    if start.call is not None:
        call = start.call
        document["call"] = {
            "tool": call["tool"],
            **({"result": call.get("raw")} if "error" not in call else {"error": call.get("raw") or call["error"]}),
        }
    return document


def emit(
    json_output: bool,
    event: str,
    at: float,
    start: Start,
    changes: FileChanges | None,
    diff: ListDiff | None,
    kept: bool = True,
) -> None:
    from .basic import out

    if json_output:
        out(json.dumps(block_json(event, at, start, changes, diff), ensure_ascii=False))
    else:
        out(block_text(event, at, start, changes, diff, kept))
    sys.stdout.flush()


# -- the loop -----------------------------------------------------------------------------------
def run_watch(spec: ServerSpec, options: RunOptions, request: WatchRequest) -> int:
    # a development session can run all day: old frames go to --record or a spill file
    store, writer = make_store(spec, options, cap=50_000)
    try:
        return anyio.run(_watch, spec, options, request, store)
    finally:
        store.close()
        if writer is not None:
            writer.close()


async def _watch(spec: ServerSpec, options: RunOptions, request: WatchRequest, store: TrafficStore) -> int:
    watcher = FileWatcher(request.paths, ignore=request.ignore)
    stopped: list[int] = []
    code = exit_codes.OK
    body = anyio.CancelScope()
    async with anyio.create_task_group() as group:

        def on_signal(signum: int) -> None:  # Ctrl-C ends the watch: the server is closed, exit 0
            stopped.append(signum)
            watcher.stop()
            body.cancel()

        loop = asyncio.get_running_loop()
        signals = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
        for signum in signals:
            loop.add_signal_handler(signum, on_signal, signum)
        current: list[ServerRun] = []  # the server running now
        try:
            with body:
                code = await _loop(group, spec, options, store, request, watcher, current)
        except OSError as exc:
            error(f"--watch: {exc}")
            code = exit_codes.USAGE
        finally:
            watcher.stop()
            for signum in signals:
                loop.remove_signal_handler(signum)
            with anyio.CancelScope(shield=True):
                for server in current:
                    await server.stop()
            group.cancel_scope.cancel()
    if stopped and stopped[0] != signal.SIGINT:
        return 128 + stopped[0]
    return exit_codes.OK if stopped else code


async def _loop(
    group: Any,
    spec: ServerSpec,
    options: RunOptions,
    store: TrafficStore,
    request: WatchRequest,
    watcher: FileWatcher,
    current: list[ServerRun],
) -> int:
    """Start, then restart on each burst of edits; the exit code of the last start. The watcher
    listens from before the first start, so an edit made while the server starts is not missed:
    it interrupts a start that has not answered yet (a server that hangs after an edit does not
    hold the watch for --timeout), and the next start is reported for both edits."""
    send, receive = anyio.create_memory_object_stream[FileChanges | BaseException](256)

    async def listen() -> None:
        try:
            async for changes in watcher.changes():
                await send.send(changes)
        except OSError as exc:  # a watched path went away
            await send.send(exc)
        finally:
            send.close()

    group.start_soon(listen)
    code = exit_codes.OK
    baseline: list[dict[str, Any]] | None = None
    edits: FileChanges | None = None  # what the next start is for (None: no edit yet)
    reported = False  # the first block ("start") was printed
    restarts = 0
    while True:
        server, interrupted = await _start(group, spec, options, store, request, receive)
        current[:] = [server]
        if interrupted is not None:  # edited again before it was ready: start again, for both edits
            await server.stop()
            edits = interrupted if edits is None else FileChanges(tuple(sorted({*edits.paths, *interrupted.paths})))
            continue
        start = server.start
        diff = diff_items(baseline, start.tools) if start.ok and baseline is not None else None
        kept = baseline is not None
        if start.ok:
            baseline = start.tools
        code = exit_codes.OK if start.ok else exit_codes.SERVER_FAILURE
        if not reported:
            reported = True
            emit(options.json, "start", time.time(), start, edits, None, kept=False)
            if not options.quiet:
                plural = "s" if len(request.paths) != 1 else ""
                write_err(
                    f"mcp-inspector: watching {len(request.paths)} path{plural} ({', '.join(request.paths)}); "
                    "edit a file to restart the server, ctrl+c stops"
                )
        else:
            store.note(
                f"watch: restart after edit of {edits.describe()}: "
                + (f"{len(start.tools)} tools" if start.ok else f"failed to start: {start.error}")
            )
            emit(options.json, "restart", time.time(), start, edits, diff, kept=kept)
            restarts += 1
            if request.count is not None and restarts >= request.count:
                return code
        try:
            item = await receive.receive()
        except anyio.EndOfStream:  # the watcher stopped
            return code
        if isinstance(item, BaseException):
            raise item
        edits = item
        await server.stop()


async def _start(
    group: Any, spec: ServerSpec, options: RunOptions, store: TrafficStore, request: WatchRequest, receive: Any
) -> tuple[ServerRun, FileChanges | None]:
    """Start the server; return it once it is ready (or failed), or with the edit that came first."""
    server = ServerRun(spec, options, store)
    group.start_soon(server.run, request)
    came: list[FileChanges | BaseException] = []
    async with anyio.create_task_group() as race:

        async def edit() -> None:
            try:
                came.append(await receive.receive())
            except anyio.EndOfStream:
                await server.ready.wait()
            race.cancel_scope.cancel()

        async def ready() -> None:
            await server.ready.wait()
            race.cancel_scope.cancel()

        race.start_soon(edit)
        race.start_soon(ready)
    if came and isinstance(came[0], BaseException):
        raise came[0]
    return server, (came[0] if came else None)  # an edit, even as it answered: it starts again
