"""--open and --record name files from outside: anything that is not a readable session
file, or a record path whose directory is missing, is exit 64 with one line, never an
internal error or a hang; record files are created 0600."""

from __future__ import annotations

import os
import stat

import pytest
from cli_helpers import assert_no_traceback, cli, raw


def one_line_usage_error(result, *words: str) -> None:
    assert_no_traceback(result)
    assert result.returncode == 64, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], result.stderr


@pytest.mark.parametrize(
    "content, words",
    [
        (b"[" * 5000 + b"]" * 5000 + b"\n", ("nested deeper",)),  # was exit 70: RecursionError
        (b'["mcp-inspector-session"]\n', ("no mcp-inspector-session header",)),
        (b'{"format": "mcp-inspector-session", "server": "\xff"}\n', ("not UTF-8",)),
        (b"", ("is empty",)),
    ],
    ids=["deep", "array", "not-utf8", "empty"],
)
def test_open_a_bad_header(tmp_path, content, words):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    one_line_usage_error(cli("--open", path), *words)


def test_open_what_is_not_a_regular_file(tmp_path):
    one_line_usage_error(cli("--open", "/proc/self/mem"), "cannot read /proc/self/mem")  # was exit 70: EIO
    one_line_usage_error(cli("--open", tmp_path), "is a directory")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line_usage_error(cli("--open", fifo, timeout=20), "not a regular file")  # not "not found", and no wait


def test_record_into_a_missing_directory_is_an_error(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "s.jsonl"
    one_line_usage_error(
        cli("tools", "--record", target, "--", *raw()), f"{tmp_path / 'no' / 'such' / 'dir'}", "does not exist"
    )
    assert not (tmp_path / "no").exists()  # no silent mkdir -p
    one_line_usage_error(cli("--record", target, "--", *raw()), "does not exist")  # the TUI too, before it starts


def test_record_files_are_private(tmp_path, record):
    result = cli("tools", "--record", record, "--", *raw())
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
