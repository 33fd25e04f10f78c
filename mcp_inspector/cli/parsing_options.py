"""The options every command takes (before or after the command word): output, server,
remote, answers, protocol, the OAuth ones (parsing_auth.py) and --watch/--rerun; and which
options take a value (parsing.py finds the command word with it)."""

from __future__ import annotations

import argparse

from ..core.base.framing import MAX_LINE_BYTES
from .parsing_auth import add_auth_options
from .parsing_check import ERA_CHECK_CHOICES
from .parsing_types import byte_size, timeout_seconds

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
TRANSPORT_CHOICES = ("auto", "streamable-http", "sse")
ERA_CHOICES = ("auto", "legacy", "modern")


def add_options(parser: argparse.ArgumentParser, top: bool) -> None:
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
    add_auth_options(parser, default)
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
        "--timeout",
        metavar="SECONDS",
        type=timeout_seconds,
        default=default(60.0),
        help="per request (default 60; 0 = none)",
    )
    protocol.add_argument(
        "--max-frame-size",
        metavar="SIZE",
        type=byte_size,
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


def add_watch_options(parser: argparse.ArgumentParser, dest: str) -> None:
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
