"""A command line is parsed by a parser holding only the sub-parser of the command it names
(cli/parsing.py build_parser: ~5 ms of every cold command): it must mean exactly what the full
parser makes of it, and what names no command still gets the full parser's answer."""

from __future__ import annotations

import pytest

from mcp_inspector.cli.exit_codes import UsageError
from mcp_inspector.cli.parsing import build_parser, command_word, parse
from mcp_inspector.cli.parsing_commands import COMMAND_HELP

LINES = [
    ["tools"],
    ["--url", "http://127.0.0.1:1/mcp", "--era", "legacy", "tools", "--json"],
    ["-q", "--timeout", "5", "info"],
    ["resources"],
    ["prompts", "--json"],
    ["call", "add", "a=1", "b=2", "--args", '{"c": 3}', "--progress"],
    ["templates"],
    ["read", "demo://notes/{id}", "id=x"],
    ["get", "greet", "name=x"],
    ["complete", "--prompt", "greet", "name", "a"],
    ["subscribe", "demo://x", "--count", "2"],
    ["tasks", "get", "t1"],
    ["ping"],
    ["pipe"],
    ["replay", "session.jsonl", "--ignore", "/id"],
    ["query", "s.jsonl", ".", "--count"],
    ["watch", "--call", "add", "a=1"],
    ["auth", "status"],
    ["check", "--era", "both"],
    ["snapshot", "-o", "out.json"],
    ["diff", "old.json", "new.json"],
    ["--record", "r.jsonl", "--show-stderr", "tools", "--", "python", "server.py"],
]


def test_every_command_is_in_the_lines_above():
    assert {command_word(line) for line in LINES} == set(COMMAND_HELP)


@pytest.mark.parametrize("words", LINES, ids=lambda words: " ".join(words))
def test_the_one_command_parser_means_what_the_full_parser_means(words):
    own = words[: words.index("--")] if "--" in words else words
    only = command_word(own)
    assert only is not None
    parser = build_parser(only)
    assert set(parser._subparsers._group_actions[0].choices) == {only}  # noqa: SLF001 - what was built
    assert vars(parser.parse_known_args(own)[0]) == vars(build_parser(None).parse_known_args(own)[0])


def test_a_word_that_is_no_command_still_lists_every_command():
    with pytest.raises(UsageError) as caught:
        parse(["toolz"])
    for name in ("tools", "call", "diff"):
        assert name in str(caught.value)
