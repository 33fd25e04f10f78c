"""The recorder process of a stdio proxy (``relay.RecordPipe`` starts it): records from its stdin.

    python -m mcp_inspector.core.proxy.sink CONFIG_JSON

CONFIG_JSON: ``record`` (a path or null), ``name``, ``header`` (the session file's), ``live``
(publish the live view), ``quiet``. It builds the store, the session file's writer, the live
view's publisher and a ``FrameRecorder``, feeds it the records ``relay`` sends, and when its
stdin ends closes them all in order (the last viewers get the session's end). Frames viewers send
into the session go to the proxy on our stdout; what became of them comes back on stdin.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..traffic.entry import Direction, TrafficEntry
from ..traffic.recording import SessionWriter
from ..traffic.store import TrafficStore
from .feed import FeedError, FeedPublisher
from .recorder import HOST, FrameRecorder
from .relay import END, INJECTED, NOTE, RECORD, SOURCES

READ_SIZE = 1 << 20  # bytes per read of the pipe
BATCH_PAUSE = 0.005  # seconds to let records gather once one came (see _records)
BUSY = 1 << 16  # bytes read in one round: no pause before the next, the proxy is sending a lot


def _say(config: dict[str, Any], text: str) -> None:
    if not config.get("quiet"):
        with contextlib.suppress(OSError):
            os.write(2, f"mcp-inspector proxy: {text}\n".encode())


def _records(fd: int, pause: float = BATCH_PAUSE) -> Iterator[tuple[int, float, bytes]]:
    """(what, timestamp, payload) for each whole record on ``fd``, until its end.

    Once bytes come, it lets more gather for ``pause`` seconds (unless a lot came at once) and
    takes them all in one read: the proxy's tee then finds us asleep, not waiting in ``read``, so
    forwarding a frame wakes nobody but its reader, and we record in batches (a viewer sees a
    frame up to ``pause`` later)."""
    os.set_blocking(fd, False)
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    buffer = bytearray()
    ended = False
    got = 0  # bytes the last round read
    while not ended:
        with contextlib.suppress(InterruptedError):
            poller.poll()  # something to read, or the end
        if pause and got < BUSY:
            time.sleep(pause)
        got = len(buffer)
        while True:  # all there is now
            try:
                data = os.read(fd, READ_SIZE)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                data = b""
            if not data:
                ended = True
                break
            buffer += data
            if len(buffer) >= READ_SIZE:
                break
        got = len(buffer) - got
        start = 0
        while len(buffer) - start >= RECORD.size:
            what, ts, size = RECORD.unpack_from(buffer, start)
            end = start + RECORD.size + size
            if end > len(buffer):
                break
            yield what, ts, bytes(buffer[start + RECORD.size : end])
            start = end
        del buffer[:start]


def published(publisher: FeedPublisher, writer: SessionWriter | None) -> Callable[[TrafficEntry], None]:
    """The live feed's listener: the line the session file's writer (the store's listener before
    it) made for this entry, not a second encoding of it (~17 us a frame)."""

    def publish(entry: TrafficEntry) -> None:
        last = writer.last_line if writer is not None else None
        if last is not None and last[0] is entry:
            publisher.publish_line(last[1])
        else:
            publisher.publish(entry)

    return publish


_stdout_lock = threading.Lock()


def _to_proxy(viewer: int, tag: int, text: str) -> None:
    """A frame a viewer sent: to the proxy, which writes it to the server (``relay.RecordPipe``)."""
    line = (json.dumps([viewer, tag, text]) + "\n").encode("utf-8", "surrogatepass")
    view = memoryview(line)
    with _stdout_lock, contextlib.suppress(OSError):
        while view:
            view = view[os.write(1, view) :]


def run(config: dict[str, Any], fd: int = 0) -> int:
    store = TrafficStore(spill=config.get("record") is not None)
    writer = None
    if config.get("record"):
        try:
            writer = SessionWriter(config["record"], header=config["header"])
        except OSError as exc:
            _say(config, f"cannot write the record file {config['record']}: {exc.strerror or exc}")
        else:
            store.attach_recorder(writer)
    publisher = None
    if config.get("live"):
        try:
            publisher = FeedPublisher(config["name"], config["header"])
        except FeedError as exc:  # the host's session goes on: only the live view is off
            _say(config, f"no live view: {exc}")
            store.note(f"no live view: {exc}")
        else:
            store.add_listener(published(publisher, writer))
            publisher.on_inject = _to_proxy
            if publisher.name != config["name"]:
                _say(config, f"a proxy named {config['name']} is running already: this one is {publisher.name}")
    recorder = FrameRecorder(store)
    if config.get("trace"):  # spans for the forwarded frames (core/telemetry/relay.py)
        from .. import telemetry

        try:
            # --otlp URL, else None: the exporters read OTEL_EXPORTER_OTLP_* (inherited) themselves
            telemetry.configure(config.get("otlp"), "mcp-inspector-proxy", quiet=bool(config.get("quiet")))
        except telemetry.TelemetryUnavailable as exc:
            _say(config, f"no tracing: {exc}")
        recorder.spans = telemetry.relay_spans(None)
    recorder.start()
    try:
        for what, ts, payload in _records(fd):
            if what < len(SOURCES):
                recorder.put(SOURCES[what], payload, ts)
            elif what == END and payload and payload[0] < len(SOURCES):
                recorder.end(SOURCES[payload[0]], ts)
            elif what == NOTE:
                with contextlib.suppress(ValueError, TypeError):
                    note = json.loads(payload)
                    recorder.note(str(note["text"]), ts, **dict(note.get("meta") or {}))
            elif what == INJECTED:
                with contextlib.suppress(ValueError, TypeError, KeyError):
                    record = json.loads(payload)
                    if "answer" in record:
                        if publisher is not None:
                            publisher.answer(int(record["viewer"]), int(record["tag"]), **dict(record["answer"]))
                    else:
                        direction = Direction.OUT if record["dir"] == HOST else Direction.IN
                        recorder.put_frame(direction, record["raw"].encode(), dict(record["meta"]))
    finally:
        recorder.close()
        if recorder.spans is not None:
            from .. import telemetry

            telemetry.shutdown()
        if publisher is not None:
            publisher.close()
        store.close()
        if writer is not None:
            writer.close()
    return 0


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the proxy ends us by closing the pipe, not a signal
    try:
        config = json.loads(sys.argv[1])
    except (IndexError, ValueError):
        sys.exit("usage: python -m mcp_inspector.core.proxy.sink CONFIG_JSON")
    code = run(config)
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
