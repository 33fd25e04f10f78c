"""``mcp-inspector watch``: a real server file edited on disk restarts the server; each restart
prints the files, the tool diff and the --call result; a broken file shows its stderr and the
watch goes on; bad arguments are usage errors."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import assert_no_traceback, cli
from watch_helpers import add_tool, break_file, fix_file, save, server_command, set_description, watched_copy

LINE_WAIT = 60  # seconds: an SDK server starts in ~1-2 s on a busy machine


class Watch:
    """``mcp-inspector watch ... -- SERVER`` running, its stdout lines readable as they come."""

    def __init__(self, *args: str, cwd: Path | None = None) -> None:
        env = dict(os.environ)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "mcp_inspector", "watch", *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=cwd,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.errors: list[str] = []
        self.listening = threading.Event()
        threading.Thread(target=self._read, args=(self.process.stdout, self.lines), daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    @staticmethod
    def _read(stream, into) -> None:
        for line in stream:
            into.put(line)
        into.put(None)

    def _read_err(self) -> None:
        for line in self.process.stderr:
            self.errors.append(line)
            if "watching" in line:
                self.listening.set()

    def next_json(self) -> dict:
        line = self.lines.get(timeout=LINE_WAIT)
        assert line is not None, "".join(self.errors)
        return json.loads(line)

    def wait_listening(self) -> None:
        assert self.listening.wait(LINE_WAIT), "".join(self.errors)

    def finish(self) -> int:
        try:
            return self.process.wait(timeout=LINE_WAIT)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


def test_each_edit_restarts_the_server_and_the_diff_names_exactly_the_change(tmp_path):
    script = watched_copy(tmp_path)
    watch = Watch("--json", "--count", "4", "--call", "echo", "text=hi", "--", *server_command(script))
    first = watch.next_json()
    assert first["event"] == "start" and first["ok"] and first["tools"] == ["echo"]
    assert first["call"]["result"]["content"][0]["text"] == "hi"
    watch.wait_listening()

    add_tool(script, "shout", "Shout the text")
    added = watch.next_json()
    assert added["event"] == "restart" and added["ok"], added
    assert added["files"] == [str(script)]
    assert added["diff"] == {
        "added": ["shout"],
        "removed": [],
        "changed": [],
        # classified as diff --json classifies it
        "changes": [{"kind": "compatible", "path": "/tools/shout", "message": "tool shout added"}],
        "counts": {"breaking": 0, "unknown": 0, "compatible": 1, "cosmetic": 0},
    }, added
    assert added["call"]["result"]["content"][0]["text"] == "hi"

    set_description(script, "Echo the text", "Echo the text back")
    changed = watch.next_json()
    assert changed["diff"]["added"] == [] and changed["diff"]["removed"] == []
    assert [(c["name"], c["fields"]) for c in changed["diff"]["changed"]] == [("echo", ["description"])]
    assert changed["diff"]["changed"][0]["after"] == {"description": "Echo the text back"}
    assert changed["diff"]["changes"] == [
        {"kind": "cosmetic", "path": "/tools/echo/description", "message": "description changed"}
    ]

    break_file(script)
    broken = watch.next_json()
    assert not broken["ok"] and "tools" not in broken
    assert any("SyntaxError" in line for line in broken["stderr"]), broken

    fix_file(script)
    fixed = watch.next_json()
    # compared with the last start that worked: the fix changed nothing in the tools
    assert fixed["ok"] and fixed["tools"] == ["echo", "shout"]
    assert fixed["diff"] == {
        "added": [],
        "removed": [],
        "changed": [],
        "changes": [],
        "counts": dict.fromkeys(("breaking", "unknown", "compatible", "cosmetic"), 0),
    }
    assert watch.finish() == 0
    assert watch.lines.get(timeout=5) is None  # nothing after the fourth restart


def test_the_text_block_and_ctrl_c(tmp_path):
    script = watched_copy(tmp_path)
    watch = Watch("--", *server_command(script), cwd=tmp_path)
    head = watch.lines.get(timeout=LINE_WAIT)
    assert "started" in head and "1 tool" in head
    watch.wait_listening()
    assert f"watching 1 path ({script.parent})" in "".join(watch.errors)
    # a new description, and a required argument: breaking, as diff says
    edited = script.read_text().replace('description="Echo the text"', 'description="Repeat the text"', 1)
    save(script, edited.replace("def echo(text: str)", "def echo(text: str, times: int)", 1))  # one save
    block = []
    while not any("+Repeat the text" in line for line in block):
        line = watch.lines.get(timeout=LINE_WAIT)
        assert line is not None, "".join(watch.errors)
        block.append(line)
    text = "".join(block)
    assert "restart after edit of server.py" in text
    assert f"  files: {script}" in text
    assert "  tools: changed echo: description, inputSchema changed" in text
    assert "  classified as mcp-inspector diff does: 1 breaking, 1 cosmetic\n" in text
    assert "    breaking: /tools/echo/inputSchema/properties/times: required argument times added\n" in text
    assert "    cosmetic: /tools/echo/description: description changed\n" in text
    assert "    -Echo the text" in text
    watch.process.send_signal(signal.SIGINT)
    assert watch.finish() == 0
    assert not any(line.startswith("Traceback") for line in watch.errors), watch.errors


@pytest.mark.parametrize(
    "args, words",
    [
        (["watch", "--", "npx", "-y", "some-server"], "--watch PATH"),
        (["watch", "--watch", "no/such/dir", "--", sys.executable, "x.py"], "--watch no/such/dir: no such file"),
        (["watch", "--url", "http://127.0.0.1:9/mcp"], "local stdio server only"),
        (["tools", "--watch", "."], "unknown option --watch"),
        (["watch", "--rerun", "--", sys.executable, "x.py"], "give --call TOOL"),
        (["watch", "text=hi", "--watch", ".", "--", sys.executable, "x.py"], "go with --call TOOL"),
        (["watch", "--count", "0", "--watch", ".", "--", sys.executable, "x.py"], "at least 1"),
        (["watch", "--log-level", "info", "--watch", ".", "--", sys.executable, "x.py"], "not watch"),
        # the terminal UI checks --watch before it opens
        (["--watch", "nope", "--", sys.executable, "x.py"], "--watch nope: no such file or directory"),
        (["--watch", "--", "npx", "server"], "--watch PATH"),
        (
            ["--rerun", "--", sys.executable, "x.py"],
            "--rerun re-runs the last call after a restart: it goes with --watch",
        ),
        (["--watch", "--open", "x.jsonl"], "--open shows a recording"),
    ],
)
def test_bad_arguments_are_usage_errors(tmp_path, args, words):
    result = cli(*args, cwd=tmp_path)
    assert result.returncode == 64, result.stderr
    assert words in result.stderr
    assert_no_traceback(result)


def test_the_config_entrys_watch_paths_are_used(tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"dev": {"command": sys.executable, "args": ["x.py"], "watch": ["not-there"]}}})
    )
    result = cli("watch", "--config", config, "--server", "dev", cwd=tmp_path)
    assert result.returncode == 64
    assert f"--watch {tmp_path / 'not-there'}: no such file or directory" in result.stderr


def test_three_quick_saves_are_one_restart(tmp_path):
    script = watched_copy(tmp_path)
    watch = Watch("--json", "--count", "2", "--", *server_command(script))
    assert watch.next_json()["event"] == "start"
    watch.wait_listening()
    previous = 'description="Echo the text'
    for version in ("one", "two", "three"):  # an editor's save, a formatter, a second save
        script.write_text(script.read_text().replace(previous, f'description="Echo the text {version}', 1))
        previous = f'description="Echo the text {version}'
    restart = watch.next_json()
    assert restart["files"] == [str(script)]
    assert restart["diff"]["changed"][0]["after"] == {"description": "Echo the text three"}
    # had the saves been split, this next block would name server.py again, not notes.py
    (script.parent / "notes.py").write_text("# notes\n")
    second = watch.next_json()
    assert second["files"] == [str(script.parent / "notes.py")] and second["diff"]["changed"] == []
    assert watch.finish() == 0


def test_an_edit_interrupts_a_start_that_hangs(tmp_path):
    script = watched_copy(tmp_path)
    # --timeout 600: without the interruption the next block would wait for the handshake's timeout
    watch = Watch("--json", "--count", "1", "--timeout", "600", "--", *server_command(script))
    assert watch.next_json()["ok"]
    watch.wait_listening()
    original = script.read_text()
    hanging = tmp_path / "hanging"  # outside the watched folder; the hanging server makes it
    script.write_text(f"open({str(hanging)!r}, 'w').close()\nimport time\ntime.sleep(3600)\n" + original)
    deadline = time.monotonic() + LINE_WAIT
    while not hanging.exists():  # the restart is under way, stuck before it answers
        assert time.monotonic() < deadline and watch.process.poll() is None, "".join(watch.errors)
        time.sleep(0.05)
    script.write_text(original)
    block = watch.next_json()
    assert block["event"] == "restart" and block["ok"] and block["tools"] == ["echo"]
    assert block["files"] == [str(script)]
    assert watch.finish() == 0
