"""``mcp-inspector``: the console-script entry point.

    mcp-inspector [options] COMMAND [args] [-- SERVER_COMMAND [server args]]
    mcp-inspector [options] --config FILE --server NAME COMMAND [args]
    mcp-inspector [options]                      (no command: the TUI)

Deliberately tiny: for a plain ``tools -- CMD`` the server is started before
the parser module is even loaded (see early.py), then dispatch.py does the rest.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line; ``argv`` None (the console script, ``python -m``) means this is the
    program itself, which then ends with ``exit_now`` once everything is shut down and flushed."""
    program = argv is None
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["proxy"]:  # its own options, signals and exit status (commands/proxy.py)
        from .commands.proxy import main as proxy_main

        code = proxy_main(argv[1:], program)
        if program:
            exit_now(code)
        return code
    if argv[:1] == ["attach"]:  # its own options: a running proxy, not a server (commands/attach.py)
        from .commands.attach import main as attach_main

        code = attach_main(argv[1:])
        if program:
            exit_now(code)
        return code
    from . import gc_pause, stopping

    if program:
        gc_pause.pause()  # resumed once the command's imports are done (dispatch.py, runner.py)

    stopping.install()  # SIGTERM/SIGHUP/SIGINT from here on: shut the server down, then exit 128 + signal
    early = None
    try:
        try:
            from .early import early_spawn

            early = early_spawn(argv)
        except stopping.Stopped:
            raise
        except BaseException:  # noqa: BLE001 - the normal route will start (and report on) the server
            early = None
        if early is None:  # (early_spawn did it right after starting the server)
            from ..core import reaping

            reaping.become_subreaper()  # a server's orphaned descendants come to us, to be ended with it
        from .dispatch import run_command_line

        code = run_command_line(argv, early)
    except stopping.Stopped:  # before dispatch could catch it
        code = 130
    finally:
        gc_pause.resume()
        if early is not None and early.process.poll() is None:
            # a stop signal (or anything) ended us before the session could shut it down
            early.discard()
    code = stopping.exit_code(code)
    if program:
        exit_now(code)
    return code


def exit_now(code: int) -> None:
    """End the process without the interpreter's teardown of every module and object (~150 ms
    wall, ~40 ms CPU of a cold ``--url ... tools`` here, after its work was done). Only once all
    is closed: the server shut down, files closed by their owners; threads still running that
    are not daemons are waited for (as the interpreter would), and the streams are flushed."""
    import contextlib
    import os
    import threading

    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    if "logging" in sys.modules:
        sys.modules["logging"].shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed or broken pipe: nothing more to say there
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
