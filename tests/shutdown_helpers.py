"""Helpers for the "no server left behind" tests (TUI in a pty, CLI under signals).

``stubborn_server.py`` writes its pids (and its grandchild's) to a file; these
helpers read them, poll until every one is gone, and kill whatever a failing test
left behind. A process counts as gone when it no longer exists or is a zombie
(dead, waiting for a parent that may never reap it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import pty
import select
import signal
import struct
import sys
import termios
import threading
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
STUBBORN_SERVER = REPO_ROOT / "tests" / "servers" / "stubborn_server.py"


def stubborn_command(pids: Path, *extra: str) -> list[str]:
    return [sys.executable, str(STUBBORN_SERVER), "--pids", str(pids), *extra]


def read_pids(path: Path, timeout: float = 20.0, listed: bool = False, initialized: bool = False) -> list[int]:
    """The server's pids once it wrote them (and, with ``listed``, once it answered tools/list; with
    ``initialized``, once ``initialize`` reached it: the client is up, not only the server, which a
    client may start before its own imports)."""
    wanted = "listed" if listed else "initialize" if initialized else None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            lines = path.read_text().splitlines()
            if lines and (wanted is None or wanted in lines[1:]):
                return [int(word) for word in lines[0].split()]
        time.sleep(0.02)
    raise AssertionError(
        f"the server did not write {path}" + (f" and {wanted}" if wanted else "") + f" within {timeout} s"
    )


def wait_for_eof(pids: Path, timeout: float = 20.0) -> None:
    """Until the stubborn server saw its stdin closed (the client began to stop it): ``FILE.eof``."""
    mark = Path(f"{pids}.eof")
    deadline = time.monotonic() + timeout
    while not mark.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"the server did not see its stdin closed within {timeout} s")
        time.sleep(0.02)


def is_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as file:
            stat = file.read()
    except FileNotFoundError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    return state not in ("Z", "X")


def survivors(pids: list[int], timeout: float = 10.0) -> list[int]:
    """Poll until every pid is gone; the ones still alive after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        alive = [pid for pid in pids if is_alive(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill(pid, signal.SIGKILL)


class PtyProcess:
    """A program on a real pseudo-terminal: we hold the master side and drain its output."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None, size: tuple[int, int] = (120, 40)) -> None:
        full_env = dict(os.environ)
        full_env.update({"TERM": "xterm-256color", "COLUMNS": str(size[0]), "LINES": str(size[1])})
        full_env.update(env or {})
        pid, fd = pty.fork()
        if pid == 0:  # the child: exec at once
            try:
                os.execvpe(argv[0], argv, full_env)
            finally:
                os._exit(127)
        self.pid = pid
        self.fd: int | None = fd
        self.status: int | None = None
        self.output = bytearray()
        self._lock = threading.Lock()
        self._closing = False
        fcntl_winsize = struct.pack("HHHH", size[1], size[0], 0, 0)
        import fcntl

        fcntl.ioctl(fd, termios.TIOCSWINSZ, fcntl_winsize)
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()

    def _drain(self) -> None:
        fd = self.fd
        while not self._closing:
            # select with a timeout, never a blocking read: a read in progress would keep
            # the master open after close_terminal(), and the child would never see the hangup
            if not select.select([fd], [], [], 0.05)[0]:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError as exc:
                if exc.errno in (errno.EIO, errno.EBADF):
                    return
                raise
            if not data:
                return
            with self._lock:
                self.output += data

    def text(self) -> str:
        with self._lock:
            return self.output.decode("utf-8", "replace")

    def wait_for_output(self, needle: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            if time.monotonic() > deadline or self.poll() is not None:
                raise AssertionError(f"{needle!r} did not appear on the terminal")
            time.sleep(0.02)

    def send(self, data: bytes) -> None:
        assert self.fd is not None
        os.write(self.fd, data)

    def close_terminal(self) -> None:
        """Hang up: close the master side, as a terminal emulator does when its window closes."""
        if self.fd is not None:
            self._closing = True
            self._reader.join()
            fd, self.fd = self.fd, None
            os.close(fd)

    def poll(self) -> int | None:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def wait(self, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.status

    def kill(self) -> None:
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait(5)
        self.close_terminal()
