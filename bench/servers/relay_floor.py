"""The floor of a stdio relay in Python: a process that only copies bytes both ways.

    python bench/servers/relay_floor.py [--splice] -- SERVER_COMMAND [args]

It starts the server (stderr inherited) and runs one thread per direction: blocking
``os.read``/``os.write`` (or ``os.splice`` pipe to pipe with ``--splice``: no copy into Python).
No recording, no parsing, no signals: what any extra Python process in the middle costs
(two more pipe hops, two more thread wake-ups per round trip). ``bench_proxy.py`` measures
the proxy against it. Exits with the server's code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

CHUNK = 1 << 16


def copy(source: int, target: int, close: object | None = None) -> None:
    while True:
        try:
            data = os.read(source, CHUNK)
        except OSError:
            break
        if not data:
            break
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(target, view) :]
        except OSError:
            break
    if close is not None:
        close.close()  # type: ignore[attr-defined]


def splice(source: int, target: int, close: object | None = None) -> None:
    while True:
        try:
            moved = os.splice(source, target, CHUNK)
        except OSError:
            break
        if not moved:
            break
    if close is not None:
        close.close()  # type: ignore[attr-defined]


def main() -> int:
    argv = sys.argv[1:]
    mode = copy
    if argv[:1] == ["--splice"]:
        mode, argv = splice, argv[1:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert process.stdin is not None and process.stdout is not None
    threading.Thread(target=mode, args=(0, process.stdin.fileno(), process.stdin), daemon=True).start()
    out = threading.Thread(target=mode, args=(process.stdout.fileno(), 1), daemon=True)
    out.start()
    code = process.wait()
    out.join(2)
    return code


if __name__ == "__main__":
    sys.exit(main())
