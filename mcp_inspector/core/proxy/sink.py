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
import signal
import sys
import threading
from typing import Any

from ..traffic.entry import Direction
from ..traffic.recording import SessionWriter
from ..traffic.store import TrafficStore
from .feed import FeedError, FeedPublisher
from .recorder import HOST, FrameRecorder
from .relay import END, INJECTED, NOTE, RECORD, SOURCES


def _say(config: dict[str, Any], text: str) -> None:
    if not config.get("quiet"):
        with contextlib.suppress(OSError):
            os.write(2, f"mcp-inspector proxy: {text}\n".encode())


def _read_exactly(fd: int, size: int) -> bytes | None:
    parts: list[bytes] = []
    while size:
        data = os.read(fd, min(size, 1 << 20))
        if not data:
            return None
        parts.append(data)
        size -= len(data)
    return b"".join(parts)


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
            store.add_listener(publisher)
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
        while True:
            head = _read_exactly(fd, RECORD.size)
            if head is None:
                break
            what, ts, size = RECORD.unpack(head)
            payload = _read_exactly(fd, size)
            if payload is None:
                break
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
