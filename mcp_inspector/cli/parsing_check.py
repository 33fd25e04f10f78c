"""The check command's own options (parsing.py builds the rest of the grammar)."""

from __future__ import annotations

import argparse

from .parsing_types import positive_int

CHECK_HELP = "judge the server against the MCP spec and what clients accept: findings with why and how to fix"
CHECK_ARGS = (
    " [--strict] [--junit FILE] [--ignore RULE ...] [--call TOOL [KEY=VALUE ...]] [--baseline SNAPSHOT]"
    " [--open SESSION]"
)
CHECK_DETAILS = (
    "Connects, lists everything twice (every page), reads the first 20 resources, gets the prompts\n"
    "without required arguments, completes their arguments, pings, sends a made-up method and calls a\n"
    "made-up tool name, writes one line that is not JSON (stdio) and checks the server still answers,\n"
    "then closes stdin and sees the server exit. Every frame is judged by the live rules meanwhile.\n"
    "No real tool is called unless --call asks. Findings are grouped by severity, each with the rule\n"
    "id, where, the evidence, how to fix it and the spec section. Exit 8 when one is an error\n"
    "(--strict: a warning too). --timeout is per request (default 10 s here); the whole check stops\n"
    "after 12 of them. --era both runs the check in each era the server speaks and compares them.\n"
    "--open SESSION judges a recording with the live rules only (no server).\n"
    "Examples: mcp-inspector check -- python server.py\n"
    "          mcp-inspector check --json --junit check.xml --ignore tool-list-tokens -- node build/index.js"
)
ERA_CHECK_CHOICES = ("auto", "legacy", "modern", "both")


def add_check_options(check: argparse.ArgumentParser) -> None:
    check.add_argument(
        "--strict", action="store_true", default=False, help="exit 8 on a warning too (default: on an error only)"
    )
    check.add_argument("--junit", metavar="FILE", default=None, help="write JUnit XML (one test case per rule) to FILE")
    check.add_argument(
        "--ignore",
        metavar="RULE",
        action="append",
        dest="check_ignore",
        default=[],
        help='leave out a rule by id (repeatable); a config entry\'s "ignore" list adds to them',
    )
    check.add_argument(
        "--call",
        metavar=("TOOL", "KEY=VALUE"),
        nargs="+",
        action="append",
        dest="check_calls",
        default=[],
        help="also call TOOL with KEY=VALUE arguments (repeatable: --call a x=1 --call b): its result is "
        "judged (structuredContent vs outputSchema, content, progress). No tool is called otherwise",
    )
    check.add_argument(
        "--token-budget",
        metavar="N",
        type=positive_int,
        default=15_000,
        help="tool-list-tokens: the tokens the tool list may take as a model receives it (default 15000)",
    )
    check.add_argument(
        "--baseline",
        metavar="SNAPSHOT",
        dest="check_baseline",
        default=None,
        help="also diff the server's surface against SNAPSHOT (from mcp-inspector snapshot): a breaking "
        "change is a surface-breaking error, one of unknown impact a warning",
    )
    check.add_argument(
        "--open",
        metavar="SESSION",
        dest="check_open",
        default=None,
        help="judge a recorded session file with the live rules (no server is run)",
    )
