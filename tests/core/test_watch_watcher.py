"""The file watcher on real files: a burst of saves is one change, what is not source is ignored,
stop ends it."""

from __future__ import annotations

import anyio
import pytest

from mcp_inspector.core.watch.watcher import FileChanges, FileWatcher, is_source

pytestmark = pytest.mark.anyio


async def next_changes(watcher: FileWatcher, changes) -> FileChanges:
    with anyio.fail_after(30):
        return await changes.__anext__()


async def started(watcher: FileWatcher, root) -> object:
    """An iterator over the watcher's bursts, known to be listening: a probe file is seen first."""
    changes = watcher.changes().__aiter__()
    probe = root / "probe.txt"
    got: list[FileChanges] = []

    async def pull() -> None:
        got.append(await changes.__anext__())

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(pull)
            while not got:  # the Rust watcher starts in a thread: write until it has seen one
                probe.write_text("x")
                with anyio.move_on_after(0.3):
                    while not got:
                        await anyio.sleep(0.02)
    return changes


async def test_three_quick_writes_are_one_change_and_the_next_edit_another(tmp_path):
    server = tmp_path / "server.py"
    server.write_text("v0\n")
    watcher = FileWatcher([str(tmp_path)], quiet=0.4)
    changes = await started(watcher, tmp_path)
    for version in range(1, 4):
        server.write_text(f"v{version}\n")
    first = await next_changes(watcher, changes)
    assert first.paths == (str(server),)
    # had the burst been split, the next report would name server.py again, not the marker
    (tmp_path / "marker.py").write_text("m\n")
    second = await next_changes(watcher, changes)
    assert second.paths == (str(tmp_path / "marker.py"),)
    watcher.stop()
    with anyio.fail_after(30):
        assert [c async for c in changes] == []


async def test_what_is_not_source_is_ignored(tmp_path):
    record = tmp_path / "run.jsonl"
    for folder in (".git", "__pycache__", "node_modules", ".venv"):
        (tmp_path / folder).mkdir()
    watcher = FileWatcher([str(tmp_path)], ignore=[str(record)])
    changes = await started(watcher, tmp_path)
    for name in (
        ".git/index",
        "__pycache__/server.cpython-311.pyc",
        "node_modules/x.js",
        ".venv/lib.py",
        "server.pyc",
        ".server.py.swp",
        "server.py~",
        ".#server.py",
        "4913",
        "run.jsonl",
        "mcp-session-20260101-000000.jsonl",
    ):
        (tmp_path / name).write_text("x")
    (tmp_path / "server.py").write_text("real\n")
    with anyio.fail_after(30):
        seen: set[str] = set()
        while str(tmp_path / "server.py") not in seen:
            seen |= set((await changes.__anext__()).paths)
    assert seen == {str(tmp_path / "server.py")}
    watcher.stop()


def test_the_ignore_rules():
    for path in ("/p/server.py", "/p/lib/util.js", "/p/README.md", "/p/pkg/data.json"):
        assert is_source(path), path
    for path in (
        "/p/.git/HEAD",
        "/p/a/__pycache__/x.pyc",
        "/p/x.pyc",
        "/p/node_modules/m/i.js",
        "/p/.venv/bin/x",
        "/p/.x.py.swp",
        "/p/.x.py.swx",
        "/p/x.py~",
        "/p/.#x.py",
        "/p/4913",
        "/p/#x.py#",
    ):
        assert not is_source(path), path
    assert not is_source("/p/rec.jsonl", ignore=["/p/rec.jsonl"])


def test_describe_names_the_files():
    assert FileChanges(("/a/server.py",)).describe() == "server.py"
    assert FileChanges(("/a/a.py", "/a/b.py", "/a/c.py", "/a/d.py")).describe() == "a.py, b.py and 2 more"


async def test_a_path_that_is_gone_is_an_error(tmp_path):
    watcher = FileWatcher([str(tmp_path / "gone")])
    with pytest.raises(FileNotFoundError):
        await watcher.changes().__anext__()


async def test_a_temporary_file_made_and_removed_in_the_burst_is_not_reported(tmp_path):
    server = tmp_path / "server.py"
    server.write_text("v0\n")
    watcher = FileWatcher([str(tmp_path)], quiet=0.4)
    changes = await started(watcher, tmp_path)
    temporary = tmp_path / "sedAbC123"  # what sed -i does: write a temporary file, rename it over the original
    temporary.write_text("v1\n")
    temporary.replace(server)
    scratch = tmp_path / "scratch.txt"
    scratch.write_text("x")
    scratch.unlink()
    first = await next_changes(watcher, changes)
    assert first.paths == (str(server),)
    watcher.stop()
