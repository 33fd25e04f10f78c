"""Bad command-line and config input: always a usage error (64) naming what is wrong, never
"internal error" (70), never a traceback. Each row runs the real CLI as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, cli, raw

DEEP = "[" * 2000 + "]" * 2000  # far past the parser's depth limit (and the interpreter's recursion limit)


def config_with(entry: dict | None = None, **fields) -> str:
    """A config document with one server "a" (a command that is never started: errors come first)."""
    return json.dumps({"mcpServers": {"a": entry if entry is not None else {"command": "never-started", **fields}}})


# (id, files to write {name: text or bytes}, CLI words ({tmp} is the folder), expected message part)
CASES = [
    # tool arguments
    ("pair-deep-json", {}, ["call", "echo", f"x={DEEP}"], "argument 'x': nested deeper than 128 levels"),
    ("pair-number-out-of-range", {}, ["call", "echo", "x=1e999"], "argument 'x': number out of range"),
    (
        "pair-file-deep-json",
        {"deep.json": '{"a":' + DEEP + "}"},
        ["call", "echo", "x=@{tmp}/deep.json"],
        "argument 'x': nested deeper than 128 levels",
    ),
    (
        "pair-file-missing",
        {},
        ["call", "echo", "k=@{tmp}/missing-file"],
        "argument 'k': file not found: {tmp}/missing-file",
    ),
    ("pair-file-directory", {}, ["call", "echo", "k=@{tmp}"], "argument 'k': cannot read {tmp}: Is a directory"),
    (
        "pair-file-not-utf8",
        {"latin1.txt": "caf\xe9".encode("latin-1")},
        ["call", "echo", "k=@{tmp}/latin1.txt"],
        "argument 'k': {tmp}/latin1.txt is not UTF-8 (byte 0xe9 at offset 3)",
    ),
    # words that are not UTF-8 (os.fsdecode gives lone surrogates, which would go out as "\udcff" escapes)
    ("tool-name-not-utf8", {}, ["call", "caf\udce9"], "TOOL is not valid UTF-8 (byte 0xe9 at offset 3)"),
    ("uri-not-utf8", {}, ["read", "demo://\udcff"], "URI is not valid UTF-8 (byte 0xff at offset 7)"),
    (
        "pair-value-not-utf8",
        {},
        ["call", "echo", "message=ab\udcff"],
        "argument 'message' is not valid UTF-8 (byte 0xff at offset 2)",
    ),
    ("prompt-pair-not-utf8", {}, ["get", "p", "a=\udcff"], "argument 'a' is not valid UTF-8"),
    (
        "args-not-utf8",
        {},
        ["call", "echo", "--args", '{"message":"\udcff"}'],
        "--args is not valid UTF-8 (byte 0xff at offset 12)",
    ),
    ("pair-without-equals", {}, ["call", "echo", "novalue"], "expected key=value, got 'novalue'"),
    (
        "args-deep-json",
        {},
        ["call", "echo", "--args", '{"a":' + DEEP + "}"],
        "--args is not valid JSON: nested deeper than 128 levels",
    ),
    ("args-nan", {}, ["call", "echo", "--args", '{"a":NaN}'], "--args is not valid JSON: NaN is not a JSON value"),
    (
        "args-infinity",
        {},
        ["call", "echo", "--args", '{"a":-Infinity}'],
        "--args is not valid JSON: -Infinity is not a JSON value",
    ),
    (
        "args-out-of-range",
        {},
        ["call", "echo", "--args", '{"a":1e400}'],
        "--args is not valid JSON: number out of range",
    ),
    (
        "args-file-deep",
        {"deep.json": DEEP},
        ["call", "echo", "--args", "@{tmp}/deep.json"],
        "--args @{tmp}/deep.json is not valid JSON: nested deeper than 128 levels",
    ),
    ("prompt-args-nan", {}, ["get", "p", "--args", '{"a":NaN}'], "--args is not valid JSON: NaN is not a JSON value"),
    # config files
    (
        "config-deep-json",
        {"c.json": '{"mcpServers":{"a":{"command":"x","args":' + DEEP + "}}}"},
        ["--config", "{tmp}/c.json", "tools"],
        "{tmp}/c.json is not valid JSON: nested deeper than 128 levels",
    ),
    (
        "config-not-utf8",
        {"c.json": '{"mcpServers":{"a":{"command":"caf\xe9"}}}'.encode("latin-1")},
        ["--config", "{tmp}/c.json", "tools"],
        "{tmp}/c.json is not valid JSON: not UTF-8 (byte 0xe9 at offset 34)",
    ),
    (
        "config-nan",
        {"c.json": '{"mcpServers":{"a":{"command":"x","args":[NaN]}}}'},
        ["--config", "{tmp}/c.json", "tools"],
        "NaN is not a JSON value",
    ),
    ("config-empty", {"c.json": ""}, ["--config", "{tmp}/c.json", "tools"], "{tmp}/c.json is empty"),
    (
        "config-a-list",
        {"c.json": "[1, 2]"},
        ["--config", "{tmp}/c.json", "tools"],
        "expected a JSON object at the top level",
    ),
    ("config-directory", {}, ["--config", "{tmp}", "tools"], "cannot read {tmp}: Is a directory"),
    (
        "config-servers-a-list",
        {"c.json": '{"mcpServers": [1]}'},
        ["--config", "{tmp}/c.json", "tools"],
        '"mcpServers" must be an object of name: server entry, got an array',
    ),
    (
        "config-entry-a-number",
        {"c.json": config_with(5)},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': expected an object, got a number",
    ),
    (
        "config-headers-number",
        {"c.json": config_with(headers=5)},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"headers\" must be an object of name: string, got a number",
    ),
    (
        "config-url-headers-number",
        {"c.json": config_with({"url": "https://example.com/mcp", "headers": 5})},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"headers\" must be an object of name: string, got a number",
    ),
    (
        "config-header-value-not-string",
        {"c.json": config_with(headers={"Authorization": ["Bearer", "x"]})},
        ["--config", "{tmp}/c.json", "tools"],
        "\"headers\": the value of 'Authorization' must be a string, got an array",
    ),
    (
        "config-args-object",
        {"c.json": config_with(args=["ok", {"x": 1}])},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"args\"[1] must be a string, got an object",
    ),
    (
        "config-args-null",
        {"c.json": config_with(args=[None])},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"args\"[0] must be a string, got null",
    ),
    (
        "config-args-string",
        {"c.json": config_with(args="--flag")},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"args\" must be an array of strings, got a string",
    ),
    (
        "config-env-number",
        {"c.json": config_with(env={"PORT": 8080})},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"env\": the value of 'PORT' must be a string, got a number",
    ),
    (
        "config-env-a-list",
        {"c.json": config_with(env=["A=1"])},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"env\" must be an object of name: string, got an array",
    ),
    (
        "config-env-nul",
        {"c.json": config_with(env={"A": "x\u0000y"})},
        ["--config", "{tmp}/c.json", "tools"],
        "\"env\": the value of 'A' contains a NUL character",
    ),
    (
        "config-env-bad-name",
        {"c.json": config_with(env={"A=B": "x"})},
        ["--config", "{tmp}/c.json", "tools"],
        "\"env\" has an invalid variable name 'A=B'",
    ),
    (
        "config-cwd-number",
        {"c.json": config_with(cwd=5)},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"cwd\" must be a string, got a number",
    ),
    (
        "config-command-number",
        {"c.json": config_with({"command": 5})},
        ["--config", "{tmp}/c.json", "tools"],
        "server 'a': \"command\" must be a string, got a number",
    ),
    # options
    ("nothing-after-dashes", {}, ["tools", "--"], "nothing after --"),
    ("timeout-negative", {}, ["tools", "--timeout", "-1"], "argument --timeout: must be >= 0"),
    ("timeout-nan", {}, ["tools", "--timeout", "nan"], "argument --timeout: must be >= 0"),
    ("env-without-equals", {}, ["-e", "FOO", "tools"], "-e expects KEY=VALUE: the 1st -e has no '='"),
    ("cwd-missing", {}, ["tools", "--cwd", "{tmp}/nope"], "working directory does not exist: {tmp}/nope"),
    (
        "cwd-a-file",
        {"f.txt": "x"},
        ["tools", "--cwd", "{tmp}/f.txt"],
        "working directory is not a directory: {tmp}/f.txt",
    ),
]


@pytest.mark.parametrize("files, words, message", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_is_a_usage_error(tmp_path, files, words, message):
    for name, content in files.items():
        path = tmp_path / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
    result = cli(*(word.replace("{tmp}", str(tmp_path)) for word in words))
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("mcp-inspector: error: "), result.stderr
    assert message.replace("{tmp}", str(tmp_path)) in result.stderr
    assert result.stdout == ""


@pytest.mark.slow
def test_nan_and_infinity_in_a_pair_are_strings_not_bare_tokens(record):
    """``k=NaN`` is not JSON, so (the docs' rule) it is the string "NaN": the frame sent stays valid JSON."""
    result = cli("call", "echo", "message=NaN", "--json", "--record", record)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["content"][0]["text"] == "NaN"
    for value in ("Infinity", "-Infinity", "[1,NaN]"):
        echoed = cli("call", "echo", f"message={value}", "--json")
        assert echoed.returncode == 0 and json.loads(echoed.stdout)["content"][0]["text"] == value
    sent = [json.loads(line) for line in record.read_text().splitlines()]
    call = next(r for r in sent if r.get("method") == "tools/call")
    assert json.loads(call["raw"])["params"]["arguments"] == {"message": "NaN"}


def test_config_with_a_utf8_bom_is_accepted(tmp_path):
    command = raw("echo-env")
    config = tmp_path / "bom.json"
    config.write_bytes(
        b"\xef\xbb\xbf"
        + json.dumps(
            {"mcpServers": {"a": {"command": command[0], "args": command[1:], "env": {"FROM_FILE": "yes"}}}}
        ).encode()
    )
    result = cli("--config", config, "call", "env", "name=FROM_FILE")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "yes\n"


def test_a_bad_entry_only_matters_when_it_is_chosen(tmp_path):
    command = raw("echo-env")
    config = tmp_path / "c.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "good": {"command": command[0], "args": command[1:], "env": {"A": "1"}},
                    "bad": {"command": "x", "env": {"PORT": 1}},
                }
            }
        )
    )
    good = cli("--config", config, "--server", "good", "call", "env", "name=A")
    assert good.returncode == 0 and good.stdout == "1\n", good.stderr
    bad = cli("--config", config, "--server", "bad", "tools")
    assert bad.returncode == 64 and "\"env\": the value of 'PORT' must be a string" in bad.stderr


def test_timeout_inf_means_no_timeout():
    result = cli("ping", "--timeout", "inf")
    assert result.returncode == 0, result.stderr


def _without_file_permission_override() -> list[str] | None:
    """A prefix that runs a command without root's power to enter any directory (None: cannot)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def test_permission_denied_names_the_directory_that_was_denied(tmp_path):
    prefix = _without_file_permission_override()
    if prefix is None:
        pytest.skip("running as root without setpriv: every directory can be entered")
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0)
    try:
        import subprocess

        result = subprocess.run(
            [*prefix, sys.executable, "-m", "mcp_inspector", "tools", "--cwd", str(closed), "--", *raw()],
            capture_output=True,
            text=True,
            timeout=30,
            cwd=Path(__file__).resolve().parents[2],
        )
    finally:
        closed.chmod(0o755)
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    assert f"permission denied: working directory {closed}" in result.stderr
