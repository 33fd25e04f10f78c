"""The era a stdio server spoke is remembered for its next connection (config/eras.py): a
legacy server then gets ``initialize`` at once, without the ``server/discover`` probe before
it (one round trip less on every cold command). A remembered era that is wrong (the server
changed) costs a refusal, never the command."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import cli, raw

from mcp_inspector.core.config import eras
from mcp_inspector.core.config.servers import ServerSpec


def remembered(state: Path) -> dict[str, str]:
    """What the state dir says: {digest of a server key (eras.file_key): era}."""
    path = state / "mcp-inspector" / "eras.json"
    return json.loads(path.read_text())["eras"] if path.exists() else {}


def digest(key: str) -> str:
    return eras.file_key(key)


def sent_methods(record: Path) -> list[str]:
    methods = []
    for line in record.read_text().splitlines():
        frame = json.loads(line)
        if frame.get("dir") == "out" and isinstance(frame.get("raw"), str):
            methods.append(json.loads(frame["raw"]).get("method"))
    return methods


def test_a_legacy_server_is_not_probed_the_second_time(own_state_dir, tmp_path):
    server = raw()
    key = ServerSpec(name="raw", command=server).key
    first = cli("--record", tmp_path / "first.jsonl", "tools", "--", *server)
    assert first.returncode == 0, first.stderr
    assert sent_methods(tmp_path / "first.jsonl")[0] == "server/discover"
    assert remembered(own_state_dir) == {digest(key): "legacy"}
    # the command line (arguments may hold a secret) is not written, only its digest
    assert str(server[-1]) not in (own_state_dir / "mcp-inspector" / "eras.json").read_text()

    second = cli("--record", tmp_path / "second.jsonl", "info", "--", *server)
    assert second.returncode == 0, second.stderr
    assert "server/discover" not in sent_methods(tmp_path / "second.jsonl")
    assert sent_methods(tmp_path / "second.jsonl")[0] == "initialize"
    assert "legacy at the last connection" in second.stdout


def test_a_server_remembered_as_legacy_that_became_modern_is_connected_and_remembered_anew(
    own_state_dir, sdk_modern_stdio_command
):
    key = ServerSpec(name="modern", command=sdk_modern_stdio_command).key
    (own_state_dir / "mcp-inspector").mkdir()
    (own_state_dir / "mcp-inspector" / "eras.json").write_text(json.dumps({"eras": {digest(key): "legacy"}}))
    done = cli("info", "--", *sdk_modern_stdio_command)
    assert done.returncode == 0, done.stderr
    assert "2026-07-28" in done.stdout
    assert remembered(own_state_dir) == {digest(key): "modern"}


def test_a_server_remembered_as_modern_that_became_legacy_is_probed_and_remembered_anew(own_state_dir):
    server = raw()
    key = ServerSpec(name="raw", command=server).key
    (own_state_dir / "mcp-inspector").mkdir()
    # an entry of an older version, keyed by the command line itself, goes at the next write
    stale = {digest(key): "modern", key: "legacy"}
    (own_state_dir / "mcp-inspector" / "eras.json").write_text(json.dumps({"eras": stale}))
    done = cli("tools", "--", *server)
    assert done.returncode == 0, done.stderr
    assert remembered(own_state_dir) == {digest(key): "legacy"}


def test_a_given_era_neither_uses_nor_changes_what_is_remembered(own_state_dir, sdk_modern_stdio_command):
    done = cli("--era", "modern", "tools", "--", *sdk_modern_stdio_command)
    assert done.returncode == 0, done.stderr
    assert remembered(own_state_dir) == {}


def test_the_audit_commands_neither_use_nor_keep_a_remembered_era(own_state_dir, tmp_path):
    """check, snapshot and diff judge or record the server: the same server gets the same
    handshake whatever an earlier run kept."""
    server = raw()
    key = ServerSpec(name="raw", command=server).key
    done = cli("snapshot", "-o", tmp_path / "first.json", "--", *server)
    assert done.returncode == 0, done.stderr
    assert remembered(own_state_dir) == {}
    (own_state_dir / "mcp-inspector").mkdir()
    (own_state_dir / "mcp-inspector" / "eras.json").write_text(json.dumps({"eras": {digest(key): "legacy"}}))
    done = cli("--record", tmp_path / "snap.jsonl", "snapshot", "-o", tmp_path / "surface.json", "--", *server)
    assert done.returncode == 0, done.stderr
    assert sent_methods(tmp_path / "snap.jsonl")[0] == "server/discover"
