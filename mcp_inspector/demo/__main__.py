"""Command line entry point: ``python -m mcp_inspector.demo [options]``.

Parses flags, then serves MCP on stdin/stdout until stdin closes.
``main`` can also be called in-process (e.g. by the inspector's CLI).
"""

from __future__ import annotations

import argparse
import os
import sys

from .tools.kit import LOG_LEVELS


def _non_negative_int(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be > 0")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m mcp_inspector.demo",
        description="The mcp-inspector demo MCP server (stdio, newline-delimited JSON-RPC).",
    )
    paging = parser.add_argument_group("pagination (0 = everything in one page)")
    paging.add_argument(
        "--page-size", type=_non_negative_int, default=0, metavar="N", help="page size for every */list method"
    )
    for kind in ("tools", "resources", "prompts", "tasks"):
        paging.add_argument(
            f"--{kind}-page-size",
            type=_non_negative_int,
            default=None,
            metavar="N",
            help=f"page size for {kind}/list (overrides --page-size)",
        )
    parser.add_argument(
        "--client-timeout",
        type=_positive_float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for answers to server->client requests (default 60)",
    )
    parser.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="debug",
        help="minimum level of notifications/message before logging/setLevel (default debug)",
    )
    parser.add_argument(
        "--tick-interval",
        type=_positive_float,
        default=1.0,
        metavar="SECONDS",
        help="seconds between notifications/resources/updated of a subscribed demo://clock (default 1)",
    )
    tasks = parser.add_argument_group("tasks (protocol 2025-11-25)")
    tasks.add_argument(
        "--task-poll-interval",
        type=_positive_int,
        default=1000,
        metavar="MS",
        help="the pollInterval suggested in every Task (default 1000)",
    )
    tasks.add_argument(
        "--task-ttl",
        type=_positive_int,
        default=300_000,
        metavar="MS",
        help="how long a task is kept when the client asks no ttl (default 300000; clamped to 100..3600000)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="trace traffic on stderr")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the demo server on this process's stdin/stdout and return the exit code."""
    from .server import Options, serve, stderr

    args = build_parser().parse_args(argv)

    def size(specific: int | None) -> int:
        return args.page_size if specific is None else specific

    options = Options(
        tools_page_size=size(args.tools_page_size),
        resources_page_size=size(args.resources_page_size),
        prompts_page_size=size(args.prompts_page_size),
        client_timeout=args.client_timeout,
        log_level=args.log_level,
        verbose=args.verbose,
        tick_interval=args.tick_interval,
        tasks_page_size=size(args.tasks_page_size),
        task_ttl_ms=args.task_ttl,
        task_poll_interval_ms=args.task_poll_interval,
    )
    if args.verbose:
        stderr("ready on stdio")
    try:
        return serve(options)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    code = main()
    try:
        sys.stdout.flush()
    except (BrokenPipeError, OSError):
        # The client closed stdout; keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)
