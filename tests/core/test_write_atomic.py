"""core/base/files.write_atomic: state files replaced all at once, 0600, never through a
symlink, with no temporary file left behind; without importing tempfile (and shutil, bz2,
lzma, random with it), which a cold command's first connection (the era it keeps) paid."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest

from mcp_inspector.core.base.files import write_atomic


@pytest.mark.parametrize("durable", [True, False])
def test_the_file_is_replaced_whole_and_private_and_nothing_else_is_left(tmp_path, durable):
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    write_atomic(path, b"new", prefix=".state-", durable=durable)
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    (tmp_path / "state.json.d").mkdir()
    with pytest.raises(OSError):
        write_atomic(tmp_path / "state.json.d", b"new")  # a directory cannot be replaced by a file
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json", "state.json.d"]


def test_a_symlink_is_replaced_not_written_through(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"keep")
    link = tmp_path / "state.json"
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert target.read_bytes() == b"keep"
    assert not link.is_symlink() and link.read_bytes() == b"new"


def test_tempfile_is_not_imported(tmp_path):
    code = (
        "import sys; from pathlib import Path; from mcp_inspector.core.base.files import write_atomic; "
        f"write_atomic(Path({str(tmp_path / 'x')!r}), b'x', durable=False); "
        "print(sorted(m for m in ('tempfile', 'shutil', 'random') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, env=os.environ)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
