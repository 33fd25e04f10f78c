"""Remote servers in config files and on the command line: the spec they become, secrets masked,
and every wrong option a one-line usage error (exit 64)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_no_traceback, cli, raw

from mcp_inspector.core.config.cli_command import call_command_line
from mcp_inspector.core.config.servers import ConfigError, ServerSpec, load_config, parse_entry, parse_header

SECRET = "sk-live-0123456789abcdef"


@pytest.mark.parametrize(
    "kind,transport",
    [
        (None, "http"),
        ("http", "http"),
        ("streamable-http", "streamable-http"),
        ("streamableHttp", "streamable-http"),
        ("sse", "sse"),
        ("SSE", "sse"),
    ],
)
def test_url_entry_types(kind, transport):
    entry = {"url": "https://example.com/mcp"}
    if kind is not None:
        entry["type"] = kind
    spec = parse_entry("s", entry)
    assert (spec.url, spec.transport, spec.command) == ("https://example.com/mcp", transport, [])


def test_the_config_shapes_of_claude_cursor_vscode_and_mcp_json(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_FOR_TEST", SECRET)
    claude = tmp_path / "claude.json"
    claude.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "remote": {
                        "type": "streamableHttp",
                        "url": "https://a.example/mcp",
                        "headers": {"Authorization": "Bearer ${TOKEN_FOR_TEST}"},
                    },
                    "local": {"command": "python", "args": ["s.py"], "era": "legacy"},
                }
            }
        )
    )
    vscode = tmp_path / "mcp.json"
    vscode.write_text(
        json.dumps(
            {
                "servers": {
                    "gh": {
                        "type": "http",
                        "url": "https://b.example/mcp",
                        "headers": {"X-Key": "${env:TOKEN_FOR_TEST}"},
                        "era": "modern",
                    },
                    "old": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                }
            }
        )
    )
    dot_mcp = tmp_path / ".mcp.json"
    dot_mcp.write_text(json.dumps({"mcpServers": {"x": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}))
    specs = load_config(claude)
    assert specs["remote"].headers == {"Authorization": f"Bearer {SECRET}"}
    assert specs["remote"].transport == "streamable-http" and specs["local"].era == "legacy"
    specs = load_config(vscode)
    assert specs["gh"].headers == {"X-Key": SECRET} and specs["gh"].era == "modern"
    assert specs["old"].transport == "sse"
    assert load_config(dot_mcp)["x"].transport == "http"


def test_an_unset_variable_is_an_error_naming_it(monkeypatch):
    monkeypatch.delenv("SURELY_UNSET_VAR", raising=False)
    with pytest.raises(ConfigError, match="SURELY_UNSET_VAR is not set"):
        parse_entry("s", {"url": "https://e.example/mcp", "headers": {"X": "${SURELY_UNSET_VAR}"}})
    with pytest.raises(ConfigError, match="SURELY_UNSET_VAR is not set"):
        parse_header("X-Token: ${env:SURELY_UNSET_VAR}")


@pytest.mark.parametrize(
    "entry,message",
    [
        ({"url": "ftp://e.example/x"}, "must start with http:// or https://"),
        ({"url": "http://127.0.0.1:99999/mcp"}, "the url is not a valid URL"),
        ({"url": "http://"}, "the url has no host"),
        ({"url": "https://e.example/x", "type": "websocket"}, "unknown \"type\" 'websocket'"),
        ({"type": "http"}, 'there is no "url"'),
        ({"command": "x", "era": "future"}, '"era" must be one of auto, legacy, modern'),
        ({"url": "https://e.example/x", "headers": {"Bad Name": "v"}}, "invalid header name"),
    ],
)
def test_bad_url_entries(entry, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_entry("s", entry)


def test_describe_repr_and_copy_as_command_mask_secrets():
    spec = ServerSpec(
        "s",
        url=f"https://e.example/mcp?access_token={SECRET}",
        transport="sse",
        source="command line",
        headers={"Authorization": f"Bearer {SECRET}", "X-Tenant": "acme"},
        era="modern",
        insecure=True,
    )
    assert spec.describe() == "sse https://e.example/mcp?access_token=sk-l•••"
    assert SECRET not in repr(spec)
    line = call_command_line(spec, "echo", {"text": "hi"})
    assert SECRET not in line
    assert (
        "--transport sse" in line and "-H 'X-Tenant: acme'" in line and "--insecure" in line and "--era modern" in line
    )
    assert "-H 'Authorization: Bearer sk-l" in line


def test_copy_as_command_keeps_config_headers_in_the_config(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_FOR_TEST", SECRET)
    config = tmp_path / "c.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "r": {"url": "https://e.example/mcp", "headers": {"Authorization": "Bearer ${TOKEN_FOR_TEST}"}}
                }
            }
        )
    )
    from mcp_inspector.core.config.servers import server_from_config

    line = call_command_line(server_from_config(config, "r"), "echo", {})
    assert f"--config {config} --server r" in line and "--url" not in line and "Authorization" not in line


def test_with_overrides_keeps_the_remote_settings():
    spec = ServerSpec(
        "s",
        url="https://e.example/mcp",
        transport="sse",
        headers={"A": "1"},
        era="legacy",
        protocol_version="2025-06-18",
        insecure=True,
        source="x.json",
    )
    again = spec.with_overrides(env={"K": "v"})
    assert (
        again.url,
        again.transport,
        again.headers,
        again.era,
        again.protocol_version,
        again.insecure,
        again.source,
    ) == ("https://e.example/mcp", "sse", {"A": "1"}, "legacy", "2025-06-18", True, "x.json")
    assert spec.with_overrides(headers={"a": "2"}).headers == {"a": "2"}  # names compare without case


@pytest.mark.parametrize(
    "words,message",
    [
        (["--url", "ftp://127.0.0.1/x"], "--url must start with http:// or https:// (got ftp://)"),
        (["--url", "127.0.0.1:8080/mcp"], "--url must start with http:// or https://"),
        (["--url", "http:///mcp"], "--url has no host"),
        (["--url", "http://127.0.0.1:99999/mcp"], "--url is not a valid URL"),
        (["--url", "http://a b/mcp"], "--url contains a space, line break or NUL"),
        (["--url", "http://127.0.0.1:9/mcp", "-H", "NoColon"], "-H expects 'Name: value'"),
        (["--url", "http://127.0.0.1:9/mcp", "-H", "Bad Name: v"], "-H: 'Bad Name' is not a valid header name"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "-H", "X-Key: ${SURELY_UNSET_VAR}"],
            "the environment variable SURELY_UNSET_VAR is not set",
        ),
        (["--url", "http://127.0.0.1:9/mcp", "--transport", "websocket"], "argument --transport: invalid choice"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--era", "legacy", "--protocol-version", "2026-07-28"],
            "--protocol-version 2026-07-28 is a modern version, but --era legacy was given",
        ),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--era", "modern", "--protocol-version", "2025-06-18"],
            "--protocol-version 2025-06-18 is a legacy version, but --era modern was given",
        ),
        (["--url", "http://127.0.0.1:9/mcp", "--bearer-token", ""], "--bearer-token: the token is empty"),
        (
            ["--url", "http://127.0.0.1:9/mcp", "--", "python", "x.py"],
            "choose one server: a command after -- and --url",
        ),
        (["--url", "http://127.0.0.1:9/mcp", "-e", "A=b"], "-e and --cwd are for a server command, not --url"),
        (["--url", "http://127.0.0.1:9/mcp", "--cwd", "/"], "-e and --cwd are for a server command, not --url"),
        (["-H", "X-Tenant: acme", "--", *raw()], "-H: only for a remote server"),
        (["--bearer-token", SECRET, "--", *raw()], "--bearer-token: only for a remote server"),
        (["--insecure", "--transport", "sse", "--", *raw()], "--transport and --insecure: only for a remote server"),
    ],
)
def test_remote_usage_errors_exit_64(words, message):
    result = cli("tools", *words)
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert SECRET not in result.stderr


def test_a_malformed_header_is_not_echoed():
    result = cli("tools", "--url", "http://127.0.0.1:9/mcp", "-H", f"Bearer {SECRET}")
    assert result.returncode == 64 and SECRET not in result.stderr


def test_the_bearer_token_env_variable_is_ignored_for_stdio_servers():
    result = cli("tools", "--", *raw(), env={"MCP_INSPECTOR_BEARER_TOKEN": SECRET})
    assert result.returncode == 0, result.stderr


def test_help_documents_the_remote_options():
    result = cli("--help")
    for option in (
        "--url URL",
        "--transport",
        "-H 'NAME: VALUE'",
        "--bearer-token",
        "MCP_INSPECTOR_BEARER_TOKEN",
        "--insecure",
        "--era",
        "--elicitation",
        "--sampling",
        "--root PATH",
    ):
        assert option in result.stdout, option


def test_answer_policies_need_a_command():
    """The TUI asks the user itself: headless policies given to it would be silently unused."""
    result = cli("--elicitation", "defaults", "--url", "http://127.0.0.1:9/mcp")
    assert result.returncode == 64 and "answer for headless commands" in result.stderr


def test_a_bad_token_in_the_environment_is_named_and_an_empty_one_ignored():
    bad = cli("tools", "--url", "http://127.0.0.1:9/mcp", env={"MCP_INSPECTOR_BEARER_TOKEN": "a\nb"})
    assert (
        bad.returncode == 64
        and "$MCP_INSPECTOR_BEARER_TOKEN: the token is empty or contains a line break" in bad.stderr
    )
    empty = cli("tools", "--url", "http://127.0.0.1:9/mcp", "--timeout", "5", env={"MCP_INSPECTOR_BEARER_TOKEN": ""})
    assert empty.returncode == 3, empty.stderr  # connection refused: the empty variable was not an error


def test_a_variable_with_a_line_break_is_refused(monkeypatch):
    monkeypatch.setenv("MULTILINE_FOR_TEST", "a\r\nX-Injected: yes")
    with pytest.raises(ConfigError, match="line break"):
        parse_header("X-Key: ${MULTILINE_FOR_TEST}")
    with pytest.raises(ConfigError, match="line break"):
        parse_entry("s", {"url": "https://e.example/mcp", "headers": {"X-Key": "${MULTILINE_FOR_TEST}"}})


@pytest.mark.parametrize("value", ["héllo", "世界", "a\x01b"])
def test_header_values_must_be_printable_ascii(value):
    with pytest.raises(ConfigError, match="printable ASCII"):
        parse_header(f"X-Name: {value}")
    with pytest.raises(ConfigError, match="printable ASCII"):
        parse_entry("s", {"url": "https://e.example/mcp", "headers": {"X-Name": value}})
    result = cli("tools", "--url", "http://127.0.0.1:9/mcp", "-H", f"X-Name: {value}")
    assert_no_traceback(result)
    assert result.returncode == 64 and "printable ASCII" in result.stderr
