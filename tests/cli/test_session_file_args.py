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


# -- files we write user data into, and files we read: regular files only (issue 19, items 9 and 10) --


def test_record_and_report_onto_existing_public_files_become_private(tmp_path, record):
    report = tmp_path / "report.json"
    for path in (record, report):
        path.write_text("old\n")
        path.chmod(0o644)
    result = cli("tools", "--record", record, "--report", report, "--", *raw())
    assert result.returncode == 0, result.stderr
    for path in (record, report):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
        assert not path.read_text().startswith("old")


def test_a_new_report_is_private(tmp_path):
    report = tmp_path / "report.json"
    result = cli("tools", "--report", report, "--", *raw())
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(report.stat().st_mode) == 0o600


@pytest.mark.parametrize("option", ["--record", "--report"])
@pytest.mark.parametrize("tui", [False, True], ids=["cli", "tui"])
def test_a_symlink_is_refused_and_its_target_untouched(tmp_path, option, tui):
    if tui and option == "--report":
        pytest.skip("--report goes with a command")
    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    command = [] if tui else ["tools"]
    one_line_usage_error(cli(*command, option, link, "--", *raw()), option, "symbolic link")
    assert target.read_text() == "keep me\n"


def test_the_writer_refuses_a_symlink_made_after_the_check(tmp_path):
    # The up-front check runs before the server starts; the file is opened later: open_private
    # itself refuses (O_NOFOLLOW), so a link swapped in meanwhile never gets its target truncated.
    from mcp_inspector.core.traffic.recording import SessionWriter

    target = tmp_path / "precious.txt"
    target.write_text("keep me\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    with pytest.raises(OSError, match="symbolic link"):
        SessionWriter(link)
    assert target.read_text() == "keep me\n"


@pytest.mark.parametrize(
    "args, words",
    [
        (["tools", "--record", "{fifo}"], ["--record", "FIFO"]),
        (["tools", "--report", "{fifo}"], ["--report", "FIFO"]),
        (["--record", "{fifo}"], ["--record", "FIFO"]),  # the TUI: refused before it starts
        (["--config", "{fifo}", "--server", "x", "tools"], ["{fifo}", "FIFO"]),
        (["call", "echo", "--elicitation", "@{fifo}"], ["{fifo}", "FIFO"]),
        (["call", "echo", "text=@{fifo}"], ["{fifo}", "FIFO"]),
    ],
    ids=["record", "report", "tui-record", "config", "elicitation-file", "argument-file"],
)
def test_a_fifo_is_refused_at_once(tmp_path, args, words):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    server = [] if "--config" in args else ["--", *raw()]
    result = cli(*[a.replace("{fifo}", str(fifo)) for a in args], *server, timeout=20)  # was: blocked for ever
    one_line_usage_error(result, *[w.replace("{fifo}", str(fifo)) for w in words])


def test_a_fifo_made_after_the_check_is_refused_without_blocking(tmp_path):
    from mcp_inspector.core.base.files import FileReadError, NotRegularFile, open_private, read_bounded

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="FIFO"):
        open_private(fifo)
    with pytest.raises(FileReadError) as caught:
        read_bounded(fifo, 100)
    assert "FIFO" in caught.value.reason
