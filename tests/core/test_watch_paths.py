"""Which directory --watch watches when no PATH is given: inferred from the server's command."""

from __future__ import annotations

import os
import sys

import pytest

from mcp_inspector.core.config.servers import ServerSpec
from mcp_inspector.core.watch.paths import WatchError, infer_watch_paths, resolve_watch_paths


@pytest.fixture
def project(tmp_path):
    (tmp_path / "srv").mkdir()
    (tmp_path / "srv" / "server.py").write_text("print()\n")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "index.js").write_text("\n")
    (tmp_path / "web" / "main.ts").write_text("\n")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "sub" / "mod.py").write_text("")
    (tmp_path / "src" / "lib").mkdir(parents=True)
    (tmp_path / "src" / "lib" / "__init__.py").write_text("")
    (tmp_path / "single.py").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    "command, expected",
    [
        (["python", "srv/server.py"], "srv"),
        (["python3", "-u", "srv/server.py", "--port", "3"], "srv"),
        (["python3.11", "-X", "dev", "-W", "error", "srv/server.py"], "srv"),
        (["/usr/bin/python3", "-B", "--", "srv/server.py"], "srv"),
        (["uv", "run", "srv/server.py"], "srv"),
        (["uv", "run", "--with", "mcp", "python", "srv/server.py"], "srv"),
        (["uv", "run", "--directory", "srv", "server.py"], "srv"),
        (["uv", "run", "fastmcp", "run", "srv/server.py:app"], "srv"),
        (["node", "web/index.js"], "web"),
        (["node", "--inspect", "-r", "dotenv/config", "web/index.js"], "web"),
        (["deno", "run", "-A", "web/main.ts"], "web"),
        (["bun", "web/main.ts"], "web"),
        (["bun", "run", "web/main.ts"], "web"),
        (["tsx", "web/main.ts"], "web"),
        (["python", "-m", "pkg.sub.mod"], "pkg"),
        (["python", "-mpkg"], "pkg"),
        (["uv", "run", "-m", "pkg.sub.mod"], "pkg"),
        (["python3", "-m", "lib"], "src/lib"),
        (["python3", "-m", "single"], "."),
    ],
)
def test_the_script_or_package_directory_is_inferred(project, command, expected):
    assert infer_watch_paths(command, str(project)) == [os.path.normpath(str(project / expected))]


def test_a_relative_script_is_the_servers_own_cwd(project):
    spec = ServerSpec("s", ["python", "server.py"], cwd=str(project / "srv"))
    assert resolve_watch_paths([""], spec, base="/") == [str(project / "srv")]


@pytest.mark.parametrize(
    "command, words",
    [
        (["npx", "-y", "@modelcontextprotocol/server-everything"], "npx"),
        (["/usr/local/bin/my-server", "--stdio"], "my-server"),
        (["python", "-c", "print(1)"], "-c"),
        (["python"], "no script"),
        (["node", "-e", "1"], "inline"),
        (["uv", "tool", "run", "x"], "installed tool"),
        (["deno", "x.ts"], "deno"),
    ],
)
def test_commands_that_name_no_script_ask_for_a_path(project, command, words):
    with pytest.raises(WatchError) as caught:
        infer_watch_paths(command, str(project))
    message = str(caught.value)
    assert "--watch PATH" in message and words in message


def test_a_missing_script_or_module_is_a_clear_error(project):
    with pytest.raises(WatchError, match="cannot find the server's script nothere.py"):
        infer_watch_paths(["python", "nothere.py"], str(project))
    with pytest.raises(WatchError, match="cannot find the module nomod.x"):
        infer_watch_paths(["python", "-m", "nomod.x"], str(project))


def test_the_demo_on_our_own_interpreter_finds_its_package(tmp_path):
    import mcp_inspector

    paths = infer_watch_paths([sys.executable, "-m", "mcp_inspector.demo"], str(tmp_path))
    assert paths == [os.path.dirname(os.path.abspath(mcp_inspector.__file__))]


def test_given_paths_exist_and_are_made_absolute(project):
    spec = ServerSpec("s", ["npx", "x"])
    assert resolve_watch_paths(["srv", "web/index.js", "srv"], spec, base=str(project)) == [
        str(project / "srv"),
        str(project / "web" / "index.js"),
    ]
    with pytest.raises(WatchError, match="--watch nope: no such file or directory"):
        resolve_watch_paths(["nope"], spec, base=str(project))


def test_a_remote_server_is_not_watched():
    spec = ServerSpec("r", url="http://127.0.0.1:1/mcp", transport="http")
    with pytest.raises(WatchError, match="local stdio server only"):
        resolve_watch_paths([""], spec)


def test_a_config_entry_may_name_its_watch_paths(tmp_path):
    from mcp_inspector.core.config.servers import ConfigError, parse_entry

    source = str(tmp_path / "mcp.json")
    spec = parse_entry("s", {"command": "python", "args": ["srv/server.py"], "watch": ["srv", "~/lib"]}, source)
    assert spec.watch == [str(tmp_path / "srv"), os.path.expanduser("~/lib")]
    assert parse_entry("s", {"command": "python", "watch": True}, source).watch == [""]
    assert parse_entry("s", {"command": "python", "watch": False}, source).watch == []
    with pytest.raises(ConfigError, match='"watch" must be true or an array of paths'):
        parse_entry("s", {"command": "python", "watch": "srv"}, source)
    with pytest.raises(ConfigError, match='"watch" restarts a local stdio server'):
        parse_entry("s", {"url": "http://127.0.0.1:1/mcp", "watch": True}, source)
