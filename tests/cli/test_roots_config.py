"""Roots from a config entry (``"roots"``) and ``--root``: what roots/list is answered with,
headless and in the terminal UI (which takes --root too), and clear errors for bad ones.

The demo's ``ask_the_client kind=roots`` sends roots/list and prints the client's answer."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, cli

from mcp_inspector.cli import dispatch
from mcp_inspector.core.config.servers import ConfigError, parse_entry

DEMO_ENTRY = {"command": sys.executable, "args": ["-m", "mcp_inspector.demo"]}


def answer_of(stdout: str) -> dict:
    return json.loads(stdout.split(":\n", 1)[1])


def write_config(folder: Path, **entry) -> Path:
    config = folder / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"demo": {**DEMO_ENTRY, **entry}}}))
    return config


def test_a_config_entrys_roots_are_the_answer(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "project").mkdir()
    config = write_config(tmp_path, roots=["project", "~/notes", "file:///srv/a%20b"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = cli("--config", config, "call", "ask_the_client", "kind=roots", cwd=elsewhere, env={"HOME": str(home)})
    assert_no_traceback(result)
    assert result.returncode == 0, result.stderr
    # a relative root is the config file's folder's, not the working directory's
    assert answer_of(result.stdout) == {
        "roots": [
            {"uri": (tmp_path / "project").as_uri(), "name": "project"},
            {"uri": (home / "notes").as_uri(), "name": "notes"},
            {"uri": "file:///srv/a%20b", "name": "a b"},
        ]
    }


def test_root_on_the_command_line_replaces_the_entrys(tmp_path):
    config = write_config(tmp_path, roots=[str(tmp_path)])
    other = tmp_path / "other"
    result = cli("--config", config, "call", "ask_the_client", "kind=roots", "--root", other)
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == {"roots": [{"uri": other.as_uri(), "name": "other"}]}


def test_an_entry_without_roots_answers_an_empty_list(tmp_path):
    result = cli("--config", write_config(tmp_path), "call", "ask_the_client", "kind=roots", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert answer_of(result.stdout) == {"roots": []}


@pytest.mark.parametrize(
    "roots, message",
    [
        ("~/x", '"roots" must be an array of paths, got a string'),
        ([3], '"roots"[0] must be a string, got a number'),
        ([""], '"roots"[0]: expected a path'),
        (["https://example.com/x"], "\"roots\"[0]: 'https://example.com/x' is not a path or a file:// URI"),
        (["file://host/share"], "\"roots\"[0]: 'file://host/share' is not a local file:// URI"),
    ],
)
def test_bad_roots_in_an_entry_are_named(tmp_path, roots, message):
    with pytest.raises(ConfigError, match="server 'demo': "):
        parse_entry("demo", {**DEMO_ENTRY, "roots": roots}, str(tmp_path / "c.json"))
    result = cli("--config", write_config(tmp_path, roots=roots), "tools")
    assert_no_traceback(result)
    assert result.returncode == 64 and message in result.stderr, result.stderr


def test_a_url_entry_takes_roots_too(tmp_path):
    spec = parse_entry("remote", {"url": "https://example.com/mcp", "roots": ["a"]}, str(tmp_path / "c.json"))
    assert spec.roots == [str(tmp_path / "a")]


def test_bad_root_on_the_command_line_is_a_usage_error():
    result = cli("call", "ask_the_client", "kind=roots", "--root", "https://example.com")
    assert_no_traceback(result)
    assert result.returncode == 64 and "--root: 'https://example.com' is not a path or a file:// URI" in result.stderr


def test_root_without_a_server_for_the_tui_is_a_usage_error(tmp_path):
    session = tmp_path / "s.jsonl"
    session.write_text("")
    result = cli("--open", session, "--root", tmp_path)
    assert result.returncode == 64 and "--root needs a server" in result.stderr


def test_the_terminal_ui_takes_root_and_the_entrys_roots(tmp_path, monkeypatch):
    """--root is no longer refused by the TUI: the spec it gets carries the roots (absolute)."""
    started = []

    def fake_run_tui(spec, **options):
        started.append(spec)
        return 0

    monkeypatch.setattr("mcp_inspector.tui.app.run_tui", fake_run_tui)
    monkeypatch.chdir(tmp_path)
    assert dispatch.run_command_line(["--root", "here", "--root", str(tmp_path / "b"), "--", sys.executable, "-V"]) == 0
    assert started[-1].roots == [str(tmp_path / "here"), str(tmp_path / "b")]
    config = write_config(tmp_path, roots=["x"])
    assert dispatch.run_command_line(["--config", str(config)]) == 0
    assert started[-1].roots == [str(tmp_path / "x")]
    # --elicitation and --sampling still belong to headless commands
    assert dispatch.run_command_line(["--sampling", "decline", "--", sys.executable, "-V"]) == 64
