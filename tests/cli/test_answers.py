"""Headless answers to a server's requests (--elicitation, --sampling, --root) against real servers
that ask: the demo server's ``ask_the_client`` (legacy server->client requests over stdio) and the
mcp SDK server's ``ask_user`` (over Streamable HTTP, legacy requests and 2026-07-28 MRTR input
requests, answered by the same handlers)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from cli_helpers import assert_no_traceback, cli, record_lines

from mcp_inspector.core.session.answers import (
    AnswerPolicyError,
    build_handlers,
    elicitation_answer,
    root_entries,
    schema_defaults,
)

DEMO = ["--", sys.executable, "-m", "mcp_inspector.demo"]
MODERN = "2026-07-28"


def answer_of(stdout: str) -> dict:
    """The demo's ask_the_client result: 'The client answered METHOD:' then the JSON answer."""
    return json.loads(stdout.split(":\n", 1)[1])


def test_without_a_policy_the_capability_is_declared_and_declined(record):
    result = cli("call", "ask_the_client", "kind=elicitation", "--record", record, *DEMO)
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == {"action": "decline"}
    assert "no --elicitation policy given" in result.stderr
    initialize = next(r for r in record_lines(record) if r.get("method") == "initialize")
    assert json.loads(initialize["raw"])["params"]["capabilities"]["elicitation"] == {"form": {}, "url": {}}


def test_elicitation_from_a_file_merged_over_the_defaults(tmp_path, record):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps({"name": "Ada", "age": 36}))
    result = cli(
        "call", "ask_the_client", "kind=elicitation", "--elicitation", f"@{answers}", "--record", record, *DEMO
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    # "subscribe" comes from the requestedSchema's default, the rest from the file
    assert answer_of(result.stdout) == {"action": "accept", "content": {"subscribe": False, "name": "Ada", "age": 36}}
    initialize = next(r for r in record_lines(record) if r.get("method") == "initialize")
    assert "elicitation" in json.loads(initialize["raw"])["params"]["capabilities"]


def test_elicitation_defaults_declines_when_a_required_field_has_no_default():
    result = cli("call", "ask_the_client", "kind=elicitation", "--elicitation", "defaults", *DEMO)
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == {"action": "decline"}
    assert "'name' is a required property" in result.stderr and "declined" in result.stderr


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_elicitation_decline_and_cancel(action):
    result = cli("call", "ask_the_client", "kind=elicitation", "--elicitation", action, *DEMO)
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == {"action": action}


def test_sampling_from_a_text_file(tmp_path):
    answer = tmp_path / "sampling.json"
    answer.write_text(json.dumps({"text": "Frames fly by / JSON-RPC in both directions / nothing is hidden"}))
    result = cli("call", "ask_the_client", "kind=sampling", "--sampling", f"@{answer}", *DEMO)
    assert result.returncode == 0, result.stderr
    got = answer_of(result.stdout)
    assert got["role"] == "assistant" and got["content"] == {
        "type": "text",
        "text": json.loads(answer.read_text())["text"],
    }
    assert got["model"] and got["stopReason"] == "endTurn"


def test_sampling_from_a_create_message_result(tmp_path):
    answer = tmp_path / "result.json"
    document = {
        "role": "assistant",
        "content": {"type": "text", "text": "hi"},
        "model": "my-model",
        "stopReason": "maxTokens",
    }
    answer.write_text(json.dumps(document))
    result = cli("call", "ask_the_client", "kind=sampling", "--sampling", f"@{answer}", *DEMO)
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == document


def test_sampling_decline_is_an_error_reply():
    result = cli("call", "ask_the_client", "kind=sampling", "--sampling", "decline", *DEMO)
    assert result.returncode == 1
    assert "User rejected sampling request" in result.stdout


def test_roots_answer_exactly_the_given_paths(tmp_path):
    result = cli(
        "call", "ask_the_client", "kind=roots", "--root", tmp_path, "--root", "relative dir", *DEMO, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == {
        "roots": [
            {"uri": tmp_path.as_uri(), "name": tmp_path.name},
            {"uri": (tmp_path / "relative dir").as_uri(), "name": "relative dir"},
        ]
    }


@pytest.mark.parametrize(
    "words,message",
    [
        (["--elicitation", "accept"], "--elicitation: expected defaults, decline, cancel or @FILE, got 'accept'"),
        (["--elicitation", "@/no/such/answers.json"], "--elicitation: file not found: /no/such/answers.json"),
        (["--sampling", "accept"], "--sampling: expected decline or @FILE"),
        (["--sampling", "@{tmp}/list.json"], "must hold a JSON object"),
        (["--sampling", "@{tmp}/empty.json"], 'needs "text"'),
        (["--elicitation", "@{tmp}/broken.json"], "is not valid JSON"),
    ],
)
def test_bad_policies_are_usage_errors(tmp_path, words, message):
    (tmp_path / "list.json").write_text("[1]")
    (tmp_path / "empty.json").write_text("{}")
    (tmp_path / "broken.json").write_text("{nope")
    result = cli("call", "ask_the_client", "kind=sampling", *(w.replace("{tmp}", str(tmp_path)) for w in words), *DEMO)
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    assert message in result.stderr


# -- over HTTP: the same handlers answer legacy requests and modern MRTR input requests --------


def test_elicitation_over_legacy_streamable_http(sdk_http_stateful_url, tmp_path):
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"name": "Grace"}))
    result = cli("call", "ask_user", "--elicitation", f"@{answers}", "--url", sdk_http_stateful_url, "--era", "legacy")
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert "Hello, Grace!" in result.stdout


def test_elicitation_as_an_mrtr_input_request(sdk_modern_http_url, tmp_path):
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"name": "Ada"}))
    result = cli(
        "call", "ask_user", "--elicitation", f"@{answers}", "--url", sdk_modern_http_url, "--protocol-version", MODERN
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert "Hello, Ada!" in result.stdout
    declined = cli(
        "call", "ask_user", "--elicitation", "decline", "--url", sdk_modern_http_url, "--protocol-version", MODERN
    )
    assert declined.returncode == 0, declined.stderr
    assert "declined" in declined.stdout


def test_json_call_prints_the_final_result_after_an_mrtr_round(sdk_modern_http_url, tmp_path):
    """Issue 19 item 17: --json printed the first round's InputRequiredResult, not the final result."""
    answers = tmp_path / "a.json"
    answers.write_text(json.dumps({"name": "Ada"}))
    result = cli(
        "--json",
        "call",
        "ask_user",
        "--elicitation",
        f"@{answers}",
        "--url",
        sdk_modern_http_url,
        "--protocol-version",
        MODERN,
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert "Hello, Ada!" in json.dumps(document)
    assert "inputRequests" not in document and document.get("resultType") != "input_required", document


# -- the policies themselves (the factories the TUI can reuse) -----------------------------

SEP_1034_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
        "verified": {"type": "boolean", "default": True},
    },
    "required": [],
}


def test_defaults_of_every_primitive_type_are_applied():
    assert schema_defaults(SEP_1034_SCHEMA) == {
        "name": "John Doe",
        "age": 30,
        "score": 95.5,
        "status": "active",
        "verified": True,
    }
    assert elicitation_answer({"message": "m", "requestedSchema": SEP_1034_SCHEMA}) == {
        "action": "accept",
        "content": schema_defaults(SEP_1034_SCHEMA),
    }


def test_answers_that_break_the_schema_are_declined_with_a_reason():
    said: list[str] = []
    got = elicitation_answer({"requestedSchema": SEP_1034_SCHEMA}, {"status": "unknown"}, said.append)
    assert got == {"action": "decline"} and "status" in said[0]
    nested = {"type": "object", "properties": {"deep": {"type": "object", "properties": {}}}}
    assert elicitation_answer({"requestedSchema": nested}, report=said.append) == {"action": "decline"}
    assert elicitation_answer({"mode": "url", "url": "https://e.example"}, report=said.append) == {"action": "decline"}


def test_build_handlers_registers_only_what_was_asked(tmp_path):
    assert build_handlers() == {}
    handlers = build_handlers("cancel", "decline", [str(tmp_path)])
    assert set(handlers) == {"elicitation/create", "sampling/createMessage", "roots/list"}

    async def ask() -> tuple[dict, dict]:
        return (
            await handlers["elicitation/create"]({"message": "m"}, None),  # type: ignore[arg-type]
            await handlers["roots/list"](None, None),
        )  # type: ignore[arg-type]

    elicited, roots = anyio.run(ask)
    assert elicited == {"action": "cancel"} and roots == {"roots": root_entries([str(tmp_path)])}
    with pytest.raises(AnswerPolicyError):
        build_handlers("@" + str(Path(tmp_path) / "missing.json"))
