"""A running ``proxy`` publishes its session (``attach --list`` finds it, ``FeedReader`` reads it);
a socket directory that is not safe turns the live view off, never the host's session."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import PYTHON, SERVERS_DIR
from waiting import until_sync

from mcp_inspector.core.proxy.viewer import Ended, FeedReader, running_proxies

PEER = [PYTHON, str(SERVERS_DIR / "proxy_peer.py")]


def start_proxy(env: dict, *own: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mcp_inspector", "proxy", *own, "--", *PEER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def test_attach_lists_running_proxies_and_reads_one_live(tmp_path):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    run_dir = tmp_path / "mcp-inspector"
    first = start_proxy(env, "--name", "peer")
    second = None
    try:
        until_sync(lambda: len(running_proxies(run_dir)) == 1, what="the first proxy")
        second = start_proxy(env, "--name", "peer")  # the same name: it gets peer-2
        until_sync(lambda: len(running_proxies(run_dir)) == 2, what="two proxies")
        listed = subprocess.run(
            [sys.executable, "-m", "mcp_inspector", "attach", "--list"], capture_output=True, env=env, check=False
        )
        assert listed.returncode == 0
        names = sorted(line.split()[0] for line in listed.stdout.decode().splitlines())
        assert names == ["peer", "peer-2"]
        reader = FeedReader(run_dir / "peer.sock")
        first.stdin.write(b'{"jsonrpc":"2.0","id":7,"method":"ping"}\n')
        first.stdin.close()  # the peer answers, sees EOF and exits: the session ends
        seen = []
        for event in reader.events():
            seen.append(event)
            if isinstance(event, Ended):
                break
        reader.close()
        assert not seen[-1].lost
        methods = [getattr(e, "method", None) for e in seen]
        assert "notifications/split" in methods and "ping" in methods
        assert any(getattr(e, "msg_id", None) == 7 and e.reply_to for e in seen)
        assert first.wait(timeout=30) == 0
    finally:
        for process in (first, second):
            if process is None:
                continue
            process.kill()
            process.wait()


def test_an_unsafe_socket_directory_turns_only_the_live_view_off(tmp_path):
    (tmp_path / "mcp-inspector").mkdir(mode=0o755)
    os.chmod(tmp_path / "mcp-inspector", 0o755)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "proxy", "--", *PEER],
        input=b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
        capture_output=True,
        env=env,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0
    assert b'"id": 1' in result.stdout  # the host's session went on
    assert b"no live view" in result.stderr and b"open to other users" in result.stderr
    assert sorted(os.listdir(tmp_path / "mcp-inspector")) == []


def test_attach_with_no_proxy_running_says_so(tmp_path):
    env = dict(os.environ, XDG_RUNTIME_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "mcp_inspector", "attach"], capture_output=True, env=env, check=False
    )
    assert result.returncode == 64 and b"no proxy is running" in result.stderr
    assert b"Traceback" not in result.stderr
