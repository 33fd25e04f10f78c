"""Argument parsing, dispatch, and the one place errors become exit codes.

Options are accepted before or after the command. Heavy modules (anyio, the
session, jsonschema, the TUI) are imported only once we know they are needed.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from ..core.protocol.framing import MAX_LINE_BYTES
from . import exit_codes
from .exit_codes import EPILOG, UsageError
from .report import error

DESCRIPTION = """\
Inspect and debug MCP servers. With a COMMAND it runs headless (for scripts and CI);
without one it opens the terminal UI. The server is the command after --, a remote server
(--url URL), an entry of a config file (--config FILE --server NAME), or the built-in demo
server when none is given.
"""

COMMAND_EPILOG = """\
commands:
  info                      server name, protocol version, capabilities, instructions
  tools                     list the tools (all pages)
  resources                 list the resources and resource templates
  prompts                   list the prompts
  call TOOL [k=v ...]       call a tool; --args JSON gives the base arguments
  read URI                  read a resource
  get PROMPT [k=v ...]      get a prompt (arguments are strings)
  ping                      measure a round trip
  pipe                      send newline-delimited JSON-RPC from stdin, print every server frame

arguments (call, get): k=v takes v as JSON when it parses as JSON, else as a string
  (n=3 is a number, flag=true a boolean, s=hello a string, tags='["a","b"]' a list);
  k=@file reads the value from a file (same rule); pairs override --args.

examples:
  mcp-inspector tools -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector call add a=1 b=2 --json -- python server.py
  mcp-inspector --config ~/.cursor/mcp.json --server github tools
  mcp-inspector tools --url http://127.0.0.1:3001/mcp
  mcp-inspector call add a=1 b=2 --url https://example.com/mcp -H 'X-Tenant: acme' --bearer-token "$TOKEN"
  printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | mcp-inspector pipe -- python server.py

"""


class Parser(argparse.ArgumentParser):
    """argparse exits with 2 on bad input, which is our JSON-RPC error code: raise instead."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{message} (see mcp-inspector --help)")


def _timeout(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError("must be >= 0 (0 means no timeout)")
    if value == float("inf"):
        return None  # "inf" means what 0 means: no timeout
    return value or None


_SIZE_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _byte_size(text: str) -> int:
    """``262144``, ``64K``, ``256M``, ``1G`` (binary units); at least 1K."""
    scale = _SIZE_UNITS.get(text[-1:].upper())
    try:
        value = int(text[:-1] if scale else text) * (scale or 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 262144, 64K, 256M, 1G)") from None
    if value < 1024:
        raise argparse.ArgumentTypeError("must be at least 1K")
    return value


TRANSPORT_CHOICES = ("auto", "streamable-http", "sse")
ERA_CHOICES = ("auto", "legacy", "modern")


def _add_options(parser: argparse.ArgumentParser, top: bool) -> None:
    """The options, on the main parser (with defaults) and on each command (without)."""
    default = (lambda value: value) if top else (lambda value: argparse.SUPPRESS)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", default=default(False),
                        help="machine output: call/read/get print the result (or error) exactly as received")
    output.add_argument("-q", "--quiet", action="store_true", default=default(False), help="no warnings or notes on stderr")
    output.add_argument("--progress", action="store_true", default=default(False),
                        help="show progress and log notifications on stderr even when it is not a terminal")
    output.add_argument("--show-stderr", action="store_true", default=default(False),
                        help="echo the server's stderr, live, prefixed with [server]")
    output.add_argument("--record", metavar="FILE", default=default(None),
                        help="write the whole session (every frame) to a JSONL session file")
    server = parser.add_argument_group("server")
    server.add_argument("--config", metavar="FILE", default=default(None),
                        help="a config file with {\"mcpServers\": {...}} (Claude, Cursor...) or {\"servers\": {...}} (VS Code)")
    server.add_argument("--server", metavar="NAME", default=default(None), help="which server of the --config file")
    server.add_argument("--demo", action="store_true", default=default(False), help="the built-in demo server (the default)")
    server.add_argument("--url", metavar="URL", default=default(None),
                        help="a remote server over HTTP (http:// or https://)")
    server.add_argument("-e", "--env", metavar="KEY=VALUE", action="append", dest="env" if top else "env_after",
                        default=default([]), help="set an environment variable for the server (repeatable)")
    server.add_argument("--cwd", metavar="DIR", default=default(None), help="the server's working directory")
    remote = parser.add_argument_group("remote servers (--url, or a config entry with \"url\")")
    remote.add_argument("--transport", choices=TRANSPORT_CHOICES, default=default(None),
                        help="auto (default): Streamable HTTP, falling back to the legacy HTTP+SSE transport; "
                             "or only one of them")
    remote.add_argument("-H", "--header", metavar="'NAME: VALUE'", action="append",
                        dest="headers" if top else "headers_after", default=default([]),
                        help="an HTTP header sent with every request (repeatable); ${VAR} or ${env:VAR} in the value "
                             "comes from the environment. Secret-looking values are masked in every message")
    remote.add_argument("--bearer-token", metavar="TOKEN", default=default(None),
                        help="sends 'Authorization: Bearer TOKEN'; also read from $MCP_INSPECTOR_BEARER_TOKEN, "
                             "which keeps it out of the shell history")
    remote.add_argument("--insecure", action="store_true", default=default(False),
                        help="do not verify TLS certificates (a warning is printed)")
    answers = parser.add_argument_group(
        "answers to server requests (without one, that capability is not declared)")
    answers.add_argument("--elicitation", metavar="POLICY", default=default(None),
                         help="defaults: accept with the requestedSchema's defaults; decline; cancel; "
                              "@FILE: answers from a JSON object, merged over the defaults")
    answers.add_argument("--sampling", metavar="POLICY", default=default(None),
                         help="decline (an error reply), or @FILE: a CreateMessageResult or {\"text\": \"...\"}")
    answers.add_argument("--root", metavar="PATH", action="append", dest="roots" if top else "roots_after",
                         default=default([]), help="declare the roots capability and answer roots/list with these "
                                                    "paths as file:// URIs (repeatable)")
    protocol = parser.add_argument_group("protocol")
    protocol.add_argument("--timeout", metavar="SECONDS", type=_timeout, default=default(60.0),
                          help="per request (default 60; 0 = none)")
    protocol.add_argument("--max-frame-size", metavar="SIZE", type=_byte_size, default=default(MAX_LINE_BYTES),
                          help="the longest line read whole from the server, or from stdin for pipe (default 256M); "
                               "a longer one is kept as its first 64K and recorded as invalid 'too long: N bytes'")
    protocol.add_argument("--protocol-version", metavar="VERSION", default=default(None),
                          help="the protocol version to propose (default: the latest of the era); "
                               "2026-07-28 implies --era modern")
    protocol.add_argument("--era", choices=ERA_CHOICES, default=default(None),
                          help="auto (default): detect whether the server speaks the modern (2026-07-28, stateless) "
                               "or the legacy (initialize handshake) protocol; or force one")


COMMAND_HELP = {
    "info": "server name, protocol version, capabilities and instructions",
    "tools": "list the tools (all pages)",
    "resources": "list the resources and resource templates",
    "prompts": "list the prompts",
    "call": "call a tool",
    "read": "read a resource",
    "get": "get a prompt",
    "ping": "measure a round trip",
    "pipe": "send newline-delimited JSON-RPC from stdin in order; print every server frame as a JSON line",
}
COMMAND_ARGS = {"call": " TOOL [KEY=VALUE ...] [--args JSON]", "read": " URI", "get": " PROMPT [KEY=VALUE ...] [--args JSON]"}
# Options that take a value: the word after them is never the command name.
VALUE_OPTIONS = {"--record", "--config", "--server", "--url", "-e", "--env", "--cwd", "--timeout", "--max-frame-size",
                 "--protocol-version", "--open", "--args", "--transport", "-H", "--header", "--bearer-token", "--era",
                 "--elicitation", "--sampling", "--root"}


def command_word(words: list[str]) -> str | None:
    """The command named in ``words``, found without building every sub-parser."""
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in VALUE_OPTIONS:
            skip = True
        elif word in COMMAND_HELP:
            return word
        elif not word.startswith("-"):
            return None
    return None


def build_parser(only: str | None = None) -> Parser:
    """The full parser; with ``only``, the other commands get no options (startup time:
    building every sub-parser costs several milliseconds; --help builds them all)."""
    parser = Parser(
        prog="mcp-inspector",
        usage="%(prog)s [options] [COMMAND [args]] [-- SERVER_COMMAND [server args]]",
        description=DESCRIPTION,
        epilog=COMMAND_EPILOG + EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mcp-inspector {__version__}")
    parser.add_argument("--open", metavar="FILE", help="open a recorded session file in the TUI")
    _add_options(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser,
                                     help="one of the commands below; none opens the terminal UI")

    def add(name: str) -> argparse.ArgumentParser:
        # no help= here: the "commands:" part of the epilog lists them, with their arguments
        usage = f"mcp-inspector {name}{COMMAND_ARGS.get(name, '')} [options] [-- SERVER_COMMAND [server args]]"
        sub = commands.add_parser(name, usage=usage, description=COMMAND_HELP[name], epilog=EPILOG,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        if only is None or only == name:
            _add_options(sub, top=False)
        return sub

    for name in ("info", "tools", "resources", "prompts"):
        add(name)
    call = add("call")
    call.add_argument("tool", metavar="TOOL")
    call.add_argument("pairs", nargs="*", default=[], metavar="KEY=VALUE", help="an argument (JSON if it parses, else a string; @file reads a file)")
    call.add_argument("--args", metavar="JSON", help="the arguments as a JSON object (or @file.json); KEY=VALUE pairs override it")
    read = add("read")
    read.add_argument("uri", metavar="URI")
    get = add("get")
    get.add_argument("prompt", metavar="PROMPT")
    get.add_argument("pairs", nargs="*", default=[], metavar="KEY=VALUE", help="a prompt argument (a string; @file reads a file)")
    get.add_argument("--args", metavar="JSON", help="the arguments as a JSON object of strings (or @file.json)")
    add("ping")
    add("pipe")
    return parser


def split_server_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """Everything after the first ``--`` is the server command, untouched."""
    argv = list(argv)
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1:]
    return argv, []


def parse(argv: list[str]) -> argparse.Namespace:
    own, server_command = split_server_command(argv)
    if len(own) < len(argv) and not server_command:
        raise UsageError("nothing after --: give the server command there (or leave out -- for the demo server)")
    wants_help = any(word in ("-h", "--help") for word in own)
    parser = build_parser(None if wants_help else command_word(own))
    args, extra = parser.parse_known_args(own)
    args.server_command = server_command
    args.env = list(args.env) + list(getattr(args, "env_after", []))
    args.headers = list(args.headers) + list(getattr(args, "headers_after", []))
    args.roots = list(args.roots) + list(getattr(args, "roots_after", []))
    pairs_allowed = args.command in ("call", "get")
    for word in extra:
        if pairs_allowed and not word.startswith("-"):
            args.pairs.append(word)
        elif word.startswith("-"):
            raise UsageError(f"unknown option {word} (see mcp-inspector --help)")
        else:
            raise UsageError(f"unexpected argument {word!r} (put the server command after --)")
    if args.command is not None and args.open is not None:
        raise UsageError("--open opens a recorded session in the TUI; it does not go with a command")
    return args


def run_command_line(argv: list[str], early=None) -> int:
    """Run the command line and return the exit code; never lets a traceback out.

    ``early`` is the server process main.py may already have started.
    """
    try:
        return _main(argv, early)
    except BaseException as exc:  # noqa: BLE001 - the promise is "never a traceback"
        return _exit_code_for(_leaf(exc))
    finally:
        if early is not None and early.returncode is None and not getattr(early, "claimed", False):
            from .early import discard

            discard(early)


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
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass


def _main(argv: list[str], early=None) -> int:
    args = parse(argv)
    if args.record:
        _check_record_path(args.record)
    from .target import RemoteOptions, build_spec

    spec = build_spec(args.server_command, config=args.config, server=args.server, url=args.url, demo=args.demo,
                      env_options=args.env, cwd=args.cwd, default_demo=not (args.command is None and args.open),
                      remote=RemoteOptions(transport=args.transport, headers=args.headers, bearer_token=args.bearer_token,
                                           insecure=args.insecure, era=args.era, protocol_version=args.protocol_version))
    handlers = _answer_handlers(args)
    if handlers and args.command is None:
        raise UsageError("--elicitation, --sampling and --root answer for headless commands; "
                         "the terminal UI asks you (give a COMMAND)")
    if spec is not None and spec.insecure and spec.url and not args.quiet:
        from .report import warn

        warn(f"--insecure: TLS certificates of {spec.describe().split(' ', 1)[1]} are not verified")
    if args.command is None:
        return _run_tui(spec, args)
    if args.command in ("call", "read", "get"):
        from .arguments import require_utf8

        name = {"call": "tool", "read": "uri", "get": "prompt"}[args.command]
        require_utf8(getattr(args, name), name.upper())
    if args.command == "call":
        from .arguments import tool_arguments

        args.arguments = tool_arguments(args.pairs, args.args)
        # The arguments are checked against the inputSchema mid-session: load the validator now,
        # so its ~60 ms of imports does not stall the event loop (and the transport's streams) then.
        from ..core.schema.validation import validate

        validate({"type": "object"}, {})
    elif args.command == "get":
        from .arguments import prompt_arguments
        from .report import warn

        args.arguments, warnings = prompt_arguments(args.pairs, args.args)
        if not args.quiet:
            for message in warnings:
                warn(message)
    from ..core.protocol.versions import LATEST_LEGACY
    from .runner import RunOptions, run

    options = RunOptions(timeout=args.timeout, record=args.record, show_stderr=args.show_stderr,
                         protocol_version=spec.protocol_version or LATEST_LEGACY, quiet=args.quiet,
                         json=args.json, progress=args.progress, handshake=args.command != "pipe",
                         max_frame_bytes=args.max_frame_size, handlers=handlers)
    if args.command == "pipe":
        from .pipe import run_pipe as body
    else:
        from .commands import COMMANDS

        command = COMMANDS[args.command]

        async def body(session, context):
            return await command(session, context, args)

    code = run(spec, options, body, started=early)
    sys.stdout.flush()
    return code


def _answer_handlers(args: argparse.Namespace) -> dict:
    """The --elicitation/--sampling/--root policies, built (and their files read) before connecting."""
    if args.elicitation is None and args.sampling is None and not args.roots:
        return {}
    from ..core.session.answers import AnswerPolicyError, build_handlers
    from .report import warn

    def report(message: str) -> None:
        if not args.quiet:
            warn(message)

    try:
        return build_handlers(args.elicitation, args.sampling, args.roots, report=report)
    except AnswerPolicyError as exc:
        raise UsageError(str(exc)) from None


def _check_record_path(path: str) -> None:
    """--record makes its file (0600) but never its directory: a typo is an error, not a new tree."""
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise UsageError(f"--record: the directory {parent} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"--record: {path} is a directory")


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
    try:
        from ..tui.app import run_tui
    except ImportError as exc:
        raise UsageError(f"the terminal UI is not available ({exc}); run a COMMAND instead") from None
    return run_tui(spec, open_file=args.open, record=args.record, timeout=args.timeout,
                   max_frame_bytes=args.max_frame_size)
