"""``prompts``, ``get`` and ``complete`` against a server with malformed prompts, a malformed
prompts/get result, every content type and hostile completions (tests/servers/completion_server.py),
over a real pipe."""

from __future__ import annotations

import json
import sys

from cli_helpers import REPO_ROOT, assert_no_traceback, cli

SERVER = [sys.executable, str(REPO_ROOT / "tests" / "servers" / "completion_server.py")]


def test_malformed_prompts_in_the_list_are_listed_not_a_crash():
    result = cli("prompts", "--", *SERVER, "--junk-prompts")
    assert result.returncode == 0, result.stderr
    assert_no_traceback(result)
    lines = result.stdout.splitlines()
    assert "junk()" in lines  # `arguments` a number: none
    assert "3(x\x1b[31mred?, ?)" in lines  # "required": "yes" is not true
    assert "pick(first, second?) — Two arguments, the second narrowed by the first." in lines


def test_a_malformed_get_result_is_a_warning():
    result = cli("get", "broken", "--", *SERVER)
    assert result.returncode == 0
    assert result.stdout.strip() == "(no messages)"
    assert "malformed result: prompts/get has no messages array" in result.stderr
    as_json = cli("get", "broken", "--json", "--", *SERVER)
    assert json.loads(as_json.stdout) == {"messages": "nope"}  # exactly as received
    assert "no messages array" in as_json.stderr


def test_every_content_type_is_printed_by_role():
    result = cli("get", "media", "--", *SERVER)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for line in (
        "[user]",
        "Look at these.",
        "[image image/png, 108 bytes]",
        "[assistant]",
        "[audio audio/wav, 204 bytes]",
        "[resource link] test://readme  readme  (text/markdown)",
        "[resource] test://notes  (text/plain)",
        "embedded notes",
        "[system]",
        "an odd role",
    ):
        assert line in out.splitlines(), line
    assert "malformed" not in result.stderr


def test_complete_narrows_by_context_and_reports_hostile_answers():
    narrowed = cli("complete", "--prompt", "pick", "second", "", "--context", "first=zed", "--", *SERVER)
    assert narrowed.stdout.splitlines() == ["zed-a", "zed-b"]
    many = cli("complete", "--prompt", "pick", "first", "many", "--", *SERVER)
    assert many.returncode == 0 and len(many.stdout.splitlines()) == 10_000
    assert "the server sent 10000 values; the spec allows at most 100" in many.stderr
    never = cli("complete", "--prompt", "pick", "first", "never", "--timeout", "1", "--", *SERVER)
    assert never.returncode == 4 and "notifications/cancelled was sent" in never.stderr
    garbage = cli("complete", "--prompt", "pick", "first", "garbage", "--", *SERVER)
    assert garbage.returncode == 3 and "not an object" in garbage.stderr
    for result in (narrowed, many, never, garbage):
        assert_no_traceback(result)
