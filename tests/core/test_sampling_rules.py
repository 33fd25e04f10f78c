"""Saved sampling auto-answers (core/config/sampling_rules.py): found per server by the last
user message, saved atomically 0600 under XDG_CONFIG_HOME, a broken file read as no rules
(and never overwritten), a reply file read at each answer."""

from __future__ import annotations

import json
import os
import stat

import pytest

from mcp_inspector.core.config.sampling_rules import (
    SamplingRule,
    SamplingRuleError,
    SamplingRules,
    last_user_text,
    rules_path,
)

SERVER = 'cmd:["python", "server.py"]'


def request(*texts: str, role: str = "user") -> dict:
    return {"maxTokens": 10, "messages": [{"role": role, "content": {"type": "text", "text": t}} for t in texts]}


def test_the_file_lives_in_the_config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert rules_path() == tmp_path / "mcp-inspector" / "sampling-rules.json"


def test_rules_are_saved_0600_and_read_back_and_found_by_the_last_user_message(tmp_path):
    path = tmp_path / "cfg" / "sampling-rules.json"
    rules = SamplingRules.load(path)
    assert rules.rules == [] and rules.problem is None  # no file yet: no rules, no problem
    rules.add(SamplingRule(SERVER, reply="a haiku", match="haiku", model="canned", stop_reason="endTurn"))
    rules.add(SamplingRule(SERVER, reply="anything else"))
    rules.add(SamplingRule("url:http://other", reply="other server"))
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    on_disk = json.loads(path.read_text())
    assert on_disk["servers"][SERVER][0] == {
        "match": "haiku",
        "reply": "a haiku",
        "model": "canned",
        "stopReason": "endTurn",
    }

    again = SamplingRules.load(path)
    assert again.find(SERVER, request("write a haiku")).reply == "a haiku"
    assert again.find(SERVER, request("write a haiku", "now a limerick")).reply == "anything else"  # the LAST one
    assert again.find(SERVER, request("a haiku", role="assistant")).reply == "anything else"  # user messages only
    assert again.find('cmd:["node"]', request("haiku")) is None  # per server
    assert again.find(SERVER, request("haiku")).result() == {
        "role": "assistant",
        "content": {"type": "text", "text": "a haiku"},
        "model": "canned",
        "stopReason": "endTurn",
    }


def test_the_same_server_and_match_replaces_a_rule_and_remove_saves(tmp_path):
    path = tmp_path / "rules.json"
    rules = SamplingRules.load(path)
    rules.add(SamplingRule(SERVER, reply="one", match="x"))
    rules.add(SamplingRule(SERVER, reply="two", match="x"))
    assert [r.reply for r in SamplingRules.load(path).rules] == ["two"]
    rules.remove(rules.rules[0])
    assert SamplingRules.load(path).rules == []


def test_a_reply_file_is_read_at_each_answer(tmp_path):
    reply = tmp_path / "reply.txt"
    rule = SamplingRule(SERVER, file=str(reply))
    with pytest.raises(SamplingRuleError, match="does not exist"):
        rule.result()
    reply.write_text("first\nsecond line")
    assert rule.result()["content"]["text"] == "first\nsecond line"
    reply.write_text("edited")
    assert rule.result()["content"]["text"] == "edited"
    reply.write_bytes(b"\xff\xfe")
    with pytest.raises(SamplingRuleError, match="not UTF-8"):
        rule.result()


def test_a_broken_file_gives_no_rules_says_why_and_is_not_overwritten(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text('{"servers": {"x": [{"reply": 3}]}}')
    rules = SamplingRules.load(path)
    assert rules.rules == [] and "reply must be a string" in rules.problem
    with pytest.raises(SamplingRuleError, match="not saved"):
        rules.add(SamplingRule(SERVER, reply="new"))
    assert path.read_text() == '{"servers": {"x": [{"reply": 3}]}}'
    path.write_text("not json")
    assert "is not a sampling rules file" in SamplingRules.load(path).problem


def test_a_rule_has_a_reply_or_a_file_and_describes_itself():
    with pytest.raises(ValueError):
        SamplingRule(SERVER)
    with pytest.raises(ValueError):
        SamplingRule(SERVER, reply="a", file="b")
    assert SamplingRule(SERVER, reply="hi", match="poem").describe() == (
        "when the last user message holds 'poem': 'hi' (model mcp-inspector (rule), endTurn)"
    )
    assert SamplingRule(SERVER, file="~/r.txt").describe().startswith("every request: the file ~/r.txt")


def test_last_user_text_reads_content_lists_and_skips_other_blocks():
    params = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "image", "data": ""},
                    {"type": "text", "text": "b"},
                ],
            }
        ]
    }
    assert last_user_text(params) == "a\nb"
    assert last_user_text({"messages": "nope"}) == "" and last_user_text(None) == ""
