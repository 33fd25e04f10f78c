"""A stdio server process started before the event loop, for a stdio transport to adopt.

The CLI starts the server first thing (cli/early.py), the TUI before it imports Textual
(``factory.offer_started``), so that the server's own start-up overlaps ours. Both hand
the running process over as a :class:`StartedServer`: the ``Popen`` with the pipes of all
three streams, the mark in its environment that finds its descendants (reaping.py), and
whether a transport has claimed it (from then on that transport shuts it down; until
then whoever started it must). Stdlib only and no dataclasses: imported before the
server is started, so everything imported here delays it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence

from . import reaping


class StartedServer:
    """A running server process and what its adopting transport needs to know of it."""

    __slots__ = ("claimed", "process", "tag")

    def __init__(self, process: subprocess.Popen[bytes], tag: str | None) -> None:
        self.process = process
        #: ``reaping.TAG_VAR``'s value in its environment (None: not marked, e.g. started by a test)
        self.tag = tag
        #: set once a transport adopted it: the transport shuts it down from then on
        self.claimed = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def discard(self) -> None:
        """End a process no transport adopted (a command line that turned out to be wrong, a
        stop signal during start-up): SIGKILL to its group, reaped, our pipe ends closed."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def start_server(
    command: Sequence[str],
    env: Mapping[str, str],
    cwd: str | None,
    *,
    inherit_env: bool = True,
    tag: str | None = None,
) -> StartedServer:
    """Start ``command`` the one way every stdio server is started: its own session (process
    group, no controlling terminal), pipes for stdin, stdout and stderr, our environment
    (unless ``inherit_env`` is False) plus ``env`` plus the reaping mark (``tag``, else a new
    one). Raises ``OSError`` as ``subprocess.Popen`` does: each caller words it its way."""
    full_env = dict(os.environ) if inherit_env else {}
    full_env.update(env)
    tag = full_env[reaping.TAG_VAR] = tag or reaping.new_tag()
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=full_env,
        cwd=cwd,
        start_new_session=True,
    )
    return StartedServer(process, tag)
