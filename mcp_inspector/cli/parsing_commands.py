"""Each command's own grammar: its help (one line for the epilog's list, the usage words, the
details of ``COMMAND --help``), its positional arguments and options (``COMMANDS``: name -> what
adds them, in the order --help lists them), and which options belong to commands only. The
options every command takes are parsing_options.py's; check's own, parsing_check.py's.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from .parsing_check import CHECK_ARGS, CHECK_DETAILS, CHECK_HELP, add_check_options
from .parsing_options import add_watch_options
from .parsing_types import positive_int, positive_seconds

TASK_ACTIONS = ("list", "get", "result", "cancel")
AUTH_ACTIONS = ("status", "logout")

COMMAND_HELP = {
    "info": "server name, protocol version, capabilities and instructions",
    "tools": "list the tools (all pages)",
    "resources": "list the resources and resource templates",
    "prompts": "list the prompts",
    "call": "call a tool",
    "templates": "list the resource templates",
    "read": "read a resource, or a resource template expanded with KEY=VALUE variables (RFC 6570)",
    "get": "get a prompt",
    "complete": "completion/complete for a prompt argument or a resource template variable",
    "subscribe": "print each notifications/resources/updated of a resource until --for, --count or Ctrl-C",
    "tasks": "list the server's tasks, or get one's state or result, or cancel it",
    "ping": "measure a round trip",
    "pipe": "send newline-delimited JSON-RPC from stdin in order; print every server frame as a JSON line",
    "replay": "re-run the client requests of a recording (or a hand-written JSONL file) and compare each response",
    "query": "run a jq expression over each frame of a session file (--record's format); connects to no server",
    "watch": "restart a stdio server whenever its files change; print what each edit changed (the tool diff) "
    "and the --call result",
    "auth": "show (status) or remove (logout) the stored OAuth authorizations; connects to no server",
    "check": CHECK_HELP,
    "snapshot": "write the server's surface (info, capabilities, tools, resources, templates, prompts) "
    "as canonical JSON, for git and `diff`",
    "diff": "compare two surfaces (snapshot files; the new side may be a live server): breaking, unknown, "
    "compatible, cosmetic changes; exit 9 when one breaks",
}
COMMAND_ARGS = {
    "snapshot": " [-o FILE] [--era both]",
    "diff": " OLD [NEW] [--fail-on breaking|compatible] [--era both]",
    "check": CHECK_ARGS,
    "call": " TOOL [KEY=VALUE ...] [--args JSON]",
    "read": " URI|URI_TEMPLATE [KEY=VALUE ...]",
    "get": " PROMPT [KEY=VALUE ...] [--args JSON]",
    "complete": " (--prompt NAME | --template URI_TEMPLATE) ARGUMENT [VALUE] [--context KEY=VALUE ...]",
    "subscribe": " URI [--for SECONDS] [--count N] [--call TOOL [--call-args JSON]]",
    "tasks": " [list | get ID | result ID | cancel ID]",
    "auth": " status [URL] | logout (URL | --all)",
    "replay": " FILE [--ignore PATH ...] [--update]",
    "query": " SESSION EXPR [--direction in|out] [--count | --frames]",
    "watch": " [--watch PATH ...] [--rerun] [--call TOOL [KEY=VALUE ...] [--args JSON]] [--count N]",
}
COMMAND_DETAILS = {
    "check": CHECK_DETAILS,
    "snapshot": "--era both: one run in each era, one file holding both surfaces (snapshotFormat 2;\n"
    "an era the server does not speak is listed in erasNotSpoken). See docs/surface.md.",
    "diff": "A two-era snapshot (snapshot --era both) is compared era by era, each change's path under\n"
    "/eras/ERA; an era only one side records is not compared (a note says so); --era both makes\n"
    "the live side in both eras.",
    "replay": 'FILE is a --record session file, or JSONL with one request per line ({"method": ..., "params": ...},\n'
    'or {"send": FRAME, "expect": RESPONSE}). The handshake is the replay\'s own; server requests\n'
    "are answered as recorded. Compared: result or error, every member by path, tools/list as a tool\n"
    "list. Ignored by nature: JSON-RPC ids, _meta.progressToken, date-times, epoch times under time-like\n"
    "keys, UUIDs; and each --ignore PATH (a jq path: .result.content[0].text). Exit 0 equal, 6 different.\n"
    "--update writes the new responses into FILE (atomically, 0600); --json prints one JSON document.",
    "query": "Each frame of the file (not stderr lines or events) is given to EXPR as it was on the wire.\n"
    "The outputs are printed one a line, strings raw (jq -rc); --json prints them all as JSON (jq -c).\n"
    "A frame matches when EXPR yields an output that is neither false nor null: --frames prints the\n"
    "matching frames, --count how many. The file is streamed (a 1 GB file is never loaded whole).\n"
    "Example: query run.jsonl 'select(.method == \"notifications/progress\") | .params.progress'",
    "watch": "Starts the server and lists its tools, then restarts it after each burst of edits under the\n"
    "watched paths (--watch PATH, repeatable; without one the directory of the server's script,\n"
    "e.g. python server.py, node index.js, uv run x.py, or package, python -m pkg). Ignored:\n"
    ".git, __pycache__, *.pyc, node_modules, .venv, editor swap and backup files, the --record file.\n"
    "Each start prints one block: the time, the files that changed, the tool diff since the last\n"
    "start that worked, and the --call TOOL result (called after every start; --rerun says the\n"
    'same). --json: one JSON object per start ({"event": "start"|"restart", "files",\n'
    '"diff", "call"...}). A server that fails to start prints its stderr and the watch goes on.\n'
    "Ends with 0 on Ctrl-C, or after --count N restarts (3 if the last start failed).\n"
    "Example: mcp-inspector watch --call echo text=hi -- python server.py",
    "auth": "status [URL]: per stored server (or URL's): the issuer, the client and how it was registered,\n"
    "the token's type, scopes and expiry, whether a refresh token is kept; never a secret (--json too).\n"
    "logout URL: remove what is stored for URL; logout --all: for every server.\n"
    "--auth-store keyring looks in the system keyring's store.",
    "read": "A URI holding an RFC 6570 expression ({...}; a literal brace cannot be in a URI) is a template:\n"
    "it is expanded with the KEY=VALUE variables (every operator: {x} {+x} {#x} {/x*} {?x,y} ...) and the\n"
    "expanded URI is read (noted on stderr). A variable not given expands to nothing (a warning);\n"
    "an unknown one is a usage error. Example: read 'demo://files{/path*}' 'path=[\"docs\",\"a.md\"]'",
    "complete": "Prints the values one a line, then (total: N, hasMore: B) when the server sent either.\n"
    "--json prints the result exactly as received.",
    "subscribe": "One line per update: 'HH:MM:SS.mmm updated URI', or with --json the notification's params\n"
    "as a JSON line. Legacy: resources/subscribe, then resources/unsubscribe on the way out;\n"
    "2026-07-28: the URI joins the subscriptions/listen filter (a warning if the server does not\n"
    "acknowledge it). Ends with 0 after --for/--count, 130 on Ctrl-C (after unsubscribing),\n"
    "3 if the server goes away (over HTTP: once it cannot be reached and the stream carrying the\n"
    "updates is down).",
    "tasks": "list: tasks/list (legacy servers that declare tasks.list; else a note and an empty list).\n"
    "get ID: tasks/get. result ID: the task's result, waiting for the task to end (legacy\n"
    "tasks/result; 2026-07-28 tasks/get at the task's interval, status lines with --progress),\n"
    "exit 1 for isError; past --timeout exit 4 (the task is not cancelled). cancel ID: tasks/cancel.\n"
    "Task ids belong to the server: useful with a server that outlives one command (--url).",
    "call": "A tool that requires a task (execution.taskSupport) is called as one (--task: also when it\n"
    "allows one; --no-task: never) and the call waits for the task's result, polling tasks/get;\n"
    "--timeout bounds the whole call (past it tasks/cancel is sent, exit 4). Task status lines go\n"
    "to stderr with --progress (or when stderr is a terminal). Exit 5 when a success result\n"
    "violates the tool's outputSchema.",
}


# Options of one command (or a few): before the command word the main parser does not know
# them, and took their value for the command ("invalid choice: '3'").
COMMAND_ONLY_OPTIONS = {
    "--for": "subscribe",
    "--count": "subscribe, watch and query",
    "--call": "subscribe, watch and check",
    "--call-args": "subscribe",
    "--prompt": "complete",
    "--template": "complete",
    "--context": "complete",
    "--args": "call, get and watch",
    "--task": "call",
    "--no-task": "call",
    "--ignore": "replay and check",
    "--strict": "check",
    "--junit": "check",
    "--token-budget": "check",
    "--update": "replay",
    "--direction": "query",
    "--frames": "query",
    "--all": "auth logout",
    "--fail-on": "diff",
}


# -- requests to the server --------------------------------------------------------------------


def _call_arguments(call: argparse.ArgumentParser) -> None:
    call.add_argument("tool", metavar="TOOL")
    call.add_argument(
        "pairs",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="an argument (JSON if it parses, else a string; @file reads a file)",
    )
    call.add_argument(
        "--args", metavar="JSON", help="the arguments as a JSON object (or @file.json); KEY=VALUE pairs override it"
    )
    as_task = call.add_mutually_exclusive_group()
    as_task.add_argument(
        "--task",
        dest="as_task",
        action="store_const",
        const=True,
        default=None,
        help="ask for a task when the tool allows one (default: only when it requires one); "
        "2025-11-25 only: in 2026-07-28 the server decides. The call waits for the task's "
        "result; --timeout bounds the whole call",
    )
    as_task.add_argument(
        "--no-task",
        dest="as_task",
        action="store_const",
        const=False,
        help="never ask for a task, even when the tool requires one",
    )


def _read_arguments(read: argparse.ArgumentParser) -> None:
    read.add_argument("uri", metavar="URI")
    read.add_argument(
        "pairs",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="a variable of a URI template (a string; a JSON array or object for list and "
        'explode operators, e.g. tags=\'["a","b"]\'; @file reads the value from a file)',
    )


def _get_arguments(get: argparse.ArgumentParser) -> None:
    get.add_argument("prompt", metavar="PROMPT")
    get.add_argument(
        "pairs", nargs="*", default=[], metavar="KEY=VALUE", help="a prompt argument (a string; @file reads a file)"
    )
    get.add_argument("--args", metavar="JSON", help="the arguments as a JSON object of strings (or @file.json)")


def _complete_arguments(complete: argparse.ArgumentParser) -> None:
    target = complete.add_mutually_exclusive_group(required=True)
    target.add_argument("--prompt", metavar="NAME", help="complete an argument of this prompt")
    target.add_argument("--template", metavar="URI_TEMPLATE", help="complete a variable of this resource template")
    complete.add_argument("argument", metavar="ARGUMENT", help="the argument (or template variable) to complete")
    complete.add_argument("value", nargs="?", default="", metavar="VALUE", help="what is typed so far (default: empty)")
    complete.add_argument(
        "--context",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="another argument's value already chosen (context.arguments; repeatable)",
    )


def _subscribe_arguments(subscribe: argparse.ArgumentParser) -> None:
    subscribe.add_argument("uri", metavar="URI")
    subscribe.add_argument(
        "--for",
        metavar="SECONDS",
        dest="for_seconds",
        type=positive_seconds,
        default=None,
        help="stop (and unsubscribe) after this long, an unanswered resources/subscribe too "
        "(exit 4); default: until Ctrl-C",
    )
    subscribe.add_argument("--count", metavar="N", type=positive_int, default=None, help="stop after N updates")
    subscribe.add_argument(
        "--call",
        metavar="TOOL",
        default=None,
        help="once subscribed, call this tool in the same session (a server may send updates "
        "only after a tool ran, e.g. server-everything's toggle-subscriber-updates)",
    )
    subscribe.add_argument(
        "--call-args", metavar="JSON", default=None, help="the --call tool's arguments, a JSON object (or @file.json)"
    )


def _tasks_arguments(tasks: argparse.ArgumentParser) -> None:
    tasks.add_argument(
        "action",
        nargs="?",
        default="list",
        choices=TASK_ACTIONS,
        metavar="ACTION",
        help="list (default), get ID, result ID (waits for it) or cancel ID",
    )
    tasks.add_argument("task_id", nargs="?", default=None, metavar="ID")


# -- recordings --------------------------------------------------------------------------------


def _replay_arguments(replay: argparse.ArgumentParser) -> None:
    replay.add_argument("session_file", metavar="FILE", help="a session file (--record) or JSONL of requests")
    replay.add_argument(
        "--ignore",
        metavar="PATH",
        action="append",
        default=[],
        help="a jq path left out of both sides before comparing (repeatable), e.g. "
        ".result.structuredContent.items[].id",
    )
    replay.add_argument(
        "--update",
        action="store_true",
        default=False,
        help="after the run, write the responses received into FILE as the new expectations",
    )


def _query_arguments(query: argparse.ArgumentParser) -> None:
    query.add_argument("session", metavar="SESSION", help="a session file (--record's format)")
    query.add_argument("expression", metavar="EXPR", help="a jq expression, run on each frame")
    query.add_argument(
        "--direction",
        choices=("in", "out"),
        default=None,
        help="only the frames the server sent (in) or the inspector sent (out)",
    )
    shown = query.add_mutually_exclusive_group()
    shown.add_argument("--count", action="store_true", default=False, help="print how many frames matched")
    shown.add_argument(
        "--frames",
        action="store_true",
        default=False,
        help="print the matching frames (each as one line, as on the wire)",
    )


# -- surfaces ----------------------------------------------------------------------------------


def _snapshot_arguments(snapshot: argparse.ArgumentParser) -> None:
    snapshot.add_argument(
        "-o", "--output", dest="output", metavar="FILE", default=None, help="write to FILE (default: stdout)"
    )


def _diff_arguments(surface_diff: argparse.ArgumentParser) -> None:
    surface_diff.add_argument("old", metavar="OLD", help="a snapshot file (mcp-inspector snapshot)")
    surface_diff.add_argument(
        "new", metavar="NEW", nargs="?", default=None, help="a snapshot file; without it, the server given"
    )
    surface_diff.add_argument(
        "--fail-on",
        choices=("breaking", "compatible"),
        default="breaking",
        help="exit 9 on a breaking (or impact-unknown) change; compatible: on any non-cosmetic change",
    )


# -- watch, auth -------------------------------------------------------------------------------


def _watch_arguments(watch: argparse.ArgumentParser) -> None:
    add_watch_options(watch, "watch_after")
    watch.add_argument(
        "--call", metavar="TOOL", default=None, help="call this tool after every start and print its result"
    )
    watch.add_argument("pairs", nargs="*", default=[], metavar="KEY=VALUE", help="an argument of the --call tool")
    watch.add_argument("--args", metavar="JSON", help="the --call tool's arguments as a JSON object (or @file.json)")
    watch.add_argument("--count", metavar="N", type=positive_int, default=None, help="stop after N restarts")


def _auth_arguments(auth: argparse.ArgumentParser) -> None:
    auth.add_argument("auth_action", choices=AUTH_ACTIONS, metavar="ACTION", help="status or logout")
    auth.add_argument(
        "auth_url", nargs="?", default=None, metavar="URL", help="the server (default for status: every server)"
    )
    auth.add_argument("--all", action="store_true", default=False, help="logout: every server")


#: Every command, in the order --help lists them, with what adds its own arguments (None: it has none).
COMMANDS: dict[str, Callable[[argparse.ArgumentParser], None] | None] = {
    "info": None,
    "tools": None,
    "resources": None,
    "templates": None,
    "prompts": None,
    "call": _call_arguments,
    "read": _read_arguments,
    "get": _get_arguments,
    "complete": _complete_arguments,
    "subscribe": _subscribe_arguments,
    "tasks": _tasks_arguments,
    "ping": None,
    "pipe": None,
    "replay": _replay_arguments,
    "snapshot": _snapshot_arguments,
    "diff": _diff_arguments,
    "query": _query_arguments,
    "watch": _watch_arguments,
    "check": add_check_options,
    "auth": _auth_arguments,
}
