"""A stdio peer for the proxy's tests: it writes odd bytes and tells what it saw, exactly.

    proxy_peer.py [--flood N] [--exit-code N] [--log FILE]

* At start it writes, on stdout: a non-JSON line, a JSON line ending in CRLF, a line of invalid
  UTF-8, and a notification split in two writes (the split lands mid UTF-8 character).
* Every line it reads is answered by one line: a JSON-RPC response echoing the request's id
  with the line's bytes in base64 (``{"result": {"b64": ...}}``), so the host can tell the
  server got each byte; ``--log FILE`` also appends every chunk read to FILE (the server's view).
* ``--flood N``: after start, N notifications as fast as the pipe takes them.
* On stdin EOF: ``eof`` on stderr, exit ``--exit-code`` (default 0).
* SIGTERM: a ``got SIGTERM`` notification on stdout, exit 42. SIGINT: the same with 43.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import signal
import sys
import time


def write(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--flood", type=int, default=0)
    parser.add_argument("--exit-code", type=int, default=0)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()

    def on_signal(signum: int, frame: object) -> None:
        name = signal.Signals(signum).name
        note = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": f"got {name}"}}
        write(json.dumps(note).encode() + b"\n")
        os._exit(42 if signum == signal.SIGTERM else 43)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    write(b"this line is not JSON\n")
    write(b'{"jsonrpc":"2.0","method":"notifications/crlf"}\r\n')
    write(b"\xff\xfe not utf-8\n")
    head = '{"jsonrpc":"2.0","method":"notifications/split","params":{"text":"caf\u00e9"}}\n'.encode()
    cut = head.index(b"\xc3") + 1
    write(head[:cut])
    time.sleep(0.01)  # two reads on the other side, most of the time: the split is in the bytes either way
    write(head[cut:])
    for number in range(args.flood):
        write(b'{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}\n' % number)
    log = open(args.log, "ab") if args.log else None  # noqa: SIM115 - for the process's life
    pending = b""
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            break
        if log is not None:
            log.write(chunk)
            log.flush()
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                msg_id = json.loads(line).get("id")
            except (ValueError, AttributeError):
                msg_id = None
            reply = {"jsonrpc": "2.0", "id": msg_id, "result": {"b64": base64.b64encode(line).decode()}}
            write(json.dumps(reply).encode() + b"\n")
    sys.stderr.write("eof\n")
    sys.stderr.flush()
    return args.exit_code


if __name__ == "__main__":
    sys.exit(main())
