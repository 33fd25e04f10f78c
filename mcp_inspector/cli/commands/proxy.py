"""``mcp-inspector proxy``: stand between a real host and its server, record (and publish) the session.

    mcp-inspector proxy [--record FILE] [--name NAME] [--quiet] -- SERVER_COMMAND [args]

A host's config runs this in place of the server command. Everything the host and the
server exchange goes through unchanged (core/proxy/stdio.py) and is recorded as an
ordinary session file (``--open``, ``query``, ``replay``, ``check --open`` read it).
Our own messages go to stderr only with the server's (a host shows it as the server's
log); ``--quiet`` keeps them out. Parsed here, apart from the other commands: its
options and the server command are all it takes.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
from typing import Any

from ...core.base.files import open_private
from ...core.proxy.feed import FeedError, FeedPublisher
from ...core.proxy.recorder import FrameRecorder
from ...core.proxy.relay import RecordPipe
from ...core.proxy.sink import published
from ...core.proxy.stdio import FORWARDED, ExitStatus, ProxyStartError, StdioProxy
from ...core.traffic.recording import SessionWriter
from ...core.traffic.store import TrafficStore
from .. import exit_codes

PROXY_USAGE = (
    "mcp-inspector proxy [--record FILE] [--name NAME] [--no-live] [--quiet] -- SERVER_COMMAND [server args]\n"
    "       mcp-inspector proxy --listen HOST:PORT --url UPSTREAM [--record FILE] [--name NAME] [--no-live] [--quiet]\n"
    "       mcp-inspector proxy (--wrap | --unwrap) --config FILE --server NAME [--record FILE] [--write]"
)
PROXY_DESCRIPTION = (
    "Run SERVER_COMMAND as a host's MCP server and stand in between: every byte goes through unchanged "
    "both ways, and every frame is recorded with the host's clientInfo. Put it in the host's config in "
    "place of the server command. The server's exit code and the signals a host sends pass through."
)
SWITCH_INTERVAL = 1e-5  # seconds (see run_proxy)
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise exit_codes.UsageError(f"proxy: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="mcp-inspector proxy", usage=PROXY_USAGE, description=PROXY_DESCRIPTION)
    parser.add_argument("--record", metavar="FILE", help="write the session to FILE (a session file, 0600)")
    parser.add_argument(
        "--name",
        metavar="NAME",
        help="the session's name (default: the server command's name); attach NAME finds it",
    )
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="HTTP: serve on this address (loopback; another address only with a warning); with --url",
    )
    parser.add_argument("--url", metavar="UPSTREAM", help="HTTP: the server's URL, every exchange passed to it")
    setup = parser.add_mutually_exclusive_group()
    setup.add_argument(
        "--wrap",
        action="store_true",
        help="print the --config file's --server entry rewritten to run through the proxy (--write: edit the file)",
    )
    setup.add_argument("--unwrap", action="store_true", help="the other way: the entry back to the server's command")
    parser.add_argument("--config", metavar="FILE", help="--wrap/--unwrap: the host's config file")
    parser.add_argument("--server", metavar="NAME", help="--wrap/--unwrap: the entry's name in it")
    parser.add_argument(
        "--write", action="store_true", help="--wrap/--unwrap: edit the file in place, after a copy (FILE.bak)"
    )
    parser.add_argument(
        "--no-live", action="store_true", help="publish no live view (mcp-inspector attach cannot watch it)"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="say nothing of our own on stderr")
    parser.add_argument(
        "--otlp",
        metavar="URL",
        help="export a span per forwarded request and notification, parented on the host's traceparent, "
        "to this OTLP/HTTP collector (default: $OTEL_EXPORTER_OTLP_ENDPOINT if set); needs mcp-inspector[otel]",
    )
    return parser


def parse_proxy(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """(options, server command) from the words after ``proxy``; UsageError if they do not make sense."""
    if "--" in argv:
        index = argv.index("--")
        own, command = argv[:index], argv[index + 1 :]
    else:
        own, command = argv, []
    args = build_parser().parse_args(own)
    if args.wrap or args.unwrap:
        if command or args.url or args.listen:
            raise exit_codes.UsageError("proxy --wrap/--unwrap edits a config entry: no server command, no --url")
        if not args.config or not args.server:
            raise exit_codes.UsageError("proxy --wrap/--unwrap needs --config FILE and --server NAME")
        return args, command
    if args.config or args.server or args.write:
        raise exit_codes.UsageError("proxy: --config, --server and --write go with --wrap or --unwrap")
    if (args.listen is None) != (args.url is None):
        raise exit_codes.UsageError("proxy: --listen and --url go together (the HTTP proxy)")
    if args.url is not None and command:
        raise exit_codes.UsageError("proxy: either --listen/--url (HTTP) or -- SERVER_COMMAND (stdio), not both")
    if args.url is None and not command:
        raise exit_codes.UsageError("proxy: give the server command after --: mcp-inspector proxy -- SERVER_COMMAND")
    if args.name is None:
        args.name = _default_name(command) if command else _url_name(args.url)
    elif not NAME_PATTERN.match(args.name):
        raise exit_codes.UsageError(
            f"proxy: --name {args.name!r}: letters, digits, '.', '_' and '-' only (64 at most), first a letter or digit"
        )
    return args, command


def _default_name(command: list[str]) -> str:
    base = os.path.basename(command[0]) or "server"
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", base).lstrip("._-")[:64]
    return cleaned or "server"


def _url_name(url: str) -> str:
    from urllib.parse import urlsplit

    host = urlsplit(url).hostname or "server"
    return re.sub(r"[^A-Za-z0-9._-]", "-", host).lstrip("._-")[:64] or "server"


def record_header(command: list[str], name: str, url: str | None = None) -> dict[str, Any]:
    if url is not None:
        from ...core.base.masking import mask_url

        return {
            "recorded_by": "mcp-inspector proxy",
            "client": "proxy",
            "server": f"http {mask_url(url)}",
            "url": mask_url(url),
            "name": name,
            "transport": "http",
        }
    return {
        "recorded_by": "mcp-inspector proxy",
        "client": "proxy",
        "server": subprocess.list2cmdline(command),
        "command": command,
        "name": name,
        "transport": "stdio",
    }


def _tracing_url(args: argparse.Namespace) -> str | None:
    """--otlp URL, or the standard variables' (the exporter reads them itself); None: no tracing."""
    if args.otlp:
        return str(args.otlp)
    return os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def _say(args: argparse.Namespace, text: str) -> None:
    if not args.quiet:
        with contextlib.suppress(OSError):
            os.write(2, f"mcp-inspector proxy: {text}\n".encode())


def run_proxy(argv: list[str]) -> tuple[int, int | None]:
    """Run the proxy to the server's end: (exit code, the signal that killed the server or None)."""
    try:
        args, command = parse_proxy(argv)
    except exit_codes.UsageError as exc:
        _say(argparse.Namespace(quiet=False), str(exc))
        return exit_codes.USAGE, None
    if args.wrap or args.unwrap:
        return _run_wrap(args), None
    header = record_header(command, args.name, args.url)
    if args.url is not None:
        return _run_http_recorded(args, header), None
    if args.record:
        try:
            open_private(args.record).close()  # a path we cannot write is a usage error now, not later
        except OSError as exc:
            _say(args, f"cannot write the record file {args.record}: {exc.strerror or exc}")
            return exit_codes.USAGE, None
    # recorded (and published) by a process of its own: the forward threads here keep the GIL (relay.py)
    sink = RecordPipe(
        {
            "record": os.path.abspath(args.record) if args.record else None,
            "name": args.name,
            "header": {**header, "pid": os.getpid()},
            "live": not args.no_live,
            "quiet": args.quiet,
            "otlp": args.otlp,
            "trace": _tracing_url(args) is not None,
        }
    )
    proxy = StdioProxy(command, sink, inject_sink=sink)
    sink.on_inject = proxy.inject  # frames a viewer sends into the session (core/proxy/inject.py)

    def on_signal(signum: int, frame: Any) -> None:
        proxy.pass_signal(signum)
        proxy.note_signal(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in FORWARDED}
    try:
        try:
            proxy.start()
        except ProxyStartError as exc:
            _say(args, str(exc))
            return exit_codes.SERVER_FAILURE, None
        status: ExitStatus = proxy.wait()
    finally:
        for sig, handler in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, handler)
        sink.close()
    if status.signal is not None:
        return 128 + status.signal, status.signal
    return status.code, None


def _run_http_recorded(args: argparse.Namespace, header: dict[str, Any]) -> int:
    """The HTTP proxy, recorded in this process (its event loop hands whole frames to the recorder)."""
    store = TrafficStore(spill=args.record is not None)
    writer = None
    if args.record:
        try:
            writer = SessionWriter(args.record, header=header)
        except OSError as exc:
            _say(args, f"cannot write the record file {args.record}: {exc.strerror or exc}")
            return exit_codes.USAGE
        store.attach_recorder(writer)
    publisher = None
    if not args.no_live:
        try:
            publisher = FeedPublisher(args.name, header)
        except FeedError as exc:  # the host's session goes on: only the live view is off
            _say(args, f"no live view: {exc}")
            store.note(f"no live view: {exc}")
        else:
            store.add_listener(published(publisher, writer))  # the session file's line, not encoded again
            if publisher.name != args.name:
                _say(args, f"a proxy named {args.name} is running already: this one is {publisher.name}")
    # the event loop waits for the GIL while the recorder holds it: handed back within 10 us, not 5 ms
    sys.setswitchinterval(SWITCH_INTERVAL)
    recorder = FrameRecorder(store)
    if writer is not None:  # the exchanges in the session file too, in order with the frames
        recorder.http_listeners.append(writer.write_record)
    if publisher is not None:  # the exchanges themselves, for the viewer's HTTP view
        recorder.http_listeners.append(publisher.publish_record)
    tracing = _tracing_url(args)
    if tracing is not None:
        from ...core import telemetry

        try:
            telemetry.configure(args.otlp, "mcp-inspector-proxy", quiet=args.quiet)
        except telemetry.TelemetryUnavailable as exc:
            _say(args, f"no tracing: {exc}")
        recorder.spans = telemetry.relay_spans(args.url)
    recorder.start()
    try:
        return _run_http(args, recorder)
    finally:
        recorder.close()
        if recorder.spans is not None:
            from ...core import telemetry

            telemetry.shutdown()
        if publisher is not None:
            publisher.close()
        store.close()
        if writer is not None:
            writer.close()


def _run_wrap(args: argparse.Namespace) -> int:
    """Print the rewritten entry; with --write, edit the file (after a backup)."""
    import json
    from pathlib import Path

    from ...core.proxy.wrap import WrapError, rewrite, write_with_backup

    path = Path(args.config).expanduser()
    try:
        text, entry = rewrite(path, args.server, unwrap=args.unwrap, record=args.record)
        if args.write:
            backup = write_with_backup(path, text)
    except WrapError as exc:
        _say(argparse.Namespace(quiet=False), str(exc))
        return exit_codes.USAGE
    except (OSError, UnicodeDecodeError) as exc:
        _say(argparse.Namespace(quiet=False), f"cannot rewrite {path}: {getattr(exc, 'strerror', None) or exc}")
        return exit_codes.USAGE
    print(json.dumps({args.server: entry}, indent=2, ensure_ascii=False))
    if args.write:
        _say(args, f"{path} rewritten; the previous version is {backup}")
    return exit_codes.OK


def _run_http(args: argparse.Namespace, recorder: FrameRecorder) -> int:
    """The HTTP reverse proxy until a stop signal: 0, or 128 + the signal."""
    import anyio

    from ...core.proxy.http import HttpProxy, ListenError, parse_listen

    try:
        address = parse_listen(args.listen)
        if not address.loopback:
            _say(
                argparse.Namespace(quiet=False),
                f"warning: listening on {address.host}, not loopback: anyone who can reach it can use the server "
                "through this proxy (and its credentials)",
            )
        proxy = HttpProxy(args.url, address, recorder, on_listening=lambda url: _say(args, f"listening on {url}"))
    except ListenError as exc:
        _say(argparse.Namespace(quiet=False), str(exc))
        return exit_codes.USAGE
    stopped: list[int] = []

    async def run() -> None:
        async with anyio.create_task_group() as group:

            async def until_signal() -> None:
                with anyio.open_signal_receiver(*FORWARDED) as signals:
                    async for signum in signals:
                        stopped.append(signum)
                        group.cancel_scope.cancel()
                        return

            group.start_soon(until_signal)
            try:
                await proxy.serve()
            finally:
                group.cancel_scope.cancel()

    try:
        anyio.run(run)
    except ListenError as exc:
        _say(argparse.Namespace(quiet=False), str(exc))
        return exit_codes.USAGE
    except BaseExceptionGroup as group:
        listen = [exc for exc in group.exceptions if isinstance(exc, ListenError)]
        if not listen:
            raise
        _say(argparse.Namespace(quiet=False), str(listen[0]))
        return exit_codes.USAGE
    return 128 + stopped[0] if stopped else 0


def main(argv: list[str], program: bool) -> int:
    """The ``proxy`` command; ``program``: this is the process itself, which then dies by the
    signal that killed the server (the host sees the same status as without us)."""
    code, killed_by = run_proxy(argv)
    if program and killed_by is not None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
            signal.signal(killed_by, signal.SIG_DFL)
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), killed_by)
    return code
