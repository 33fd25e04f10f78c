"""--config with Claude-style and VS Code-style files, -e and --cwd (raw server's echo-env mode)."""

from __future__ import annotations

import json
import os

from cli_helpers import cli, raw


def write_config(path, key, entries):
    path.write_text(json.dumps({key: entries}))
    return path


def echo_env_entry(**extra):
    command = raw("echo-env")
    return {"command": command[0], "args": command[1:], **extra}


def test_claude_style_config_with_env_from_file_and_from_e(tmp_path):
    config = write_config(
        tmp_path / "claude.json",
        "mcpServers",
        {
            "echo": echo_env_entry(env={"FROM_FILE": "file-value"}),
            "other": {"command": "false"},
        },
    )
    from_file = cli("--config", config, "--server", "echo", "call", "env", "name=FROM_FILE")
    assert from_file.returncode == 0, from_file.stderr
    assert from_file.stdout == "file-value\n"
    override = cli("call", "env", "name=FROM_FILE", "--config", config, "--server", "echo", "-e", "FROM_FILE=override")
    assert override.stdout == "override\n"
    unset = cli("--config", config, "--server", "echo", "call", "env", "name=NOT_SET_ANYWHERE")
    assert unset.returncode == 1  # isError from the server


def test_vscode_style_config_cwd_option_and_config_cwd(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    config = write_config(tmp_path / "mcp.json", "servers", {"echo": echo_env_entry(type="stdio", cwd=str(work))})
    from_config = cli("--config", config, "call", "cwd")  # a single server needs no --server
    assert from_config.returncode == 0, from_config.stderr
    assert os.path.samefile(from_config.stdout.strip(), work)
    other = tmp_path / "other"
    other.mkdir()
    overridden = cli("--config", config, "--cwd", other, "call", "cwd")
    assert os.path.samefile(overridden.stdout.strip(), other)
    direct = cli("call", "cwd", "--cwd", other, "-e", "A=1", "--", *raw("echo-env"))
    assert os.path.samefile(direct.stdout.strip(), other)


def test_config_errors_are_usage_errors(tmp_path):
    config = write_config(tmp_path / "c.json", "mcpServers", {"a": {"command": "x"}, "b": {"command": "y"}})
    several = cli("--config", config, "tools")
    assert several.returncode == 64 and "choose one with --server (a, b)" in several.stderr
    unknown = cli("--config", config, "--server", "zzz", "tools")
    assert unknown.returncode == 64 and "no server named 'zzz'" in unknown.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert cli("--config", broken, "tools").returncode == 64
    url = write_config(tmp_path / "u.json", "mcpServers", {"remote": {"url": "ftp://example.com/mcp"}})
    remote = cli("--config", url, "tools")
    assert remote.returncode == 64 and "the url must start with http:// or https://" in remote.stderr
    missing_cwd = cli("tools", "--cwd", tmp_path / "nope", "--", *raw())
    assert missing_cwd.returncode == 64 and "working directory does not exist" in missing_cwd.stderr
    bad_env = cli("tools", "-e", "NOEQUALS", "--", *raw())
    assert bad_env.returncode == 64 and "-e expects KEY=VALUE" in bad_env.stderr


def test_discovery_skips_only_the_bad_entry_and_says_why(tmp_path, monkeypatch):
    """The TUI's server list (F7): one wrongly typed entry does not hide the file's other servers."""
    from mcp_inspector.core.config.servers import discover_servers

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    write_config(
        (tmp_path / "xdg" / "mcp-inspector").mkdir(parents=True) or tmp_path / "xdg" / "mcp-inspector" / "servers.json",
        "mcpServers",
        {"good": {"command": "echo"}, "bad": {"command": "x", "env": {"TOKEN": 12345}}},
    )
    found, problems = discover_servers(tmp_path / "home")
    assert [spec.name for _, spec in found] == ["good"]
    assert (
        len(problems) == 1
        and "server 'bad': \"env\": the value of 'TOKEN' must be a string, got a number" in problems[0]
    )
    assert "12345" not in problems[0]
