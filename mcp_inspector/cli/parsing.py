"""The command line's grammar: the parser, and parsing with the checks across options.

Options are accepted before or after the command. Only argparse and our own light
modules are imported here (startup time); dispatch.py runs what was parsed. The options
every command takes: parsing_options.py (OAuth's: parsing_auth.py); each command's own
arguments and help: parsing_commands.py (check's: parsing_check.py).
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from .exit_codes import EPILOG, UsageError
from .parsing_commands import COMMAND_ARGS, COMMAND_DETAILS, COMMAND_HELP, COMMAND_ONLY_OPTIONS, COMMANDS
from .parsing_options import VALUE_OPTIONS, add_options, add_watch_options

__all__ = ["COMMAND_HELP", "Parser", "build_parser", "parse"]

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
  templates                 list the resource templates
  read URI                  read a resource
  read TEMPLATE k=v ...     read a resource template's URI expanded (RFC 6570) with the variables:
                            a URI holding a {...} expression is a template (read 'demo://notes/{id}' id=3)
  get PROMPT [k=v ...]      get a prompt (arguments are strings)
  complete (--prompt NAME | --template URI_TEMPLATE) ARGUMENT [VALUE] [--context k=v ...]
                            completion/complete: the suggested values, one a line, then (total, hasMore)
  subscribe URI [--for S] [--count N] [--call TOOL [--call-args JSON]]
                            print each notifications/resources/updated of URI as a line until --for
                            seconds pass, --count updates came, or Ctrl-C (then it unsubscribes);
                            --call runs a tool once subscribed, in the same session
  tasks [list]              list the server's tasks (tasks/list)
  tasks get|result|cancel ID
                            a task's state (tasks/get), its result (tasks/result, waits), or cancel it
  ping                      measure a round trip
  watch [--watch PATH ...] [--call TOOL [k=v ...] [--args JSON]] [--count N]
                            restart the server whenever its files change (default: the server's script
                            or package directory); print what each edit changed in the tool list, and
                            the --call result after each start; until Ctrl-C or --count restarts
  pipe                      send newline-delimited JSON-RPC from stdin, print every server frame
  replay FILE [--ignore PATH ...] [--update]
                            re-run a recording's client requests against the server and compare each
                            response with the recorded one (exit 6 when one differs)
  query SESSION EXPR [--direction in|out] [--count | --frames]
                            run a jq expression over each frame of a recorded session file (streamed):
                            the outputs, the matching frames, or how many matched; connects to no server
  check [--strict] [--junit FILE] [--ignore RULE ...] [--call TOOL [k=v ...]] [--open SESSION]
                            judge the server: findings with the rule, why and how to fix; exit 8 on an
                            error (see mcp-inspector check --help)
  auth status [URL]         the stored OAuth authorizations (issuer, client, scopes, expiry; never a secret)
  auth logout URL|--all     remove the stored authorization of a server, or of every server
  proxy [--record FILE] [--name NAME] -- SERVER_COMMAND
                            stand between a real host and its server: bytes through unchanged, every
                            frame recorded and published live (--listen/--url: HTTP; --wrap: a config
                            entry; see mcp-inspector proxy --help)
  attach [NAME] | --list    watch a running proxy's session in the terminal UI, read-only

arguments (call, get): k=v takes v as JSON when it parses as JSON, else as a string
  (n=3 is a number, flag=true a boolean, s=hello a string, tags='["a","b"]' a list);
  k=@file reads the value from a file (same rule); pairs override --args.
  call waits for a task's result when the tool runs as a task (task status on stderr with --progress).

answers to what a server asks (every command but pipe declares sampling, elicitation {form, url},
roots and tasks, as the terminal UI does): without --elicitation an elicitation is declined; without
--sampling a sampling request gets a JSON-RPC error saying no --sampling policy was given;
roots/list is answered with the --root paths (else the config entry's "roots"), or an empty list
(never the working directory). The terminal UI takes --root too (and has a Roots editor, ctrl+f).

server output problems: a line on the server's stdout that is not JSON, or a frame that is not
valid JSON-RPC, is a warning on stderr (the first 10, then a count), and so is a frame read only
by leniency (a bare NaN, invalid UTF-8); --report FILE writes a JSON summary of them
({"invalidFrames": N, "notJson": M, "tooLong": L, "notStrictJson": S, ...}; FILE "-" means stderr)
for any command that runs a server; the --json output itself stays the exact result.

examples:
  mcp-inspector tools -- npx -y @modelcontextprotocol/server-everything
  mcp-inspector call add a=1 b=2 --json -- python server.py
  mcp-inspector complete --prompt code_review language py
  mcp-inspector read 'demo://notes/{note_id}' note_id=todo
  mcp-inspector --config ~/.cursor/mcp.json --server github tools
  mcp-inspector tools --url http://127.0.0.1:3001/mcp
  mcp-inspector call add a=1 b=2 --url https://example.com/mcp -H 'X-Tenant: acme' --bearer-token "$TOKEN"
  mcp-inspector tools --url https://example.com/mcp --oauth-open print --scope mcp:read
  printf '%s\\n' '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | mcp-inspector pipe -- python server.py

"""


def _terminal_columns() -> int:
    """What ``shutil.get_terminal_size().columns`` says: $COLUMNS, else the terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no stdout (AttributeError on None), not a terminal
            columns = 0
    return columns or 80


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's, with the width found without ``import shutil`` (it brings bz2, lzma and
    fnmatch: ~8 ms of every cold command; argparse makes a formatter for each option added)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)


class Parser(argparse.ArgumentParser):
    """argparse exits with 2 on bad input, which is our JSON-RPC error code: raise instead."""

    def error(self, message: str):
        raise UsageError(f"{message} (see mcp-inspector --help)")


def check_option_order(words: list[str]) -> None:
    """A command's own option given before the command is a usage error that says so."""
    skip = False
    for word in words:
        name = word.split("=", 1)[0]
        if skip:
            skip = False
        elif name in COMMAND_ONLY_OPTIONS:
            raise UsageError(
                f"{name} is an option of {COMMAND_ONLY_OPTIONS[name]}: put it after the command "
                "(see mcp-inspector COMMAND --help)"
            )
        elif word in VALUE_OPTIONS:
            skip = True
        elif not word.startswith("-"):
            return  # the command word (or a stray word the parser will name)


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
    """The full parser; with ``only`` (the command the words name, see command_word), that
    command's sub-parser alone: the others cannot be reached from those words, and building
    every sub-parser with its options cost ~5 ms of each cold command (argparse looks up a
    gettext translation on disk for each parser's titles). No command, or --help: all of them."""
    parser = Parser(
        prog="mcp-inspector",
        usage="%(prog)s [options] [COMMAND [args]] [-- SERVER_COMMAND [server args]]",
        description=DESCRIPTION,
        epilog=COMMAND_EPILOG + EPILOG,
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"mcp-inspector {__version__}")
    parser.add_argument("--open", metavar="FILE", help="open a recorded session file in the TUI")
    add_watch_options(parser, "watch")
    add_options(parser, top=True)
    commands = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        parser_class=Parser,
        help="one of the commands below; none opens the terminal UI",
    )

    def add(name: str) -> argparse.ArgumentParser:
        # no help= here: the "commands:" part of the epilog lists them, with their arguments
        usage = f"mcp-inspector {name}{COMMAND_ARGS.get(name, '')} [options] [-- SERVER_COMMAND [server args]]"
        description = COMMAND_HELP[name] + ("\n\n" + COMMAND_DETAILS[name] if name in COMMAND_DETAILS else "")
        sub = commands.add_parser(
            name,
            usage=usage,
            description=description,
            epilog=EPILOG,
            formatter_class=Formatter,
        )
        add_options(sub, top=False)
        return sub

    for name, add_arguments in COMMANDS.items():
        if only is not None and name != only:
            continue
        sub = add(name)
        if add_arguments is not None:
            add_arguments(sub)
    return parser


def split_server_command(argv: list[str]) -> tuple[list[str], list[str]]:
    """Everything after the first ``--`` is the server command, untouched."""
    argv = list(argv)
    if "--" in argv:
        index = argv.index("--")
        return argv[:index], argv[index + 1 :]
    return argv, []


def parse(argv: list[str]) -> argparse.Namespace:
    own, server_command = split_server_command(argv)
    if len(own) < len(argv) and not server_command:
        raise UsageError("nothing after --: give the server command there (or leave out -- for the demo server)")
    check_option_order(own)
    wants_help = any(word in ("-h", "--help") for word in own)
    parser = build_parser(None if wants_help else command_word(own))
    args, extra = parser.parse_known_args(own)
    args.server_command = server_command
    args.env = list(args.env) + list(getattr(args, "env_after", []))
    args.headers = list(args.headers) + list(getattr(args, "headers_after", []))
    args.roots = list(args.roots) + list(getattr(args, "roots_after", []))
    args.scopes = list(getattr(args, "scopes", None) or []) + list(getattr(args, "scopes_after", []))
    args.watch = list(getattr(args, "watch", None) or []) + list(getattr(args, "watch_after", None) or [])
    pairs_allowed = args.command in ("call", "get", "read", "watch")
    for word in extra:
        if pairs_allowed and not word.startswith("-"):
            args.pairs.append(word)
        elif word.startswith("-"):
            raise UsageError(f"unknown option {word} (see mcp-inspector --help)")
        else:
            raise UsageError(f"unexpected argument {word!r} (put the server command after --)")
    if args.command == "auth":
        args.url = args.auth_url or args.url
        if args.auth_action == "logout" and (args.url is None) == (not args.all):
            raise UsageError("auth logout needs a server URL or --all (one of them)")
        if args.auth_action == "status" and args.all:
            raise UsageError("--all goes with auth logout")
    if args.command == "tasks" and args.action == "list" and args.task_id is not None:
        raise UsageError(f"tasks list takes no ID (got {args.task_id!r}); tasks get|result|cancel ID take one")
    if args.command == "tasks" and args.action != "list" and args.task_id is None:
        raise UsageError(
            f"tasks {args.action} needs a task ID: mcp-inspector tasks {args.action} ID "
            "(mcp-inspector tasks lists them)"
        )
    if args.command == "tasks" and args.task_id == "":
        raise UsageError(f"tasks {args.action}: the task id is empty (see mcp-inspector tasks list)")
    if args.watch and args.command not in (None, "watch"):
        raise UsageError(f"--watch goes with the terminal UI or the watch command, not {args.command}")
    if args.rerun and args.command not in (None, "watch"):
        raise UsageError(f"--rerun goes with the terminal UI or the watch command, not {args.command}")
    if args.command == "watch":
        args.watch = args.watch or [""]
        if args.call is None and (args.pairs or args.args is not None):
            raise UsageError("watch: KEY=VALUE arguments and --args go with --call TOOL")
        if args.rerun and args.call is None:
            raise UsageError("watch --rerun re-runs the --call tool after each restart: give --call TOOL")
    if args.open is not None and (args.watch or args.rerun):
        raise UsageError("--watch and --rerun restart a server; --open shows a recording")
    args.check_era = None
    args.surface_eras = False
    if args.command == "check":
        args.check_era = args.era
        if args.era == "both":
            args.era = None
        if args.open is not None:  # mcp-inspector --open FILE check: the same as check --open FILE
            args.check_open, args.open = args.check_open or args.open, None
        if args.check_open is not None and (args.server_command or args.url or args.config or args.check_calls):
            raise UsageError("check --open judges a recording: it takes no server and no --call")
    elif args.era == "both" and args.command in ("snapshot", "diff"):
        args.era, args.surface_eras = None, True  # each era in a run of its own (commands/surface.py)
    elif args.era == "both":
        raise UsageError(
            "--era both goes with the check, snapshot and diff commands (auto, legacy or modern otherwise)"
        )
    if args.command is not None and args.open is not None:
        raise UsageError("--open opens a recorded session in the TUI; it does not go with a command")
    return args
