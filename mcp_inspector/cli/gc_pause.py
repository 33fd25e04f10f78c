"""The cyclic garbage collector paused while a command starts up.

A cold command creates hundreds of thousands of objects while it imports (classes, functions,
dataclasses' generated methods), and the collector walks them again and again: ~9% of the CPU
of a cold ``tools`` (issue 19's speed targets; ``bench/bench_cli_tools.py``). Nothing made then
is garbage in a cycle worth collecting, so main.py pauses it for the program's start and the
command resumes it once its imports are done (``resume``: the objects made so far are frozen
out of later full collections too). Reference counting frees everything as usual meanwhile.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop automatic collection until ``resume`` (once; a no-op when the collector is off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Collect automatically again, the start-up's objects left out of later collections."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
