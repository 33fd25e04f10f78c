"""Connect, shake hands, run one command, disconnect: turning every failure into an exit code.

The traffic store gets the ``--record`` writer before the server is started,
so the session file has every frame even if the server (or we) crash, and the
``--show-stderr`` echo, so server stderr appears live. Errors are caught inside
the session's task group (anyio would wrap them in exception groups otherwise)
and become one clear line on stderr plus the server's last stderr lines.
"""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from ..core.base.errors import (
    ConnectError,
    ConnectionLost,
    EraNotSpoken,
    InspectorError,
    ProtocolViolation,
    RequestCancelled,
    RequestTimeout,
    RpcError,
    TaskCancelled,
    TransportFailure,
)
from ..core.base.framing import MAX_LINE_BYTES
from ..core.base.jsonrpc import Kind
from ..core.config.servers import ServerSpec
from ..core.protocol.versions import LATEST_LEGACY
from ..core.session.events import LogMessage
from ..core.session.mcp_session import McpSession
from ..core.traffic.entry import TrafficEntry
from ..core.traffic.store import TrafficStore
from ..core.transport.base import AUTH_FAILED, TransportError
from . import exit_codes, gc_pause, stopping
from .early import signal_group
from .exit_codes import UsageError
from .output.report import PROGRAM, error
from .output.report import write_err as _write_err
from .output.server_output import ServerOutputWatch

if TYPE_CHECKING:
    from ..core.started import StartedServer
    from ..core.traffic.recording import SessionWriter

STDERR_PREFIX = "[server] "
CLOSE_WAIT = 1.0  # seconds to wait for the exit status after the server vanished
PIPE_STORE_CAP = 10_000  # pipe prints each frame as it comes and never looks back: keep a long pipe flat


@dataclass
class RunOptions:
    timeout: float | None = 60.0
    record: str | None = None
    show_stderr: bool = False
    protocol_version: str = LATEST_LEGACY
    quiet: bool = False
    json: bool = False
    progress: bool = False
    handshake: bool = True  # pipe does its own
    max_frame_bytes: int = MAX_LINE_BYTES  # a longer line is kept as its head and recorded as "too long"
    handlers: dict[str, Any] = field(default_factory=dict)  # answers to server->client requests (answers.py)
    log_level: str | None = None  # --log-level: asked of the server after connecting; its logs go to stderr
    report: str | None = None  # --report FILE ("-": stderr): the server-output summary (server_output.py)
    command: str | None = None  # the command's name, for the report
    query: str | None = None  # --query: a jq expression over what --json would print (commands/query.py)
    #: Called with the session's TrafficStore as soon as it exists, before any server starts (the
    #: check command attaches its live rules there, so the handshake is judged too).
    on_store: Callable[[TrafficStore], None] | None = None
    #: The OAuth client's step log for a URL server (core/auth's AuthLog; the check judges its steps).
    auth_log: Any = None
    #: ``--era both``: a handshake refused as a server of the other era refuses it is handed here
    #: (the command says it as a note) instead of printed as an error; the run still ends with 3.
    on_era_not_spoken: Callable[[EraNotSpoken], None] | None = None


@dataclass
class Context:
    """What a command body gets besides the session."""

    spec: ServerSpec
    options: RunOptions
    store: TrafficStore
    step: str = ""  # what was being done, to prefix error messages ("tools/call")
    #: Where the server's log notifications go with --log-level (a command showing progress
    #: takes them over so the two share stderr cleanly).
    log_sink: Callable[[Any], None] | None = None

    def warn(self, message: str) -> None:
        if not self.options.quiet:
            _write_err(f"{PROGRAM}: warning: {message}")

    def note(self, message: str) -> None:
        if not self.options.quiet:
            _write_err(f"{PROGRAM}: {message}")


Body = Callable[[McpSession, Context], Awaitable[int]]


def run(spec: ServerSpec, options: RunOptions, body: Body, started: StartedServer | None = None) -> int:
    """``started``: the server process main.py already started (see early.py), or None."""
    # Only pipe does its own handshake; evicted entries go to --record or a spill file.
    # pipe has printed every frame to stdout when it leaves memory: no spill file for it (store.py)
    pipe = not options.handshake
    store, writer = make_store(spec, options, PIPE_STORE_CAP if pipe else None, spill=not pipe)
    if started is not None:
        started.claimed = True  # from here on the transport adopts it (and shuts it down)
    # pipe prints invalid frames itself: only the count and summary there
    watch = ServerOutputWatch(quiet=options.quiet or not options.handshake, stdio=not spec.url)
    store.add_listener(watch)
    code = exit_codes.INTERNAL
    try:
        code = anyio.run(_run, spec, options, store, body, started)
        return code
    finally:
        store.close()  # removes a spill file the store made for itself
        if writer is not None:
            writer.close()
        if not options.quiet:
            watch.summary()
        if options.report is not None:
            watch.write_report(options.report, options.command, code)


def make_store(
    spec: ServerSpec, options: RunOptions, cap: int | None = None, spill: bool = True
) -> tuple[TrafficStore, SessionWriter | None]:
    """The session's TrafficStore (``cap``: the entries kept in memory), with the ``--record`` writer
    attached before any server starts and the ``--show-stderr`` echo."""
    store = TrafficStore(spill=spill) if cap is None else TrafficStore(cap=cap, spill=spill)
    writer = None
    if options.record:
        from ..core.traffic.recording import SessionWriter  # (only with --record)

        try:
            writer = SessionWriter(options.record, header=record_header(spec))
        except OSError as exc:
            raise UsageError(f"cannot write the record file {options.record}: {exc.strerror or exc}") from None
        store.attach_recorder(writer)
    if options.show_stderr:
        store.add_listener(_echo_stderr)
    if options.on_store is not None:
        options.on_store(store)
    return store, writer


def record_header(spec: ServerSpec) -> dict[str, Any]:
    """The session file's header: what the server was, with every credential masked."""
    header: dict[str, Any] = {
        "server": spec.describe(),
        "name": spec.name,
        "command": spec.command,
        "client": "mcp-inspector cli",
    }
    if spec.url:
        from ..core.base.masking import mask_headers, mask_url

        header.update(
            url=mask_url(spec.url),
            transport=spec.transport,
            headers=dict(mask_headers(spec.headers)),
            insecure=spec.insecure,
        )
    if spec.era != "auto":
        header["era"] = spec.era
    return header


def make_cli_transport(
    spec: ServerSpec, options: RunOptions, store: TrafficStore, started: StartedServer | None = None
):
    """The transport for a spec (core/config/factory.py): stdio adopts a process main.py
    may have started; a URL gets HTTP, its exchanges logged in the store's HttpLog."""
    from ..core.config.factory import make_transport

    auth_ui = None
    if spec.url:
        from .auth_ui import CliAuthUi

        auth_ui = CliAuthUi()
    return make_transport(
        spec,
        max_frame_bytes=options.max_frame_bytes,
        http_log=store.http_log if spec.url else None,
        started=started,
        write_stall=options.timeout or 30.0,
        auth_ui=auth_ui,
        auth_log=options.auth_log,
        defer_auth=True,  # the OAuth client made at the first challenge when nothing is stored
    )


def _echo_stderr(entry: TrafficEntry) -> None:
    if entry.kind is Kind.STDERR:
        _write_err(STDERR_PREFIX + entry.text)


async def _run(
    spec: ServerSpec, options: RunOptions, store: TrafficStore, body: Body, started: StartedServer | None = None
) -> int:
    try:
        transport = make_cli_transport(spec, options, store, started)
    except (TransportError, InspectorError) as exc:
        error(f"cannot connect to {spec.describe()}: {exc}")
        return exit_codes.SERVER_FAILURE
    context = Context(spec, options, store)
    session = McpSession(
        transport,
        store=store,
        timeout=options.timeout,
        init_timeout=options.timeout,
        auto_refresh=False,
        handlers=options.handlers,
        era=spec.era,
        protocol_version=spec.protocol_version,
        era_hint=remembered_era(spec, options),
    )
    # The imports are done (anyio's backend, the transport's: httpx for a URL); a pipe or a
    # subscribe may run for hours.
    gc_pause.resume()
    # SIGINT, SIGTERM, SIGHUP: cancel the command only, so that the session's exit closes the
    # server (the transport's readers still running to see it go); a second one kills it now.
    stop = anyio.CancelScope()

    def on_signal(signum: int) -> None:
        stopping.note(signum)
        pid = getattr(transport, "pid", None)
        if stop.cancel_called:
            if pid is not None:
                if hasattr(transport, "stopped_by_us"):
                    transport.stopped_by_us = True
                signal_group(pid, signal.SIGKILL)
            return
        if hasattr(transport, "close_grace"):
            transport.close_grace = min(transport.close_grace, stopping.CLOSE_GRACE)
            transport.term_grace = min(transport.term_grace, stopping.TERM_GRACE)
        stop.cancel()

    loop = asyncio.get_running_loop()
    for signum in stopping.SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        async with session:
            with stop:
                return await _run_body(session, context, body)
    except TransportError as exc:  # only the start can raise it: bad command, bad cwd, a refused connection
        error(f"cannot {'connect to' if spec.url else 'start'} the server: {exc}")
        return exit_codes.SERVER_FAILURE
    finally:
        for signum in stopping.SIGNALS:
            loop.remove_signal_handler(signum)
        stopping.install()
        if stopping.received is not None:
            error(stopping.describe(stopping.received))
    return stopping.exit_code(exit_codes.INTERRUPTED)  # the command was cancelled by a stop signal


async def _run_body(session: McpSession, context: Context, body: Body) -> int:
    handshake = context.options.handshake
    try:
        if handshake:
            context.step = "initialize"
            try:
                await session.initialize()
            except RpcError as exc:
                raise ConnectError(f"the server rejected initialize: {exc}") from None
            context.step = ""
            remember_era(context.spec, context.options, session)
        handshake = False
        if context.options.log_level is not None:
            await apply_log_level(session, context)
        return await body(session, context)
    except RequestTimeout as exc:
        error(
            f"{exc}" if not handshake else f"the handshake timed out: no answer to initialize within {exc.seconds:g} s"
        )
        return exit_codes.TIMEOUT
    except RpcError as exc:
        error(f"{context.step} failed: {exc}" if context.step else str(exc))
        from ..core.session.url_elicitation import UrlElicitationRequired

        if isinstance(exc, UrlElicitationRequired):  # -32042: the URLs, never opened by a headless client
            for line in exc.describe():
                _write_err(line)
        return exit_codes.RPC_ERROR
    except ConnectionLost as exc:
        closed = await _wait_closed(session)
        reason = closed.reason if closed is not None else exc.reason
        tail = closed.stderr_tail if closed is not None and closed.stderr_tail else exc.stderr_tail
        error(f"{reason}{' during ' + context.step if context.step else ''}", tail)
        return exit_codes.SERVER_FAILURE
    except (ConnectError, ProtocolViolation) as exc:
        if handshake and isinstance(exc, EraNotSpoken) and context.options.on_era_not_spoken is not None:
            context.options.on_era_not_spoken(exc)
            return exit_codes.SERVER_FAILURE
        prefix = (
            "handshake failed: "
            if handshake
            else (f"{context.step}: protocol error: " if context.step else "protocol error: ")
        )
        closed = session.closed
        error(_auth_failure(str(exc)) or prefix + str(exc), closed.stderr_tail if closed is not None else None)
        return exit_codes.SERVER_FAILURE
    except TransportFailure as exc:  # an HTTP error status, a refused connection, a cut stream
        error(_auth_failure(str(exc)) or describe_transport_failure(exc, context.step))
        return exit_codes.SERVER_FAILURE
    except RequestCancelled as exc:
        error(str(exc))
        if isinstance(exc, TaskCancelled) and stopping.received is None:
            # not our Ctrl-C: the server (or another client) cancelled the task, which has no result;
            # a legacy tasks/result says so with a JSON-RPC error, and this is the same outcome
            return exit_codes.RPC_ERROR
        return exit_codes.INTERRUPTED
    except InspectorError as exc:
        error(str(exc))
        return exit_codes.SERVER_FAILURE


#: Commands that judge or record the server: their result must not depend on what an earlier
#: run kept (with a remembered era, a server of both eras would be judged in the legacy one).
AUDIT_COMMANDS = ("check", "snapshot", "diff")


def _era_memory_applies(spec: ServerSpec, options: RunOptions) -> bool:
    """The era a stdio server spoke last time is used as the TUI uses it (``eras.hint_applies``),
    for a command that does the handshake (not pipe) and does not audit the server."""
    from ..core.config import eras

    return (
        options.handshake
        and options.command not in AUDIT_COMMANDS
        and eras.hint_applies(spec.era, spec.url, spec.protocol_version)
    )


def remembered_era(spec: ServerSpec, options: RunOptions) -> str | None:
    """A legacy server known from its last connection gets ``initialize`` at once: no
    ``server/discover`` probe first (era.py; a server that changed era is probed after all)."""
    if not _era_memory_applies(spec, options):
        return None
    from ..core.config import eras

    return eras.remembered(spec.key)


def remember_era(spec: ServerSpec, options: RunOptions, session: McpSession) -> None:
    """Keep the era the server spoke for its next connection (written only when it changed)."""
    if _era_memory_applies(spec, options) and session.era is not None and session.era != session.era_hint:
        from ..core.config import eras

        eras.remember(spec.key, session.era)


def _auth_failure(text: str) -> str | None:
    """A failed OAuth flow's message without the requests it met on its way ("handshake failed:
    initialize failed: ..."): the flow's own words say where it failed."""
    at = text.find(AUTH_FAILED)
    return text[at:] if at >= 0 else None


async def apply_log_level(session: McpSession, context: Context) -> None:
    """--log-level: legacy ``logging/setLevel`` when the server declares logging (a refusal is a
    warning, the command goes on); 2026-07-28: the level rides in every request's _meta. Log
    notifications are shown on stderr from here on."""
    level = context.options.log_level
    assert level is not None
    if not context.options.quiet:  # before setLevel: a server may log at once, right after its reply
        session.add_listener(lambda event: _show_log(context, event))
    if session.era == "legacy" and "logging" not in session.capabilities:
        context.warn(f"the server does not declare the logging capability: --log-level {level} not sent")
    else:
        context.step = "logging/setLevel"
        try:
            await session.set_log_level(level)
        except RpcError as exc:
            context.warn(f"logging/setLevel {level} failed: {exc}")
        context.step = ""


def _show_log(context: Context, event: Any) -> None:
    if not isinstance(event, LogMessage):
        return
    if context.log_sink is not None:
        context.log_sink(event)
        return
    _write_err(format_log(event))


def format_log(event: LogMessage) -> str:
    data = event.data if isinstance(event.data, str) else json.dumps(event.data, ensure_ascii=False)
    return f"[{event.level}]{' ' + str(event.logger) + ':' if event.logger else ''} {data}"


def describe_transport_failure(exc: TransportFailure, step: str = "") -> str:
    """One line, with the HTTP status when there was one."""
    text = str(exc)
    if exc.status is not None and str(exc.status) not in text:
        text += f" (HTTP {exc.status})"
    return text


async def _wait_closed(session: McpSession):
    """The server vanished: give the transport a moment to report its exit status and stderr."""
    with anyio.move_on_after(CLOSE_WAIT):
        await session.wait_closed()
    return session.closed
