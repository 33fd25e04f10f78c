"""A stdio server's descendants that left its process group (``setsid``, a daemon's double fork).

Signals to the server's process group reach everything that stayed in it. A descendant
that called ``setsid`` (or ``setpgid``) is out of that reach, and one whose parent exited
is reparented away from the server's tree. On Linux three things find them anyway:

* the ``ppid`` tree under the server, taken while the server still runs (``escaped``);
* an environment mark (``TAG_VAR``) each server gets, unique to it: descendants inherit it;
* the inspector is a child subreaper (``become_subreaper``), so a descendant orphaned by
  its parent's exit is reparented to us, not to init, and the mark on our own children
  names which server it came from.

What stays out of reach: a descendant that both cleared its environment and was orphaned
before the server was closed, or one reparented to init because the inspector was not a
subreaper (another platform, or a host that refused the prctl). Elsewhere than Linux only
the process group is signalled. Stdlib only: the CLI's early start imports this.
"""

from __future__ import annotations

import contextlib
import itertools
import os

TAG_VAR = "MCP_INSPECTOR_SERVER"
PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"
_tags = itertools.count(1)
_subreaper: bool | None = None

Process = tuple[int, str]  # a pid and its start time (clock ticks after boot): a reused pid differs


def new_tag() -> str:
    """The mark for one server's environment: this process and a counter."""
    return f"{os.getpid()}.{next(_tags)}"


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; once). False elsewhere."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if os.path.isdir(_PROC) and hasattr(os, "getpid"):
            try:
                _subreaper = _prctl()(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError, TypeError):
                _subreaper = False
    return _subreaper


def _prctl():
    """libc's prctl through ``_ctypes`` itself: ``import ctypes`` costs 2-12 ms on every command
    (this CLI's cold start is measured against a minimal client), ``_ctypes`` ~0.6 ms."""
    try:
        import _ctypes

        class _Int(_ctypes._SimpleCData):  # noqa: SLF001 - ctypes.c_int is this class, from ctypes
            _type_ = "i"

        class _Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = _Int

        return _Function(_ctypes.dlsym(_ctypes.dlopen(None, _ctypes.RTLD_LOCAL), "prctl"))
    except (ImportError, AttributeError, OSError, TypeError):  # another build of ctypes: the public API
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl


def _stat(pid: int) -> tuple[int, str] | None:
    """(ppid, start time) of a live process, None when it is gone or a zombie."""
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) < 20 or fields[0] in (b"Z", b"X"):
        return None
    return int(fields[1]), fields[19].decode()


def _has_tag(pid: int, tag: str) -> bool:
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as file:
            environ = file.read()
    except OSError:
        return False
    return f"{TAG_VAR}={tag}".encode() in environ.split(b"\0")


def _own_children() -> set[int] | None:
    """This process's children (of every thread), or None when /proc does not list them."""
    try:
        found: set[int] = set()
        for tid in os.listdir(f"{_PROC}/self/task"):
            with open(f"{_PROC}/self/task/{tid}/children", "rb") as file:
                found.update(int(pid) for pid in file.read().split())
        return found
    except (OSError, ValueError):
        return None


def escaped(server_pid: int, tag: str | None) -> set[Process]:
    """The server's live descendants, wherever their process group, and our own children
    carrying its mark (orphans reparented to us) with theirs. The server itself is not in it."""
    if _stat(server_pid) is None:
        # The server is gone: its descendants were reparented, so the only ones to be found
        # are under our own children that carry its mark. None (a server that exited on EOF
        # and left nothing, the usual end): no walk over every process (~3-8 ms, more on a
        # machine running more processes, after the command's output was printed).
        ours = _own_children()
        if tag is None or (ours is not None and not any(_has_tag(pid, tag) for pid in ours)):
            return set()
    try:
        names = os.listdir(_PROC)
    except OSError:
        return set()
    children: dict[int, list[int]] = {}
    starts: dict[int, str] = {}
    for name in names:
        if not name.isdigit():
            continue
        stat = _stat(int(name))
        if stat is not None:
            children.setdefault(stat[0], []).append(int(name))
            starts[int(name)] = stat[1]
    roots = [server_pid]
    if tag is not None:
        roots += [pid for pid in children.get(os.getpid(), ()) if pid != server_pid and _has_tag(pid, tag)]
    found: set[Process] = set()
    while roots:
        pid = roots.pop()
        if pid != server_pid and pid in starts:
            found.add((pid, starts[pid]))
        roots.extend(children.get(pid, ()))
    return found


def signal_all(processes: set[Process], sig: int) -> None:
    """Signal each process that is still the one seen (same pid, same start time)."""
    for pid, start in processes:
        stat = _stat(pid)
        if stat is not None and stat[1] == start:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)


def reap(processes: set[Process]) -> set[Process]:
    """Collect the exit status of those that are our children (orphans reparented to us), so
    no zombie stays; the ones still alive (or not yet reparented) are returned."""
    left: set[Process] = set()
    for process in processes:
        pid = process[0]
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not ours: gone, or still under another parent
            done = pid if _stat(pid) is None else 0
        if done != pid:
            left.add(process)
    return left
