"""The stdio proxy: a host runs us in place of its server; we run the server and stand in between.

Bytes go through unchanged, as they come: one thread per stream reads a chunk, tees it to the
recorder (``ChunkSink.put``: ``relay.RecordPipe``, one non-blocking write into the pipe of the
recorder's own process; before writing it on, so the recording keeps causal order and a chunk
that went on survives a SIGKILL of the proxy) and writes it on whole.
Nothing is parsed, re-encoded or reordered on the way, so a non-JSON line, a CRLF, a split
UTF-8 character or the host's ``_meta`` (``traceparent``...) reaches the other side exactly as
it was sent.

So that the host cannot tell we are there:

* the host's stdin reaching its end closes the server's stdin (nothing else: a server that
  does not exit on EOF keeps running, as it would without us);
* the host no longer reading our stdout (EPIPE) closes our end of the server's stdout,
  so the server sees the same broken pipe;
* the signals a host or a terminal sends to stop a process (``FORWARDED``) are passed to
  the server, which runs in a session of its own (a terminal's ctrl+c reaches it once);
* when the server exits, what it wrote is drained to the host and we exit with its code,
  or die by the same signal (:meth:`StdioProxy.exit_status`).

A viewer may send a frame into the session (``inject``: :meth:`StdioProxy.inject`): it goes to
the server between two of the host's frames, with an id of ours; while one waits for its reply,
the server's output goes to the host in whole lines, and the reply is taken out for the viewer.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .inject import META as INJECTED_META
from .inject import Injections, InjectRefused, InjectSink
from .recorder import HOST, SERVER, STDERR, ChunkSink

READ_CHUNK = 1 << 16
INJECT_WAIT = 5.0  # seconds a viewer's frame waits for the host to finish the frame it is writing
DRAIN_AFTER_EXIT = 2.0  # seconds to wait for the server's stdout/stderr to end once it has exited
FORWARDED = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
    if hasattr(signal, name)
)
STOP_SIGNALS = frozenset(
    sig for sig in FORWARDED if sig not in (getattr(signal, "SIGUSR1", None), getattr(signal, "SIGUSR2", None))
)


class ProxyStartError(Exception):
    """The server command could not be started (one line for the user)."""


@dataclass(slots=True)
class ExitStatus:
    """How the server ended: an exit code, or the signal that killed it."""

    code: int
    signal: int | None = None

    def describe(self) -> str:
        if self.signal is not None:
            with contextlib.suppress(ValueError):
                return f"the server was killed by {signal.Signals(self.signal).name}"
            return f"the server was killed by signal {self.signal}"
        return f"the server exited with code {self.code}"


class StdioProxy:
    """One server process and the three pumps between it and the host's fds."""

    def __init__(
        self,
        command: Sequence[str],
        recorder: ChunkSink,
        *,
        host_in: int = 0,
        host_out: int = 1,
        host_err: int = 2,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        inject_sink: InjectSink | None = None,
    ) -> None:
        self.command = list(command)
        self.recorder = recorder
        self.host_in, self.host_out, self.host_err = host_in, host_out, host_err
        self.env = env
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self._threads: list[threading.Thread] = []
        self._server_in_lock = threading.Lock()
        self.host_gone = False  # the host stopped reading our stdout
        #: Frames viewers send into the session (``inject``): recorded and answered through this.
        self.inject_sink = inject_sink
        self.injections = Injections()
        self._in_cond = threading.Condition()  # held while a chunk goes to the server's stdin
        self._host_mid_frame = False  # the host's last chunk did not end a line: no frame goes in now
        self._server_in_open = True

    def start(self) -> None:
        try:
            self.process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(self.env) if self.env is not None else None,
                cwd=self.cwd,
                start_new_session=True,
                bufsize=0,
            )
        except FileNotFoundError:
            raise ProxyStartError(f"cannot start the server: command not found: {self.command[0]}") from None
        except PermissionError:
            raise ProxyStartError(f"cannot start the server: permission denied: {self.command[0]}") from None
        except OSError as exc:
            raise ProxyStartError(f"cannot start the server: {exc.strerror or exc}") from None
        process = self.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self.recorder.note(f"proxy started the server (pid {process.pid})", pid=process.pid, command=self.command)
        self._spawn("proxy-host-to-server", self._host_to_server, process.stdin.fileno())
        self._spawn("proxy-server-to-host", self._server_to_host, process.stdout.fileno())
        self._spawn("proxy-stderr", self._stderr_to_host, process.stderr.fileno())

    def _spawn(self, name: str, target: Callable[[int], None], fd: int) -> None:
        thread = threading.Thread(target=target, args=(fd,), name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    # -- the pumps ---------------------------------------------------------------
    def _host_to_server(self, server_in: int) -> None:
        put = self.recorder.put
        cond = self._in_cond
        while True:
            data = _read(self.host_in)
            if not data:
                break
            put(HOST, data)
            with cond:  # a viewer's frame goes in between two of the host's, never inside one
                written = _write_all(server_in, data)
                self._host_mid_frame = not data.endswith(b"\n")
                if not self._host_mid_frame:
                    cond.notify_all()
            if not written:
                self.recorder.note("the server stopped reading its stdin: the host's frames from here on are lost")
                # keep reading (and recording) the host until its end, as a dead pipe would have
                while _read(self.host_in):
                    pass
                break
        self.recorder.end(HOST)
        if not self.host_gone:
            self.recorder.note("the host closed its end (stdin EOF): closing the server's stdin", host_eof=True)
        with cond:
            self._server_in_open = False
            cond.notify_all()
        with self._server_in_lock, contextlib.suppress(OSError):
            assert self.process is not None and self.process.stdin is not None
            self.process.stdin.close()

    def _server_to_host(self, server_out: int) -> None:
        put = self.recorder.put
        tail = b""  # while a viewer's request waits: the server's unfinished last line
        while True:
            data = _read(server_out)
            if not data:
                break
            if tail or self.injections.active:  # whole lines only, a reply to a viewer taken out
                data = tail + data
                cut = data.rfind(b"\n") + 1
                data, tail = data[:cut], data[cut:]
                if not self._forward_lines(data):
                    break
                continue
            put(SERVER, data)
            if not self._to_host(data):
                break
        if tail and not self.host_gone:
            put(SERVER, tail)
            self._to_host(tail)
        self.recorder.end(SERVER)
        with contextlib.suppress(OSError):
            assert self.process is not None and self.process.stdout is not None
            self.process.stdout.close()  # the server now gets EPIPE, as it would have from the host
        # the host sees the end of our stdout when the server's ends, not when the recording is done
        with contextlib.suppress(OSError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self.host_out)
            os.close(null)

    def _to_host(self, data: bytes) -> bool:
        if _write_all(self.host_out, data):
            return True
        self.host_gone = True
        self.recorder.note("the host stopped reading (broken pipe): the server's stdout is closed", host_gone=True)
        return False

    def _forward_lines(self, data: bytes) -> bool:
        """Whole lines from the server to the host, but a reply to a viewer's request: that goes to
        the viewer (recorded, marked injected). False if the host stopped reading."""
        start = 0
        if self.injections.marker in data:
            position = 0
            while position < len(data):
                end = data.index(b"\n", position) + 1
                diverted = self.injections.divert(data[position:end])
                if diverted is not None:
                    if start < position:
                        self.recorder.put(SERVER, data[start:position])
                        if not self._to_host(data[start:position]):
                            return False
                    pending, reply = diverted
                    if self.inject_sink is not None:
                        self.inject_sink.frame(SERVER, data[position:end], dict(INJECTED_META))
                        self.inject_sink.answer(pending.viewer, pending.tag, reply=reply)
                    start = end
                position = end
        if start < len(data):
            self.recorder.put(SERVER, data[start:])
            return self._to_host(data[start:])
        return True

    def inject(self, viewer: int, tag: int, text: str) -> None:
        """A frame a viewer sends into the session (``relay.RecordPipe``'s thread calls this): written
        between two of the host's frames, with an id of ours; the reply goes to the viewer alone."""
        sink = self.inject_sink
        if sink is None:
            return
        try:
            line, new_id = self.injections.prepare(viewer, tag, text)
        except InjectRefused as exc:
            sink.answer(viewer, tag, refused=str(exc))
            return
        process = self.process
        with self._in_cond:
            ready = self._in_cond.wait_for(lambda: not self._host_mid_frame or not self._server_in_open, INJECT_WAIT)
            refused = None
            if not self._server_in_open or process is None or process.stdin is None:
                refused = "the server's stdin is closed (the host ended the session)"
            elif not ready:
                refused = f"the host has been in the middle of a frame for {INJECT_WAIT:.0f} s"
            else:
                sink.frame(HOST, line, {**INJECTED_META, "viewer_id": json.loads(text).get("id")})
                if not _write_all(process.stdin.fileno(), line):
                    refused = "the server stopped reading its stdin"
        if refused is not None:
            self.injections.forget(new_id)
            sink.answer(viewer, tag, refused=refused)
        elif new_id is None:
            sink.answer(viewer, tag, sent=True)

    def _stderr_to_host(self, server_err: int) -> None:
        forward = True
        while True:
            data = _read(server_err)
            if not data:
                break
            self.recorder.put(STDERR, data)
            if forward and not _write_all(self.host_err, data):
                forward = False  # the host's stderr is gone: keep recording it
        self.recorder.end(STDERR)

    # -- signals and the end -----------------------------------------------------------
    def pass_signal(self, signum: int) -> None:
        """Give the server a signal we received (the handler calls this). A stop signal goes to
        its process group, as a terminal's would: a wrapper (``sh -c``, ``npx``) and what it
        started stop together; USR1/USR2 go to the server process alone."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if signum in STOP_SIGNALS:
                os.killpg(process.pid, signum)
            else:
                os.kill(process.pid, signum)

    def note_signal(self, signum: int) -> None:
        with contextlib.suppress(ValueError):
            self.recorder.note(f"passed {signal.Signals(signum).name} to the server", signal=signum)

    def wait(self) -> ExitStatus:
        """Wait for the server to exit, then for what it wrote to reach the host; its status."""
        assert self.process is not None
        returncode = self.process.wait()
        for thread in self._threads[1:]:  # stdout and stderr: a grandchild may hold them open
            thread.join(DRAIN_AFTER_EXIT)
        status = ExitStatus(-returncode, -returncode) if returncode < 0 else ExitStatus(returncode)
        self.recorder.note(
            status.describe(), exit_code=status.code if status.signal is None else None, signal=status.signal
        )
        return status

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None


def _read(fd: int) -> bytes:
    """A chunk, or b"" at the end (an error reading counts as the end)."""
    while True:
        try:
            return os.read(fd, READ_CHUNK)
        except InterruptedError:
            continue
        except OSError:
            return b""


def _write_all(fd: int, data: bytes) -> bool:
    """Write every byte (blocking: the reader's pace is the writer's); False if the reader is gone."""
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except InterruptedError:
            continue
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):  # a non-blocking fd we were handed
                _wait_writable(fd)
                continue
            return False
        view = view[written:]
    return True


def _wait_writable(fd: int) -> None:
    import select

    with contextlib.suppress(OSError, ValueError):
        select.select([], [fd], [], 1.0)
