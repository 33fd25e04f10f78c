"""Every command against the built-in demo server, in readable and --json output."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_no_traceback, cli, raw, record_lines, recorded_reply

from mcp_inspector.core.traffic.loading import load_session


def test_info_readable_and_json():
    readable = cli("info")
    assert readable.returncode == 0, readable.stderr
    assert "mcp-inspector-demo" in readable.stdout and "Protocol:     2025-11-25" in readable.stdout
    assert "tools: listChanged" in readable.stdout and "Instructions:" in readable.stdout
    document = json.loads(cli("info", "--json").stdout)
    assert set(document) == {"serverInfo", "protocolVersion", "era", "capabilities", "instructions"}
    assert document["serverInfo"]["name"] == "mcp-inspector-demo"
    assert document["protocolVersion"] == "2025-11-25"


def test_tools_readable_signatures_and_flags():
    result = cli("tools")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    add = next(line for line in lines if line.startswith("add("))
    assert add.startswith("add(a: number, b: number) — Adds a and b.")
    assert "[read-only, idempotent, structured output]" in add
    ticket = next(line for line in lines if line.startswith("create_ticket("))
    assert 'priority?: "low"|"medium"|"high"|"urgent"' in ticket and "tags?: string[]" in ticket
    count = len(json.loads(cli("tools", "--json").stdout)["tools"])
    assert count >= 13 and lines[-1] == f"({count} tools)"


def test_tools_json_is_the_full_list_across_pages():
    paged = cli("tools", "--json", "--", *raw("paged-tools", tools=25, page_size=10))
    assert paged.returncode == 0, paged.stderr
    tools = json.loads(paged.stdout)["tools"]
    assert [tool["name"] for tool in tools] == [f"tool_{i:04d}" for i in range(25)]


@pytest.mark.parametrize("command", ["info", "tools", "prompts", "resources"])
def test_early_start_and_normal_start_agree(command):
    """A server started before the event loop (and adopted by the transport) behaves like one the transport spawns."""
    fast = cli(command, "--json")
    full = cli(command, "--json", early_start=False)
    assert fast.returncode == full.returncode == 0, (fast.stderr, full.stderr)
    assert json.loads(fast.stdout) == json.loads(full.stdout)


def test_early_start_and_normal_start_agree_on_readable_output_and_errors():
    assert cli("tools").stdout == cli("tools", early_start=False).stdout
    command = ("info", "--", *raw("exit-on-start"))
    fast, full = cli(*command), cli(*command, early_start=False)
    assert fast.returncode == full.returncode == 3
    assert fast.stderr == full.stderr


def test_resources_and_prompts():
    resources = cli("resources")
    assert resources.returncode == 0
    assert "demo://readme  Demo README  (text/markdown)" in resources.stdout
    assert "demo://notes/{note_id}" in resources.stdout
    document = json.loads(cli("resources", "--json").stdout)
    assert [r["uri"] for r in document["resources"]][0] == "demo://readme"
    assert document["resourceTemplates"][0]["uriTemplate"] == "demo://notes/{note_id}"
    prompts = cli("prompts")
    assert "summarize(text, style?)" in prompts.stdout and "code_review(language, code)" in prompts.stdout


def test_server_without_a_capability_lists_nothing_with_a_note_unless_quiet():
    result = cli("prompts", "--json", "--", *raw())
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"prompts": []}
    assert "does not declare the prompts capability" in result.stderr
    quiet = cli("resources", "-q", "--", *raw(), early_start=False)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout == "Resources (0):\nResource templates (0):\n"


@pytest.mark.parametrize("early_start", [True, False])
def test_protocol_version_option_is_proposed(early_start):
    result = cli("info", "--json", "--protocol-version", "2025-03-26", "--", *raw(), early_start=early_start)
    assert json.loads(result.stdout)["protocolVersion"] == "2025-03-26"


def test_call_readable_renders_every_content_type():
    result = cli("call", "all_content_types")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Plain text block" in out
    assert '"numbers": [\n    1,' in out  # JSON text pretty-printed
    assert "[image image/png, 583 bytes]" in out and "[audio audio/wav," in out
    assert "[resource link] demo://readme  Demo README  (text/markdown)" in out
    assert "[resource] demo://config.json  (application/json)" in out
    assert "[resource] demo://logo.png  (image/png)  [blob, 583 bytes]" in out


def test_call_structured_content_and_output_schema_issues():
    good = cli("call", "add", "a=1", "b=2")
    assert good.returncode == 0
    assert good.stdout.splitlines()[0] == "3" and "outputSchema: valid" in good.stdout
    broken = cli("call", "broken_structured_output")
    assert broken.returncode == 5  # exit_codes.OUTPUT_SCHEMA
    assert "outputSchema: INVALID" in broken.stdout and "$.count: 'three' is not of type 'integer'" in broken.stdout


def test_call_prints_structured_content_once_when_a_text_block_holds_the_same_json():
    same = cli("call", "create_ticket", "title=Crash on start")
    assert same.returncode == 0, same.stderr
    assert same.stdout.count('"title": "Crash on start"') == 1  # not twice (issue 21)
    assert "(structuredContent: same as the text above)" in same.stdout and "outputSchema: valid" in same.stdout
    differs = cli("call", "add", "a=1", "b=2")  # text "3", structuredContent {"sum": 3}: both shown
    assert 'structuredContent:\n{\n  "sum": 3\n}' in differs.stdout and "same as the text" not in differs.stdout


def test_call_json_is_the_result_exactly_as_received(record):
    result = cli("call", "create_ticket", "title=Crash on start", 'tags=["a","b"]', "--json", "--record", record)
    assert result.returncode == 0, result.stderr
    response = recorded_reply(record_lines(record), "tools/call")
    from mcp_inspector.core.base.jsonrpc import raw_member

    assert result.stdout == raw_member(response["raw"].encode(), "result") + "\n"
    assert json.loads(result.stdout)["structuredContent"]["tags"] == ["a", "b"]


def test_call_arguments_types_files_and_args_merge(tmp_path):
    payload = tmp_path / "message.json"
    payload.write_text('"from a file"')
    echoed = cli("call", "echo", f"message=@{payload}", "--json")
    assert json.loads(echoed.stdout)["content"][0]["text"] == "from a file"
    merged = cli("call", "add", "--args", '{"a": 1, "b": 1}', "b=41", "--json")
    assert json.loads(merged.stdout)["structuredContent"] == {"sum": 42}
    text = cli("call", "echo", "message=hello world")
    assert text.stdout == "hello world\n"


def test_call_invalid_arguments_warn_but_are_sent():
    result = cli("call", "add", "a=x")
    assert result.returncode == 1  # the demo server answers isError
    assert "warning: argument $.a: 'x' is not of type 'number' (sending anyway)" in result.stderr
    assert "warning: argument $: 'b' is a required property" in result.stderr
    assert result.stdout.startswith("ERROR: the tool reported a failure (isError: true)")


def test_call_progress_on_stderr_with_progress_flag():
    result = cli("call", "long_running_task", "duration_seconds=0.3", "steps=3", "--progress")
    assert result.returncode == 0
    assert "progress 1/3: step 1/3" in result.stderr and "progress 3/3" in result.stderr
    assert result.stdout.startswith("Finished 3 steps")
    quiet = cli("call", "long_running_task", "duration_seconds=0.1", "steps=2")
    assert "progress" not in quiet.stderr  # stderr is not a terminal and no --progress


def test_read_and_get_both_modes(record):
    readable = cli("read", "demo://readme")
    assert readable.returncode == 0
    assert readable.stdout.startswith("[resource] demo://readme  (text/markdown)\n# MCP Inspector demo server")
    exact = cli("read", "demo://config.json", "--json", "--record", record)
    reply = recorded_reply(record_lines(record), "resources/read")
    from mcp_inspector.core.base.jsonrpc import raw_member

    assert exact.stdout == raw_member(reply["raw"].encode(), "result") + "\n"
    prompt = cli("get", "summarize", "text=hello", "style=short")
    assert prompt.returncode == 0
    assert "[user]" in prompt.stdout and "hello" in prompt.stdout
    prompt_json = json.loads(cli("get", "code_review", "language=python", "code=x = 1", "--json").stdout)
    assert prompt_json["messages"]


def test_ping_both_modes():
    readable = cli("ping")
    assert readable.returncode == 0 and readable.stdout.startswith("pong: round trip ")
    document = json.loads(cli("ping", "--json").stdout)
    assert document["ok"] is True and document["roundTripMs"] >= 0


def test_record_file_is_a_loadable_session(record):
    result = cli("call", "echo", "message=hi", "--record", record)
    assert result.returncode == 0
    session = load_session(record)
    methods = [entry.method for entry in session.store if entry.method]
    # --era auto (the default) asks server/discover first; the demo server answers it as a legacy server
    assert methods[:4] == ["server/discover", "initialize", "notifications/initialized", "tools/list"]
    assert "tools/call" in methods
    assert session.skipped_lines == []


def test_show_stderr_echoes_server_stderr_live():
    result = cli("--show-stderr", "call", "echo", "text=hi", "--", *raw("stderr-chatter"))
    assert result.returncode == 0
    assert "[server] raw-server: received initialize id=" in result.stderr
    assert "[server] raw-server: received tools/call" in result.stderr
    fast = cli("tools", "--show-stderr", "--", *raw("stderr-chatter"))
    assert "[server] raw-server: received tools/list" in fast.stderr
    silent = cli("call", "echo", "text=hi", "--", *raw("stderr-chatter"))
    assert "[server]" not in silent.stderr


def test_version_and_help():
    version = cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("mcp-inspector ")
    help_text = cli("--help")
    assert help_text.returncode == 0
    for code in ("0 ", "1 ", "2 ", "3 ", "4 ", "64 ", "130 "):
        assert f"\n  {code}" in help_text.stdout
    assert_no_traceback(help_text)


def test_call_prints_a_deeply_nested_text_result_as_it_is():
    # Text that looks like JSON is pretty-printed; text nested too deep to parse is printed as it is.
    import json as _json
    import sys
    from pathlib import Path

    from cli_helpers import assert_no_traceback, cli

    server = Path(__file__).resolve().parents[1] / "servers" / "frame_path_server.py"
    deep = "[" * 995 + "]" * 995
    result = cli("call", "echo", "--args", _json.dumps({"text": deep}), "--", sys.executable, str(server))
    assert result.returncode == 0, result.stderr
    assert_no_traceback(result)
    assert deep in result.stdout
