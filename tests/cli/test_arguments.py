"""The key=value rule for tool and prompt arguments (in-process: pure functions)."""

from __future__ import annotations

import pytest

from mcp_inspector.cli.arguments import parse_pairs, prompt_arguments, tool_arguments
from mcp_inspector.cli.exit_codes import UsageError


def test_values_are_json_when_they_parse_else_strings():
    assert parse_pairs(
        [
            "n=3",
            "f=1.5",
            "flag=true",
            "none=null",
            "s=hello",
            'list=[1,"a"]',
            'obj={"k":1}',
            "zero=007",
            "empty=",
            "eq=a=b",
        ]
    ) == {
        "n": 3,
        "f": 1.5,
        "flag": True,
        "none": None,
        "s": "hello",
        "list": [1, "a"],
        "obj": {"k": 1},
        "zero": "007",
        "empty": "",
        "eq": "a=b",
    }


def test_file_values_follow_the_same_rule(tmp_path):
    (tmp_path / "a.json").write_text('{"x": [1, 2]}')
    (tmp_path / "b.txt").write_text("plain text\n")
    assert parse_pairs([f"a=@{tmp_path / 'a.json'}", f"b=@{tmp_path / 'b.txt'}", "at=@"]) == {
        "a": {"x": [1, 2]},
        "b": "plain text\n",
        "at": "@",
    }
    with pytest.raises(UsageError, match="file not found"):
        parse_pairs([f"a=@{tmp_path / 'missing'}"])


def test_pairs_override_args_and_bad_input_is_a_usage_error():
    assert tool_arguments(["b=2"], '{"a": 1, "b": 1}') == {"a": 1, "b": 2}
    for pairs, args in ((["novalue"], None), (["=x"], None), ([], "[1]"), ([], "{bad")):
        with pytest.raises(UsageError):
            tool_arguments(pairs, args)


def test_prompt_arguments_are_strings():
    arguments, warnings = prompt_arguments(["n=3", "s=hi"], '{"m": 5, "t": "x"}')
    assert arguments == {"n": "3", "s": "hi", "m": "5", "t": "x"}
    assert len(warnings) == 1 and "m was sent as" in warnings[0]
