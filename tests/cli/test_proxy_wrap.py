"""``proxy --wrap/--unwrap --config FILE --server NAME [--write]``: a host's entry rewritten to run
through the proxy and back, the rest of the file byte for byte, a backup kept."""

from __future__ import annotations

import json
import subprocess
import sys

from mcp_inspector.core.config.servers import load_config

CURSOR = (
    "{\r\n"
    '    "mcpServers": {\r\n'
    '        "weather": {\r\n'
    '            "command": "python",\r\n'
    '            "args": [\r\n'
    '                "server.py",\r\n'
    '                "--units",\r\n'
    '                "metric"\r\n'
    "            ],\r\n"
    '            "env": {\r\n'
    '                "API_KEY": "k\u00e9y"\r\n'
    "            }\r\n"
    "        },\r\n"
    '        "remote": {"url": "https://example.com/mcp"}\r\n'
    "    },\r\n"
    '    "other": [1,2,   3]\r\n'
    "}\r\n"
)


def proxy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "proxy", *args], capture_output=True, timeout=30, check=False
    )


def test_wrap_prints_then_writes_only_the_entry_and_unwrap_restores_it(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_bytes(CURSOR.encode())
    printed = proxy("--wrap", "--config", str(config), "--server", "weather", "--record", "/tmp/w.jsonl")
    assert printed.returncode == 0, printed.stderr
    entry = json.loads(printed.stdout)["weather"]
    assert entry["command"] == "mcp-inspector"
    assert entry["args"] == [
        "proxy",
        "--name",
        "weather",
        "--record",
        "/tmp/w.jsonl",
        "--",
        "python",
        "server.py",
        "--units",
        "metric",
    ]
    assert entry["env"] == {"API_KEY": "k\u00e9y"}
    assert config.read_bytes() == CURSOR.encode()  # printing changes nothing

    written = proxy("--wrap", "--config", str(config), "--server", "weather", "--write")
    assert written.returncode == 0, written.stderr
    after = config.read_bytes()
    backup = tmp_path / "mcp.json.bak"
    assert backup.read_bytes() == CURSOR.encode()
    start = CURSOR.index('"weather": ') + len('"weather": ')
    end = CURSOR.index('        "remote"') - len(",\r\n")
    assert after.startswith(CURSOR[:start].encode()) and after.endswith(CURSOR[end:].encode())
    spec = load_config(config)["weather"]  # the F7 screen's reader takes the result
    assert spec.command[:5] == ["mcp-inspector", "proxy", "--name", "weather", "--"]
    assert spec.command[5:] == ["python", "server.py", "--units", "metric"]
    assert load_config(config)["remote"].url == "https://example.com/mcp"

    again = proxy("--wrap", "--config", str(config), "--server", "weather")
    assert again.returncode == 64 and b"already" in again.stderr

    restored = proxy("--unwrap", "--config", str(config), "--server", "weather", "--write")
    assert restored.returncode == 0, restored.stderr
    assert (tmp_path / "mcp.json.bak-2").read_bytes() == after
    assert load_config(config)["weather"].command == ["python", "server.py", "--units", "metric"]
    assert config.read_bytes() == CURSOR.encode()  # laid out as it was: the same bytes again


def test_vscode_servers_and_refusals(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text('{"servers": {"fs": {"type": "stdio", "command": "npx", "args": ["-y", "srv"]}}}')
    printed = proxy("--wrap", "--config", str(config), "--server", "fs", "--write")
    assert printed.returncode == 0, printed.stderr
    text = config.read_text()
    assert text.startswith('{"servers": {"fs": {"type": "stdio", "command": "mcp-inspector"') and "\n" not in text
    url = tmp_path / "url.json"
    url.write_text('{"mcpServers": {"r": {"url": "https://example.com/mcp"}}}')
    refused = proxy("--wrap", "--config", str(url), "--server", "r")
    assert refused.returncode == 64 and b"--listen" in refused.stderr
    missing = proxy("--wrap", "--config", str(config), "--server", "nope")
    assert missing.returncode == 64 and b"no server named 'nope'" in missing.stderr
    assert b"Traceback" not in missing.stderr + refused.stderr
    never = proxy("--unwrap", "--config", str(url), "--server", "r")
    assert never.returncode == 64 and b"nothing to unwrap" in never.stderr
