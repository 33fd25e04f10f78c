"""The query child process: runs jq programs over frames sent by ``sandbox``.

Run as a script (``python -E -s child.py``), importing only the standard library and
``jq``, so it starts fast and runs whatever copy of the code started it. Each message
is a 4-byte big-endian length and a payload: a JSON header line, then the frames'
bytes back to back (``sizes`` says where each ends). Each reply is the same length
prefix and a JSON document.

Bounded on its own, whatever the parent does: before each batch the soft CPU limit
(RLIMIT_CPU) is set ``cpu`` seconds past what it has used, so a program that never
ends gets SIGXCPU from the kernel (jq holds the GIL: no Python code could stop it),
also if the parent is gone; its address space is capped (RLIMIT_AS) so ``[range(1e12)]``
ends in a failed allocation instead of eating the machine. Outputs are pulled one at a
time and capped in number and bytes, so ``repeat(1)`` is cut, not looped on.
"""

import contextlib
import json
import sys

MEMORY_LIMIT = 4 << 30  # bytes of address space (the first argument, when given, says otherwise)


def _limit(resource, which, soft):
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(which, (soft, hard))


def _read_exact(stream, size):
    data = stream.read(size)
    return data if data is not None and len(data) == size else None


def _outputs(program, text, max_outputs, max_bytes):
    """[output JSON texts], why they were cut ("count", "bytes" or None), the error (or None).

    Cut by bytes, the last text is a prefix of the output (not JSON)."""
    found = []
    room = max_bytes
    try:
        for value in program.input_text(text):
            if len(found) >= max_outputs:
                return found, "count", None
            dumped = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            if len(dumped) > room:
                found.append(dumped[:room])
                return found, "bytes", None
            found.append(dumped)
            room -= len(dumped)
    except ValueError as exc:
        return found, None, str(exc) or "error"
    return found, None, None


def _match(program, text):
    try:
        for value in program.input_text(text):
            return value if value in (0, 1) else -1
    except ValueError:  # not JSON (an invalid frame)
        return -1
    return -1


def main():
    import resource

    import jq

    _limit(resource, resource.RLIMIT_AS, int(sys.argv[1]) if len(sys.argv) > 1 else MEMORY_LIMIT)
    programs = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = _read_exact(stdin, 4)
        if head is None:
            return
        payload = _read_exact(stdin, int.from_bytes(head, "big"))
        if payload is None:
            return
        split = payload.index(b"\n")
        header = json.loads(payload[:split])
        usage = resource.getrusage(resource.RUSAGE_SELF)
        _limit(resource, resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime + header["cpu"]) + 1)
        text = header["program"]
        program = programs.get(text)
        if program is None:
            if len(programs) > 32:
                programs.clear()
            try:
                program = programs[text] = jq.compile(text)
            except ValueError as exc:
                reply = {"compile_error": str(exc)}
                program = None
        if program is not None:
            position = split + 1
            results = []
            for size in header["sizes"]:
                text = payload[position : position + size].decode("utf-8", errors="replace")
                position += size
                if header["mode"] == "match":
                    results.append(_match(program, text))
                else:
                    results.append(_outputs(program, text, header["max_outputs"], header["max_bytes"]))
            reply = {"results": results}
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", errors="surrogatepass")
        stdout.write(len(data).to_bytes(4, "big") + data)
        stdout.flush()


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
        main()
