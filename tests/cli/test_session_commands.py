"""The CLI side of the whole server surface (issue 9) against real servers: the capabilities
every command declares (the same as the TUI), complete, templates, read of a template,
subscribe (both eras), --log-level (both eras). server-everything, the demo server, and
tests/servers/updates_server.py (a resource that keeps changing) / modern_raw_server.py."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from cli_helpers import REPO_ROOT, assert_no_traceback, cli, record_lines

DEMO = ["--", sys.executable, "-m", "mcp_inspector.demo"]
UPDATES = ["--", sys.executable, str(REPO_ROOT / "tests" / "servers" / "updates_server.py")]
MODERN_RAW = ["--", sys.executable, str(REPO_ROOT / "tests" / "servers" / "modern_raw_server.py")]


def initialize_capabilities(record: Path) -> dict:
    initialize = next(r for r in record_lines(record) if r.get("method") == "initialize" and r.get("dir") == "out")
    return json.loads(initialize["raw"])["params"]["capabilities"]


# -- capabilities: the same as the TUI -------------------------------------------


@pytest.mark.everything
def test_tools_on_server_everything_lists_what_the_tui_lists(server_everything, connect, record):
    from mcp_inspector.core.traffic.store import TrafficStore
    from mcp_inspector.tui.screens.answer.server_request import client_handlers

    result = cli("tools", "--json", "--record", record, "--", *server_everything, timeout=60)
    assert result.returncode == 0, result.stderr
    cli_names = [tool["name"] for tool in json.loads(result.stdout)["tools"]]

    async def tui_names() -> tuple[list[str], dict]:
        handlers = client_handlers(lambda: None, TrafficStore())
        async with connect(server_everything, handlers=handlers, timeout=20) as c:
            return [tool["name"] for tool in await c.session.list_tools()], c.session.client_capabilities()

    names, tui_capabilities = anyio.run(tui_names)
    assert cli_names == names
    # without capabilities the server hid these (13 tools); URL elicitation is declared too now
    assert {
        "get-roots-list",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "trigger-url-elicitation",
    } <= set(cli_names)
    assert len(cli_names) == 17
    declared = initialize_capabilities(record)
    assert declared == tui_capabilities  # tasks too, declared by the session itself
    assert {name: declared[name] for name in ("roots", "sampling", "elicitation")} == {
        "roots": {"listChanged": True},
        "sampling": {"tools": {}},
        "elicitation": {"form": {}, "url": {}},
    }


def test_default_answers_decline_refuse_and_empty_roots():
    elicitation = cli("call", "ask_the_client", "kind=elicitation", *DEMO)
    assert elicitation.returncode == 0, elicitation.stderr
    assert json.loads(elicitation.stdout.split(":\n", 1)[1]) == {"action": "decline"}
    assert "declined: no --elicitation policy given" in elicitation.stderr
    sampling = cli("call", "ask_the_client", "kind=sampling", *DEMO)
    assert sampling.returncode == 1  # the demo reports the client's error as isError
    assert "no --sampling policy" in sampling.stdout
    roots = cli("call", "ask_the_client", "kind=roots", *DEMO)
    assert roots.returncode == 0, roots.stderr
    assert json.loads(roots.stdout.split(":\n", 1)[1]) == {"roots": []}  # never the working directory


def test_pipe_declares_only_the_policies_given(record):
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n"
    result = cli("pipe", "--record", record, *DEMO, input=line)
    assert result.returncode == 0, result.stderr
    declared = initialize_capabilities(record)
    assert not {"roots", "sampling", "elicitation"} & set(declared)


# -- complete ---------------------------------------------------------------------


@pytest.mark.everything
def test_complete_a_prompt_argument_on_server_everything(server_everything):
    result = cli(
        "complete", "--prompt", "completable-prompt", "department", "Eng", "--", *server_everything, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "Engineering"
    # the second argument narrowed by the first through context.arguments
    narrowed = cli(
        "complete",
        "--prompt",
        "completable-prompt",
        "name",
        "",
        "--context",
        "department=Engineering",
        "--",
        *server_everything,
        timeout=60,
    )
    assert narrowed.returncode == 0, narrowed.stderr
    names = narrowed.stdout.splitlines()
    assert names[:-1] == ["Alice", "Bob", "Charlie"] and names[-1].startswith("(total: 3")
    other = cli(
        "complete",
        "--prompt",
        "completable-prompt",
        "name",
        "",
        "--context",
        "department=Sales",
        "--",
        *server_everything,
        timeout=60,
    )
    assert set(other.stdout.splitlines()[:-1]).isdisjoint(names[:-1])


def test_complete_json_prints_the_result_exactly(record):
    result = cli("complete", "--prompt", "code_review", "language", "py", "--json", "--record", record, *DEMO)
    assert result.returncode == 0, result.stderr
    from mcp_inspector.core.base.jsonrpc import raw_member

    reply = next(r for r in record_lines(record) if r.get("dir") == "in" and '"completion"' in r.get("raw", ""))
    assert result.stdout.rstrip("\n") == raw_member(reply["raw"].encode(), "result")
    assert "python" in json.loads(result.stdout)["completion"]["values"]
    sent = next(r for r in record_lines(record) if r.get("method") == "completion/complete")
    assert json.loads(sent["raw"])["params"] == {
        "ref": {"type": "ref/prompt", "name": "code_review"},
        "argument": {"name": "language", "value": "py"},
    }


def test_complete_a_template_variable_on_the_demo():
    result = cli("complete", "--template", "demo://notes/{note_id}", "note_id", "meet", *DEMO)
    assert result.returncode == 0, result.stderr
    assert "meeting-2025-11-25" in result.stdout.splitlines()
    # q is narrowed by lang (context.arguments)
    python = cli("complete", "--template", "demo://search{?q,lang,limit}", "q", "", "--context", "lang=python", *DEMO)
    assert python.returncode == 0 and "asyncio" in python.stdout.splitlines()


def test_complete_needs_one_reference():
    result = cli("complete", "language", "py", *DEMO)
    assert result.returncode == 64 and "--prompt" in result.stderr
    both = cli("complete", "--prompt", "a", "--template", "b", "x", *DEMO)
    assert both.returncode == 64
    assert_no_traceback(both)


# -- templates and read of a template ------------------------------------------------


@pytest.mark.everything
def test_templates_and_read_of_the_dynamic_text_template(server_everything, record):
    listed = cli("templates", "--json", "--", *server_everything, timeout=60)
    assert listed.returncode == 0, listed.stderr
    templates = [t["uriTemplate"] for t in json.loads(listed.stdout)["resourceTemplates"]]
    text_template = next(t for t in templates if "/text/" in t)
    read = cli("read", text_template, "resourceId=3", "--record", record, "--", *server_everything, timeout=60)
    assert read.returncode == 0, read.stderr
    expanded = text_template.replace("{resourceId}", "3")
    assert f"reading {expanded}" in read.stderr and expanded in read.stdout
    sent = next(r for r in record_lines(record) if r.get("method") == "resources/read")
    assert json.loads(sent["raw"])["params"]["uri"] == expanded


def test_templates_on_the_demo():
    text = cli("templates", *DEMO)
    assert text.returncode == 0 and "demo://notes/{note_id}" in text.stdout
    listed = json.loads(cli("templates", "--json", *DEMO).stdout)["resourceTemplates"]
    assert text.stdout.splitlines()[-1] == f"({len(listed)} resource templates)"
    assert "demo://files{/path*}{#section}" in [t["uriTemplate"] for t in listed]


def test_read_a_template_with_several_operators_and_its_errors():
    note = cli("read", "demo://notes/{note_id}", "note_id=to do", "--json", *DEMO)
    assert note.returncode == 0, note.stderr
    assert json.loads(note.stdout)["contents"][0]["uri"] == "demo://notes/to%20do"
    # {/path*} explodes a JSON list into segments, {#section} is a fragment
    files = cli("read", "demo://files{/path*}{#section}", 'path=["docs","guide.md"]', "section=install", *DEMO)
    assert files.returncode == 0, files.stderr
    assert "[resource] demo://files/docs/guide.md#install" in files.stdout
    search = cli("read", "demo://search{?q,lang,limit}", "q=x y", "lang=en", "--json", *DEMO)
    assert json.loads(search.stdout)["contents"][0]["uri"] == "demo://search?q=x%20y&lang=en"
    assert "'limit' not given" in search.stderr
    unknown = cli("read", "demo://notes/{note_id}", "id=3", *DEMO)
    assert unknown.returncode == 64 and "has no variable 'id'" in unknown.stderr
    not_template = cli("read", "demo://readme", "id=3", *DEMO)
    assert not_template.returncode == 64 and "go with a URI template" in not_template.stderr


# -- subscribe ------------------------------------------------------------------------


def test_subscribe_legacy_prints_updates_and_unsubscribes(record):
    result = cli("subscribe", "ticker://clock", "--count", "3", "--era", "legacy", "--record", record, *UPDATES)
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 3 and all(line.endswith(" updated ticker://clock") for line in lines)
    methods = [r.get("method") for r in record_lines(record) if r.get("dir") == "out"]
    assert methods.index("resources/subscribe") < methods.index("resources/unsubscribe")


def test_subscribe_modern_json_lines_for_a_while(record):
    result = cli(
        "subscribe", "ticker://clock", "--for", "0.5", "--json", "--era", "modern", "--record", record, *UPDATES
    )
    assert result.returncode == 0, result.stderr
    updates = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(updates) >= 2 and all(update["uri"] == "ticker://clock" for update in updates)
    listen = next(r for r in record_lines(record) if r.get("method") == "subscriptions/listen")
    assert json.loads(listen["raw"])["params"]["notifications"]["resourceSubscriptions"] == ["ticker://clock"]
    assert any(r.get("method") == "notifications/cancelled" and r.get("dir") == "out" for r in record_lines(record))


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_subscribe_counts_and_prints_only_updates_of_its_uri(era):
    # each tick: an update of ticker://other (not subscribed), then one of ticker://clock
    result = cli(
        "subscribe", "ticker://clock", "--count", "3", "--json", "--era", era, *UPDATES, "--also", "ticker://other"
    )
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["uri"] for line in result.stdout.splitlines()] == ["ticker://clock"] * 3
    assert "3 updates of ticker://clock" in result.stderr
    assert "update of ticker://other" in result.stderr  # said, not counted


def test_a_sub_resource_update_counts_for_its_parent():
    from mcp_inspector.cli.commands.session import covers

    assert covers("file:///dir", "file:///dir/a.txt") and covers("file:///dir/", "file:///dir/a.txt")
    assert covers("ticker://clock", "ticker://clock")
    assert not covers("ticker://clock", "ticker://clockwork") and not covers("ticker://clock", "ticker://other")


def test_subscribe_stops_on_sigint_and_unsubscribes(tmp_path):
    import os
    import signal
    import subprocess

    env = dict(os.environ, MCP_INSPECTOR_NO_EARLY_START="1")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_inspector",
            "subscribe",
            "ticker://clock",
            "--era",
            "legacy",
            "--show-stderr",
            *UPDATES,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    first = process.stdout.readline()  # an update arrived: the subscription is live
    assert b"updated ticker://clock" in first
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=20)
    assert process.returncode == 130
    assert b"[server] unsubscribed ticker://clock" in stderr and b"Traceback" not in stderr


# -- --log-level ---------------------------------------------------------------------


def test_log_level_legacy_sets_the_level_and_shows_logs(record):
    result = cli("ping", "--log-level", "warning", "--era", "legacy", "--record", record, *UPDATES)
    assert result.returncode == 0, result.stderr
    assert "[warning] updates: level set to warning" in result.stderr
    sent = next(r for r in record_lines(record) if r.get("method") == "logging/setLevel")
    assert json.loads(sent["raw"])["params"] == {"level": "warning"}


def test_log_level_modern_rides_in_the_meta():
    result = cli("call", "log", "--log-level", "error", "--era", "modern", *MODERN_RAW)
    assert result.returncode == 0, result.stderr
    shown = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert shown and shown[0] == "[error] modern: error message" and not any("warning message" in s for s in shown)


def test_log_level_on_a_server_without_logging_is_a_warning():
    from cli_helpers import raw

    result = cli("ping", "--log-level", "info", "--", *raw())
    assert result.returncode == 0
    assert "does not declare the logging capability" in result.stderr


def test_log_level_is_checked():
    result = cli("ping", "--log-level", "loud", *DEMO)
    assert result.returncode == 64 and "--log-level" in result.stderr


def test_subscribe_ends_with_exit_3_when_the_server_goes_away():
    result = cli("subscribe", "ticker://clock", "--", *UPDATES[1:], "--exit-after", "2", timeout=30)
    assert_no_traceback(result)
    assert result.returncode == 3
    assert len(result.stdout.splitlines()) == 2 and "the server exited with code 7" in result.stderr


def test_subscribe_to_the_demo_clock():
    result = cli(
        "subscribe",
        "demo://clock",
        "--count",
        "2",
        "--json",
        "--",
        sys.executable,
        "-m",
        "mcp_inspector.demo",
        "--tick-interval",
        "0.1",
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert [json.loads(line)["uri"] for line in result.stdout.splitlines()] == ["demo://clock"] * 2


def test_subscribe_modern_warns_when_the_server_does_not_honour_the_uri():
    result = cli("subscribe", "ticker://nothing", "--for", "0.2", "--era", "modern", *UPDATES)
    assert result.returncode == 0 and result.stdout == ""
    assert "did not acknowledge the subscription to ticker://nothing" in result.stderr


def test_log_level_with_progress_shows_each_log_once():
    result = cli("call", "emit_logs", "--log-level", "warning", "--progress", *DEMO)
    assert result.returncode == 0, result.stderr
    logs = [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in logs] == ["[warning", "[error"]
    assert "minimum level: warning" in result.stdout


def test_modern_sdk_server_read_of_a_template_and_log_level(record):
    sdk = ["--", sys.executable, str(REPO_ROOT / "tests" / "servers" / "sdk_modern_server.py")]
    read = cli("read", "greeting://{name}", "name=Ada Lovelace", "--record", record, *sdk)
    assert read.returncode == 0, read.stderr
    assert "Hello, Ada Lovelace!" in read.stdout
    sent = next(r for r in record_lines(record) if r.get("method") == "resources/read")
    assert json.loads(sent["raw"])["params"]["uri"] == "greeting://Ada%20Lovelace"
    logs = cli("call", "progress_and_log", "--log-level", "info", *sdk)
    assert logs.returncode == 0 and "[info] sdk-http-fixture: step 1" in logs.stderr


def test_get_and_read_answer_mrtr_rounds_in_the_modern_era(record):
    # modern_raw_server's greet prompt and memo://ask first ask for input (input_required)
    got = cli("get", "greet", "--json", "--record", record, *MODERN_RAW)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["messages"][0]["content"]["text"] == "hello ?"
    sent = [r for r in record_lines(record) if r.get("method") == "prompts/get" and r.get("dir") == "out"]
    assert len(sent) == 2 and "inputResponses" in json.loads(sent[1]["raw"])["params"]
    read = cli("read", "memo://ask", *MODERN_RAW)
    assert read.returncode == 0 and "hello ?" in read.stdout


@pytest.mark.everything
def test_subscribe_on_server_everything_with_its_toggle_tool(server_everything):
    # server-everything sends updates only after toggle-subscriber-updates ran in the same session
    uri = "demo://resource/static/document/architecture.md"
    result = cli(
        "subscribe",
        uri,
        "--call",
        "toggle-subscriber-updates",
        "--count",
        "1",
        "--json",
        "--",
        *server_everything,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["uri"] == uri
    assert "called toggle-subscriber-updates" in result.stderr


def test_subscribe_call_with_arguments_on_the_demo(record):
    result = cli(
        "subscribe",
        "demo://readme",
        "--call",
        "touch_resource",
        "--call-args",
        '{"uri": "demo://readme"}',
        "--count",
        "1",
        "--record",
        record,
        *DEMO,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("updated demo://readme")
    methods = [r.get("method") for r in record_lines(record) if r.get("dir") == "out"]
    assert methods.index("resources/subscribe") < methods.index("tools/call") < methods.index("resources/unsubscribe")
    lonely = cli("subscribe", "demo://readme", "--call-args", "{}", *DEMO)
    assert lonely.returncode == 64 and "--call-args goes with --call" in lonely.stderr
