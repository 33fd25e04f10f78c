"""Dispatch of a parsed command line (parsing.py), and the one place errors become exit codes.

Heavy modules (anyio, the session, jsonschema, the TUI) are imported only once we
know they are needed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import exit_codes, gc_pause
from .exit_codes import UsageError
from .output.report import error
from .parsing import parse

if TYPE_CHECKING:
    from ..core.started import StartedServer

#: warnings about how the server's requests were answered, at most (then one line says the rest are not shown)
ANSWER_WARNINGS = 20


def run_command_line(argv: list[str], early: StartedServer | None = None) -> int:
    """Run the command line and return the exit code; never lets a traceback out.

    ``early`` is the server process main.py may already have started.
    """
    try:
        return _main(argv, early)
    except BaseException as exc:  # noqa: BLE001 - the promise is "never a traceback"
        return _exit_code_for(_leaf(exc))
    finally:
        telemetry = sys.modules.get("mcp_inspector.core.telemetry")
        if telemetry is not None:  # imported once a connection was made: flush any spans (bounded)
            telemetry.shutdown()
        if early is not None and early.process.returncode is None and not early.claimed:
            early.discard()


def _leaf(exc: BaseException) -> BaseException:
    """anyio wraps what escapes a task group in exception groups: find what really happened."""
    leaves: list[BaseException] = []
    pending = [exc]
    while pending:
        current = pending.pop(0)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            leaves.append(current)
    for kind in (KeyboardInterrupt, BrokenPipeError, UsageError):
        for leaf in leaves:
            if isinstance(leaf, kind):
                return leaf
    return leaves[0] if leaves else exc


def _exit_code_for(exc: BaseException) -> int:
    if isinstance(exc, UsageError):
        error(str(exc))
        return exit_codes.USAGE
    if isinstance(exc, KeyboardInterrupt):
        error("interrupted")
        return exit_codes.INTERRUPTED
    if isinstance(exc, BrokenPipeError):
        _silence_stdout()
        return exit_codes.OK
    if isinstance(exc, SystemExit):  # --help, --version
        return exc.code if isinstance(exc.code, int) else exit_codes.OK
    error(f"internal error: {_describe(exc)}")
    return exit_codes.INTERNAL


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        return _describe(exc.exceptions[0])
    return f"{exc.__class__.__name__}: {exc}"


def _silence_stdout() -> None:
    """The reader went away (``| head``): keep Python from complaining at exit."""
    with contextlib.suppress(OSError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def timeout_given(argv: list[str]) -> bool:
    """--timeout is on the command line (before the server command): it wins over the TUI
    config's request_timeout."""
    own = argv[: argv.index("--")] if "--" in argv else argv
    return any(word == "--timeout" or word.startswith("--timeout=") for word in own)


def _start_tracing(args: argparse.Namespace) -> None:
    """--otlp URL or OTEL_EXPORTER_OTLP_ENDPOINT: spans for every session of this run (core/telemetry).
    Nothing of OpenTelemetry is imported otherwise."""
    if not (
        args.otlp
        or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    ):
        return
    from ..core import telemetry

    try:
        telemetry.configure(args.otlp, quiet=args.command is None)
    except telemetry.TelemetryUnavailable as exc:
        raise UsageError(str(exc)) from None


def _main(argv: list[str], early: StartedServer | None = None) -> int:
    args = parse(argv)
    args.timeout_given = timeout_given(argv)
    _start_tracing(args)
    if (
        args.command in ("auth", "query", "watch")
        or (args.command == "diff" and args.new is not None)
        or (args.command == "check" and args.check_open is not None)
    ):
        gc_pause.resume()  # no session through runner.run (which resumes it), nor the TUI (below)
    if args.command in ("auth", "query") and (args.report is not None or args.log_level is not None):
        # neither talks to a server: a --report FILE never written would fool a script
        raise UsageError(f"--report and --log-level go with a command that runs a server, not {args.command}")
    if args.command == "auth":
        from .commands.auth import cmd_auth_logout, cmd_auth_status

        return cmd_auth_status(args) if args.auth_action == "status" else cmd_auth_logout(args)
    if args.command == "query":
        from .commands.query import cmd_query

        return cmd_query(args)
    if args.command == "diff" and args.new is not None:
        if args.server_command or args.url or args.config or args.server:
            raise UsageError("diff: give NEW (a snapshot file) or a server for the new side, not both")
        from .commands.surface import cmd_diff_files

        return cmd_diff_files(args)
    if args.command == "diff":
        from .commands.surface import load_snapshot

        load_snapshot(args.old)  # a bad OLD file is a usage error before the server starts
    if args.command == "check" and args.check_open is not None:
        from .commands.check import run_check_command

        return run_check_command(None, args, {})
    if args.query is not None:
        from .commands.query import check_query_option

        check_query_option(args)  # a bad expression is a usage error before connecting
    if args.record:
        _check_record_path(args.record)
    from .target import RemoteOptions, auth_values, build_spec

    spec = build_spec(
        args.server_command,
        config=args.config,
        server=args.server,
        url=args.url,
        demo=args.demo,
        env_options=args.env,
        cwd=args.cwd,
        default_demo=not (args.command is None and args.open),
        remote=RemoteOptions(
            transport=args.transport,
            headers=args.headers,
            bearer_token=args.bearer_token,
            insecure=args.insecure,
            era=args.era,
            protocol_version=args.protocol_version,
            auth=auth_values(args),
            no_auth=args.no_auth,
        ),
    )
    spec = _with_roots(spec, args.roots)
    handlers = _answer_handlers(args, spec)
    if args.command is None and (args.elicitation is not None or args.sampling is not None):
        raise UsageError(
            "--elicitation and --sampling answer for headless commands; the terminal UI asks you (give a COMMAND)"
        )
    if args.command is None and (args.report is not None or args.log_level is not None):
        raise UsageError("--report and --log-level go with a COMMAND (the terminal UI has its own log level control)")
    if args.command == "pipe" and args.log_level is not None:
        raise UsageError("--log-level does not go with pipe: send logging/setLevel yourself")
    if spec is not None and spec.insecure and spec.url and not args.quiet:
        from .output.report import warn

        warn(f"--insecure: TLS certificates of {spec.describe().split(' ', 1)[1]} are not verified")
    if args.command is None:
        return _run_tui(spec, args)
    if args.command == "watch":
        return _run_watch(spec, args, handlers)
    if args.command in ("call", "read", "get", "subscribe"):
        from .arguments import require_utf8

        name = {"call": "tool", "read": "uri", "get": "prompt", "subscribe": "uri"}[args.command]
        require_utf8(getattr(args, name), name.upper())
    if args.report is not None and args.report != "-":
        _check_record_path(args.report, "--report")
    if args.command == "check":
        from .commands.check import run_check_command

        code = run_check_command(spec, args, handlers)
        sys.stdout.flush()
        return code
    prepare = PREPARE.get(args.command)
    if prepare is not None:
        handlers = prepare(args, handlers)
    from ..core.protocol.versions import LATEST_LEGACY
    from .runner import RunOptions, run

    options = RunOptions(
        timeout=args.timeout,
        record=args.record,
        show_stderr=args.show_stderr,
        protocol_version=spec.protocol_version or LATEST_LEGACY,
        quiet=args.quiet,
        json=args.json,
        progress=args.progress,
        handshake=args.command != "pipe",
        max_frame_bytes=args.max_frame_size,
        handlers=handlers,
        log_level=args.log_level,
        report=args.report,
        command=args.command,
        query=args.query,
    )
    if args.surface_eras:  # snapshot / diff --era both: a run in each era
        from .commands.surface import run_both_eras

        return run_both_eras(spec, options, args)
    if args.command == "pipe":
        from .pipe import run_pipe as body
    else:
        module = importlib.import_module(f".commands.{COMMAND_MODULES.get(args.command, 'basic')}", __package__)
        command = module.COMMANDS[args.command]

        async def body(session, context):
            return await command(session, context, args)

    code = run(spec, options, body, started=early)
    sys.stdout.flush()
    return code


# -- the command tables ----------------------------------------------------------------------

#: the module of cli/commands/ whose COMMANDS table has a headless command (the rest: basic.py)
COMMAND_MODULES: dict[str, str] = {
    "templates": "session",
    "read": "session",
    "complete": "session",
    "subscribe": "session",
    "tasks": "tasks",
    "replay": "replay",
    "snapshot": "surface",
    "diff": "surface",
}

Handlers = dict[str, Any]


def _prepare_call(args: argparse.Namespace, handlers: Handlers) -> Handlers:
    from .arguments import tool_arguments

    args.arguments = tool_arguments(args.pairs, args.args)
    # The arguments are checked against the inputSchema mid-session: load the validator now,
    # so its ~60 ms of imports does not stall the event loop (and the transport's streams) then.
    from ..core.schema.validation import validate

    validate({"type": "object"}, {})
    return handlers


def _prepare_session_command(args: argparse.Namespace, handlers: Handlers) -> Handlers:
    from .commands.session import prepare

    prepare(args)  # the template and its variables, the completion's reference: usage errors now
    return handlers


def _prepare_replay(args: argparse.Namespace, handlers: Handlers) -> Handlers:
    from .commands.replay import answer_handlers
    from .commands.replay import prepare as prepare_replay

    prepare_replay(args)  # the file and the --ignore paths: usage errors before the server starts
    return {**handlers, **answer_handlers(args, handlers)}


def _prepare_get(args: argparse.Namespace, handlers: Handlers) -> Handlers:
    from .arguments import prompt_arguments
    from .output.report import warn

    args.arguments, warnings = prompt_arguments(args.pairs, args.args)
    if not args.quiet:
        for message in warnings:
            warn(message)
    return handlers


#: what a command checks and derives from its arguments before the server starts (usage errors
#: first), and the answer handlers it runs with
PREPARE: dict[str, Callable[[argparse.Namespace, Handlers], Handlers]] = {
    "call": _prepare_call,
    "read": _prepare_session_command,
    "complete": _prepare_session_command,
    "subscribe": _prepare_session_command,
    "replay": _prepare_replay,
    "get": _prepare_get,
}


def watch_paths(spec, given: list[str]) -> list[str]:
    """--watch paths, resolved (core/watch/paths.py); what cannot be watched is a usage error."""
    from ..core.watch.paths import WatchError, resolve_watch_paths

    try:
        return resolve_watch_paths(given, spec)
    except WatchError as exc:
        raise UsageError(str(exc)) from None


def _run_watch(spec, args: argparse.Namespace, handlers: dict) -> int:
    # --watch; else the config entry's "watch"; else the server's own directory
    paths = watch_paths(spec, args.watch if args.watch != [""] or not spec.watch else spec.watch)
    if args.report is not None or args.log_level is not None:
        raise UsageError("--report and --log-level go with the one-shot commands, not watch")
    arguments = {}
    if args.call is not None:
        from .arguments import require_utf8, tool_arguments

        require_utf8(args.call, "TOOL")
        arguments = tool_arguments(args.pairs, args.args)
    from .commands.watch import WatchRequest, run_watch
    from .runner import RunOptions

    options = RunOptions(
        timeout=args.timeout,
        record=args.record,
        show_stderr=args.show_stderr,
        quiet=args.quiet,
        json=args.json,
        max_frame_bytes=args.max_frame_size,
        handlers=handlers,
        command="watch",
    )
    request = WatchRequest(
        paths,
        call=args.call,
        arguments=arguments,
        count=args.count,
        ignore=[os.path.abspath(args.record)] if args.record else [],
    )
    code = run_watch(spec, options, request)
    sys.stdout.flush()
    return code


def _with_roots(spec, roots: list[str]):
    """``--root`` paths (absolute) over the spec's own (a config entry's "roots"): given, they replace them."""
    if not roots:
        return spec
    if spec is None:
        raise UsageError("--root needs a server (roots are what the client tells a server)")
    from dataclasses import replace

    from ..core.config.servers import root_path

    try:
        return replace(spec, roots=[root_path(root) for root in roots])
    except ValueError as exc:
        raise UsageError(f"--root: {exc}") from None


def _answer_handlers(args: argparse.Namespace, spec=None) -> dict:
    """The --elicitation/--sampling/--root policies, built (and their files read) before connecting.
    Every command but pipe declares all three capabilities, as the TUI does (answers.headless_handlers:
    the defaults when a policy is not given); pipe, whose user speaks the protocol, only those given.
    The roots are the spec's: --root, else the config entry's "roots"."""
    headless = args.command not in (None, "pipe")
    roots = list(spec.roots) if spec is not None else []
    if not headless and args.elicitation is None and args.sampling is None and not roots:
        return {}
    from ..core.session.answers import AnswerPolicyError, build_handlers, headless_handlers
    from .output.report import warn

    said = [0]

    def report(message: str) -> None:
        # bounded: a server that asks a thousand times does not get a thousand lines
        if args.quiet or said[0] > ANSWER_WARNINGS:
            return
        said[0] += 1
        if said[0] > ANSWER_WARNINGS:
            message = f"more than {ANSWER_WARNINGS} warnings about answers to the server: the rest are not shown"
        warn(message)

    def refused(message: str) -> None:
        if not args.quiet:
            warn(message)

    try:
        if headless:
            return headless_handlers(args.elicitation, args.sampling, roots, report=report, report_refused=refused)
        return build_handlers(args.elicitation, args.sampling, roots, report=report)
    except AnswerPolicyError as exc:
        raise UsageError(str(exc)) from None


def _check_record_path(path: str, option: str = "--record") -> None:
    """--record and --report make their file (0600) but never its directory (a typo is an error, not a
    new tree), and write only a regular file: a symlink, a FIFO or a device is refused before the
    server starts (``open_private`` refuses them again when the file is opened)."""
    from ..core.base.files import writable_problem

    problem = writable_problem(path)
    if problem is not None:
        raise UsageError(f"{option}: {problem}")


def _run_tui(spec, args: argparse.Namespace) -> int:
    if args.open is not None:
        if not os.path.lexists(args.open):
            raise UsageError(f"session file not found: {args.open}")
        # read_header refuses directories, FIFOs, devices, unreadable files and bad headers with one line
        from ..core.traffic.loading import SessionFileError, read_header

        try:
            read_header(args.open)
        except SessionFileError as exc:
            raise UsageError(str(exc)) from None
    given = args.watch or (list(spec.watch) if spec is not None and args.open is None else [])  # the entry's "watch"
    watch = watch_paths(spec, given) if given else None  # checked before the screen opens
    if args.rerun and not watch:
        raise UsageError("--rerun re-runs the last call after a restart: it goes with --watch")
    _start_early(spec, args)
    try:
        try:
            from ..tui.app import run_tui
        except ImportError as exc:
            raise UsageError(f"the terminal UI is not available ({exc}); run a COMMAND instead") from None
        gc_pause.resume()  # Textual is imported: the app may run for hours
        return run_tui(
            spec,
            open_file=args.open,
            record=args.record,
            timeout=args.timeout,
            max_frame_bytes=args.max_frame_size,
            watch=watch,
            rerun=args.rerun,
            timeout_given=args.timeout_given,
        )
    finally:
        from ..core.config.factory import discard_offered

        discard_offered()  # a server started early that no transport adopted


def _start_early(spec, args: argparse.Namespace) -> None:
    """Start a stdio server before importing Textual and painting: it boots while the UI does
    (server-everything: ~0.4 s of node start). Its first transport adopts it (factory.offer_started);
    a command that cannot start is left to the transport, which reports it its way."""
    if spec is None or spec.url or not spec.command or args.open is not None:
        return
    from ..core.started import start_server

    try:
        started = start_server(list(spec.command), dict(spec.env or {}), spec.cwd)
    except OSError:
        return
    from ..core.config.factory import offer_started

    offer_started(spec, started)
