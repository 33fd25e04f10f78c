"""Values from -e and a config's env are secrets: they never reach stderr, a record or an export."""

from __future__ import annotations

import json

from cli_helpers import assert_no_traceback, cli, raw

SECRET = "sk-live-0123456789abcdef"


def test_a_malformed_e_pair_is_not_echoed():
    for word in (SECRET, f"={SECRET}"):  # a value typed without its KEY=, or with an empty KEY
        result = cli("-e", "A=1", "-e", word, "tools")
        assert_no_traceback(result)
        assert result.returncode == 64
        assert SECRET not in result.stderr and "the 2nd -e" in result.stderr


def test_the_session_file_header_has_no_env_values(tmp_path, record):
    command = raw("echo-env")
    config = tmp_path / "c.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "s": {"command": command[0], "args": command[1:], "env": {"FROM_CONFIG": SECRET + "-config"}}
                }
            }
        )
    )
    result = cli("--config", config, "-e", f"FROM_OPTION={SECRET}-option", "--record", record, "tools")
    assert result.returncode == 0, result.stderr
    header = json.loads(record.read_text().splitlines()[0])
    assert header["command"] == command
    assert SECRET not in record.read_text()


def test_config_errors_do_not_show_env_or_header_values(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"mcpServers": {"s": {"command": "x", "env": {"API_KEY": SECRET, "BAD": [SECRET]}}}}))
    result = cli("--config", config, "tools")
    assert result.returncode == 64 and "the value of 'BAD' must be a string" in result.stderr
    assert SECRET not in result.stderr
    config.write_text(
        json.dumps(
            {"mcpServers": {"s": {"url": "https://example.com/mcp", "headers": {"Authorization": {"token": SECRET}}}}}
        )
    )
    result = cli("--config", config, "tools")
    assert result.returncode == 64 and "the value of 'Authorization' must be a string" in result.stderr
    assert SECRET not in result.stderr
