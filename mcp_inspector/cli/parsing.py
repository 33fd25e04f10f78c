"""The command line's grammar: every option and command, their help, and parsing.

Options are accepted before or after the command. Only argparse and our own light
modules are imported here (startup time); dispatch.py runs what was parsed.
"""

from __future__ import annotations

import argparse
import os
import sys

from .. import __version__
from ..core.base.framing import MAX_LINE_BYTES
from .exit_codes import EPILOG, UsageError
from .parsing_check import CHECK_ARGS, CHECK_DETAILS, CHECK_HELP, ERA_CHECK_CHOICES, add_check_options, positive_int

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


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("must be a number of seconds > 0")
    return value


LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
TASK_ACTIONS = ("list", "get", "result", "cancel")
TRANSPORT_CHOICES = ("auto", "streamable-http", "sse")
ERA_CHOICES = ("auto", "legacy", "modern")


def _add_options(parser: argparse.ArgumentParser, top: bool) -> None:
    """The options, on the main parser (with defaults) and on each command (without)."""
    default = (lambda value: value) if top else (lambda value: argparse.SUPPRESS)
    output = parser.add_argument_group("output")
    output.add_argument(
        "--json",
        action="store_true",
        default=default(False),
        help="machine output: call/read/get/complete print the result (or error) exactly as received "
        "(a call run as a task: the tasks/result result); subscribe prints one JSON line per update",
    )
    output.add_argument(
        "--query",
        metavar="EXPR",
        default=default(None),
        help="a jq expression run over what --json would print (call, read, get: the result as "
        "received; tools, resources, templates, prompts, info: their JSON document); the outputs "
        "one a line, strings raw (jq -rc), with --json all as JSON (jq -c)",
    )
    output.add_argument(
        "-q", "--quiet", action="store_true", default=default(False), help="no warnings or notes on stderr"
    )
    output.add_argument(
        "--progress",
        action="store_true",
        default=default(False),
        help="show progress and log notifications on stderr even when it is not a terminal",
    )
    output.add_argument(
        "--show-stderr",
        action="store_true",
        default=default(False),
        help="echo the server's stderr, live, prefixed with [server]",
    )
    output.add_argument(
        "--record",
        metavar="FILE",
        default=default(None),
        help="write the whole session (every frame) to a JSONL session file",
    )
    output.add_argument(
        "--report",
        metavar="FILE",
        default=default(None),
        help="write a JSON summary of the server's output problems (non-JSON stdout lines, "
        "invalid frames) and the exit code to FILE (- for stderr), for any command",
    )
    output.add_argument(
        "--log-level",
        metavar="LEVEL",
        choices=LOG_LEVELS,
        default=default(None),
        help="ask the server for log notifications at LEVEL and above (legacy: logging/setLevel "
        "after connecting, when the server declares logging; 2026-07-28: in every request's "
        "_meta) and show them on stderr; one of " + ", ".join(LOG_LEVELS),
    )
    server = parser.add_argument_group("server")
    server.add_argument(
        "--config",
        metavar="FILE",
        default=default(None),
        help='a config file with {"mcpServers": {...}} (Claude, Cursor...) or {"servers": {...}} (VS Code)',
    )
    server.add_argument("--server", metavar="NAME", default=default(None), help="which server of the --config file")
    server.add_argument(
        "--demo", action="store_true", default=default(False), help="the built-in demo server (the default)"
    )
    server.add_argument(
        "--url", metavar="URL", default=default(None), help="a remote server over HTTP (http:// or https://)"
    )
    server.add_argument(
        "-e",
        "--env",
        metavar="KEY=VALUE",
        action="append",
        dest="env" if top else "env_after",
        default=default([]),
        help="set an environment variable for the server (repeatable)",
    )
    server.add_argument("--cwd", metavar="DIR", default=default(None), help="the server's working directory")
    remote = parser.add_argument_group('remote servers (--url, or a config entry with "url")')
    remote.add_argument(
        "--transport",
        choices=TRANSPORT_CHOICES,
        default=default(None),
        help="auto (default): Streamable HTTP, falling back to the legacy HTTP+SSE transport; or only one of them",
    )
    remote.add_argument(
        "-H",
        "--header",
        metavar="'NAME: VALUE'",
        action="append",
        dest="headers" if top else "headers_after",
        default=default([]),
        help="an HTTP header sent with every request (repeatable); ${VAR} or ${env:VAR} in the value "
        "comes from the environment. Secret-looking values are masked in every message",
    )
    remote.add_argument(
        "--bearer-token",
        metavar="TOKEN",
        default=default(None),
        help="sends 'Authorization: Bearer TOKEN'; also read from $MCP_INSPECTOR_BEARER_TOKEN, "
        "which keeps it out of the shell history",
    )
    remote.add_argument(
        "--insecure",
        action="store_true",
        default=default(False),
        help="do not verify TLS certificates (a warning is printed)",
    )
    _add_auth_options(parser, default)
    answers = parser.add_argument_group(
        "answers to server requests (each capability is declared; pipe declares only those given)"
    )
    answers.add_argument(
        "--elicitation",
        metavar="POLICY",
        default=default(None),
        help="defaults: accept with the requestedSchema's defaults; decline (the default); cancel; "
        "@FILE: answers from a JSON object, merged over the defaults. A URL-mode request is "
        "always declined",
    )
    answers.add_argument(
        "--sampling",
        metavar="POLICY",
        default=default(None),
        help='decline (an error reply), or @FILE: a CreateMessageResult or {"text": "..."}; '
        "default: an error reply saying no --sampling policy was given",
    )
    answers.add_argument(
        "--root",
        metavar="PATH",
        action="append",
        dest="roots" if top else "roots_after",
        default=default([]),
        help="answer roots/list with these paths as file:// URIs "
        "(repeatable; the terminal UI too; replaces a config entry's "
        '"roots"); default: the entry\'s roots, else an empty list',
    )
    protocol = parser.add_argument_group("protocol")
    protocol.add_argument(
        "--otlp",
        metavar="URL",
        default=default(None),
        help="export a span per request and notification (OpenTelemetry's MCP conventions) and the "
        "session metrics to this OTLP/HTTP collector, e.g. http://127.0.0.1:4318 (default: "
        "$OTEL_EXPORTER_OTLP_ENDPOINT if set, else nothing is exported); needs mcp-inspector[otel]",
    )
    protocol.add_argument(
        "--timeout", metavar="SECONDS", type=_timeout, default=default(60.0), help="per request (default 60; 0 = none)"
    )
    protocol.add_argument(
        "--max-frame-size",
        metavar="SIZE",
        type=_byte_size,
        default=default(MAX_LINE_BYTES),
        help="the longest line read whole from the server, or from stdin for pipe (default 256M); "
        "a longer one is kept as its first 64K and recorded as invalid 'too long: N bytes'",
    )
    protocol.add_argument(
        "--protocol-version",
        metavar="VERSION",
        default=default(None),
        help="the protocol version to propose (default: the latest of the era); 2026-07-28 implies --era modern",
    )
    protocol.add_argument(
        "--era",
        choices=ERA_CHECK_CHOICES,
        default=default(None),
        help="auto (default): detect whether the server speaks the modern (2026-07-28, stateless) "
        "or the legacy (initialize handshake) protocol; or force one; check, snapshot and diff also "
        "take both (one run in each era)",
    )


def _add_auth_options(parser: argparse.ArgumentParser, default) -> None:
    """The OAuth options (core/auth/options.py reads them; a config entry's "auth" object has the same names)."""
    auth = parser.add_argument_group(
        "authorization (OAuth 2.1, for a remote server that answers 401; see docs/oauth.md)"
    )
    auth.add_argument(
        "--client-id",
        metavar="ID",
        default=default(None),
        help="a pre-registered client id (else a Client ID Metadata Document or dynamic registration)",
    )
    auth.add_argument(
        "--client-secret",
        metavar="SECRET",
        default=default(None),
        help="its secret; also read from $MCP_INSPECTOR_CLIENT_SECRET, which keeps it off the command line",
    )
    auth.add_argument(
        "--client-metadata-url",
        metavar="URL",
        default=default(None),
        help="an https URL of a Client ID Metadata Document to use as the client id, when the "
        "authorization server supports them",
    )
    auth.add_argument(
        "--client-key",
        metavar="FILE",
        default=default(None),
        help="a PEM private key: private_key_jwt client authentication (RS256/ES256...)",
    )
    auth.add_argument(
        "--client-auth-method",
        metavar="METHOD",
        default=default(None),
        help="force the token endpoint authentication: client_secret_basic, client_secret_post, "
        "none or private_key_jwt (default: the best the server supports for the client)",
    )
    auth.add_argument(
        "--scope",
        metavar="SCOPE",
        action="append",
        dest="scopes" if default(None) is None else "scopes_after",
        default=default([]),
        help="a scope to ask for (repeatable; default: the server's "
        "WWW-Authenticate scope, else its scopes_supported, else none)",
    )
    auth.add_argument(
        "--oauth-open",
        metavar="MODE",
        choices=OPEN_CHOICES,
        default=default(None),
        help="how you authorize: browser (the system browser and a loopback listener on 127.0.0.1 "
        "during the flow; the default with a display), print (print the URL, paste the final "
        "redirect URL; the default without one), fetch (the inspector requests the URL itself: "
        "for test servers that approve without a person)",
    )
    auth.add_argument(
        "--oauth-grant",
        metavar="GRANT",
        choices=GRANT_CHOICES,
        default=default(None),
        help="authorization_code (default, with PKCE), client_credentials (--client-id with "
        "--client-secret or --client-key), jwt_bearer (--assertion) or enterprise "
        "(--id-token at --idp-issuer, then a JWT bearer grant)",
    )
    auth.add_argument(
        "--assertion",
        metavar="FILE",
        default=default(None),
        help="jwt_bearer: a file holding the workload identity JWT (- for stdin)",
    )
    auth.add_argument(
        "--idp-issuer",
        metavar="URL",
        default=default(None),
        help="enterprise: the identity provider's issuer (its token endpoint is discovered)",
    )
    auth.add_argument(
        "--idp-token-endpoint",
        metavar="URL",
        default=default(None),
        help="enterprise: the identity provider's token endpoint (instead of discovering it)",
    )
    auth.add_argument(
        "--idp-client-id",
        metavar="ID",
        default=default(None),
        help="enterprise: the client id at the identity provider",
    )
    auth.add_argument(
        "--idp-client-secret",
        metavar="SECRET",
        default=default(None),
        help="enterprise: the client secret at the identity provider",
    )
    auth.add_argument(
        "--id-token",
        metavar="FILE",
        default=default(None),
        help="enterprise: a file holding the user's ID token at the identity provider (- for stdin)",
    )
    dpop = auth.add_mutually_exclusive_group()
    dpop.add_argument(
        "--dpop",
        dest="dpop",
        action="store_const",
        const=True,
        default=default(None),
        help="DPoP-bound tokens (RFC 9449; default: when the authorization server supports them)",
    )
    dpop.add_argument(
        "--no-dpop",
        dest="dpop",
        action="store_const",
        const=False,
        default=default(None),
        help="never DPoP: Bearer tokens",
    )
    auth.add_argument(
        "--auth-store",
        metavar="STORE",
        choices=STORE_CHOICES,
        default=default(None),
        help="where tokens are kept: file (default: 0600 files under $XDG_STATE_HOME/mcp-inspector/auth), "
        "keyring (the system keyring; pip install 'mcp-inspector[keyring]') or none (this run only)",
    )
    auth.add_argument(
        "--oauth-timeout",
        metavar="SECONDS",
        type=_positive,
        default=default(None),
        help="how long an authorization may take, a person in a browser included (default 300); "
        "request timeouts wait while it runs",
    )
    auth.add_argument(
        "--redirect-port",
        metavar="PORT",
        type=_port,
        default=default(None),
        help="the loopback port of the redirect URI http://127.0.0.1:PORT/callback (default: an "
        "ephemeral port for browser, 33418 for print and fetch), for a client registered with one",
    )
    auth.add_argument(
        "--no-auth", action="store_true", default=default(False), help="never authorize: a 401 is an error"
    )


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError("must be a port number (1-65535)")
    return value


OPEN_CHOICES = ("browser", "print", "fetch")
GRANT_CHOICES = ("authorization_code", "client_credentials", "jwt_bearer", "enterprise")
STORE_CHOICES = ("file", "keyring", "none")
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
# Options that take a value: the word after them is never the command name.
VALUE_OPTIONS = {
    "--record",
    "--config",
    "--server",
    "--url",
    "-e",
    "--env",
    "--cwd",
    "--timeout",
    "--max-frame-size",
    "--protocol-version",
    "--open",
    "--args",
    "--transport",
    "-H",
    "--header",
    "--bearer-token",
    "--era",
    "--elicitation",
    "--sampling",
    "--root",
    "--report",
    "--log-level",
    "--prompt",
    "--template",
    "--context",
    "--for",
    "--count",
    "--call",
    "--call-args",
    "--client-id",
    "--client-secret",
    "--client-metadata-url",
    "--client-key",
    "--client-auth-method",
    "--scope",
    "--oauth-open",
    "--oauth-grant",
    "--assertion",
    "--ignore",
    "--idp-issuer",
    "--idp-token-endpoint",
    "--idp-client-id",
    "--idp-client-secret",
    "--id-token",
    "--auth-store",
    "--oauth-timeout",
    "--redirect-port",
    "--query",
    "--direction",
    "--junit",
    "--token-budget",
}


def _add_watch_options(parser: argparse.ArgumentParser, dest: str) -> None:
    parser.add_argument(
        "--watch",
        metavar="PATH",
        nargs="?",
        const="",
        action="append",
        dest=dest,
        default=None,
        help="restart the server when files under PATH change (repeatable); without PATH: the "
        "server's script or package directory (python x.py, node x.js, python -m pkg...)",
    )
    parser.add_argument(
        "--rerun",
        action="store_true",
        default=False if dest == "watch" else argparse.SUPPRESS,
        help="after each restart, call the last tool again with the same arguments (the terminal "
        "UI; for the watch command, the --call tool)",
    )


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
    """The full parser; with ``only``, the other commands get no options (startup time:
    building every sub-parser costs several milliseconds; --help builds them all)."""
    parser = Parser(
        prog="mcp-inspector",
        usage="%(prog)s [options] [COMMAND [args]] [-- SERVER_COMMAND [server args]]",
        description=DESCRIPTION,
        epilog=COMMAND_EPILOG + EPILOG,
        formatter_class=Formatter,
    )
    parser.add_argument("--version", action="version", version=f"mcp-inspector {__version__}")
    parser.add_argument("--open", metavar="FILE", help="open a recorded session file in the TUI")
    _add_watch_options(parser, "watch")
    _add_options(parser, top=True)
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
        if only is None or only == name:
            _add_options(sub, top=False)
        return sub

    for name in ("info", "tools", "resources", "templates", "prompts"):
        add(name)
    call = add("call")
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
    read = add("read")
    read.add_argument("uri", metavar="URI")
    read.add_argument(
        "pairs",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="a variable of a URI template (a string; a JSON array or object for list and "
        'explode operators, e.g. tags=\'["a","b"]\'; @file reads the value from a file)',
    )
    get = add("get")
    get.add_argument("prompt", metavar="PROMPT")
    get.add_argument(
        "pairs", nargs="*", default=[], metavar="KEY=VALUE", help="a prompt argument (a string; @file reads a file)"
    )
    get.add_argument("--args", metavar="JSON", help="the arguments as a JSON object of strings (or @file.json)")
    complete = add("complete")
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
    subscribe = add("subscribe")
    subscribe.add_argument("uri", metavar="URI")
    subscribe.add_argument(
        "--for",
        metavar="SECONDS",
        dest="for_seconds",
        type=_positive,
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
    tasks = add("tasks")
    tasks.add_argument(
        "action",
        nargs="?",
        default="list",
        choices=TASK_ACTIONS,
        metavar="ACTION",
        help="list (default), get ID, result ID (waits for it) or cancel ID",
    )
    tasks.add_argument("task_id", nargs="?", default=None, metavar="ID")
    add("ping")
    add("pipe")
    replay = add("replay")
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
    snapshot = add("snapshot")
    snapshot.add_argument(
        "-o", "--output", dest="output", metavar="FILE", default=None, help="write to FILE (default: stdout)"
    )
    surface_diff = add("diff")
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
    query = add("query")
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
    watch = add("watch")
    _add_watch_options(watch, "watch_after")
    watch.add_argument(
        "--call", metavar="TOOL", default=None, help="call this tool after every start and print its result"
    )
    watch.add_argument("pairs", nargs="*", default=[], metavar="KEY=VALUE", help="an argument of the --call tool")
    watch.add_argument("--args", metavar="JSON", help="the --call tool's arguments as a JSON object (or @file.json)")
    watch.add_argument("--count", metavar="N", type=positive_int, default=None, help="stop after N restarts")
    add_check_options(add("check"))
    auth = add("auth")
    auth.add_argument("auth_action", choices=AUTH_ACTIONS, metavar="ACTION", help="status or logout")
    auth.add_argument(
        "auth_url", nargs="?", default=None, metavar="URL", help="the server (default for status: every server)"
    )
    auth.add_argument("--all", action="store_true", default=False, help="logout: every server")
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
