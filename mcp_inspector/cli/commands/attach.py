"""``mcp-inspector attach [NAME]``: watch a running proxy's session in the TUI, read-only.

    mcp-inspector attach [NAME]     the proxy named NAME (or the only one running)
    mcp-inspector attach --list     the running proxies

The proxy publishes on a Unix socket (core/proxy/feed.py); this reads it (core/proxy/viewer.py).
"""

from __future__ import annotations

import argparse

from ...core.proxy.feed import FeedError
from ...core.proxy.viewer import FeedReader, find_proxy, running_proxies
from .. import exit_codes
from ..output.report import error


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        raise exit_codes.UsageError(f"attach: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mcp-inspector attach",
        usage="mcp-inspector attach [NAME] | attach --list",
        description="Watch a running mcp-inspector proxy's session (the host's traffic, live) in the terminal UI.",
    )
    parser.add_argument(
        "name", nargs="?", default=None, metavar="NAME", help="the proxy's --name (default: the only one)"
    )
    parser.add_argument("--list", action="store_true", help="list the running proxies and exit")
    return parser


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.list:
            proxies = running_proxies()
            for proxy in proxies:
                print(proxy.describe())
            if not proxies:
                print("no proxy is running")
            return exit_codes.OK
        found = find_proxy(args.name)
        reader = FeedReader(found.path)
    except exit_codes.UsageError as exc:
        error(str(exc))
        return exit_codes.USAGE
    except FeedError as exc:
        error(str(exc))
        return exit_codes.USAGE
    from ...tui.app import run_tui

    return run_tui(None, live_feed=reader)
