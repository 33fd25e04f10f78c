"""Escape then a digit, typed quickly in a terminal, as the two keys they are.

Terminals (and tmux, which holds an escape for ``escape-time``, 500 ms by default, to see whether
a sequence follows) send escape followed closely by ``3`` as the two bytes ``ESC 3``: the same as
alt+3. Textual reads those bytes as the characters WezTerm on macOS makes with option+digit
(``ESC 3`` -> ``£``), so escape escape 3 from the composer left the field but typed ``£`` instead
of switching to the Notifications view; the next ``3`` did. Here ``ESC digit`` is read as alt+digit
(what it is on every other terminal), and the app replays alt+digit as escape then the digit. A
``£`` typed as a character (a UK keyboard's shift+3) is still ``£``.
"""

from __future__ import annotations

from textual import events

from .textual_compat import drop_key_sequences

DIGITS = "1234567890"


def read_escape_digit_as_alt() -> None:
    """Drop Textual's option+digit readings of ``ESC digit`` (once, for the whole process)."""
    drop_key_sequences([f"\x1b{digit}" for digit in DIGITS])


def escape_then_digit(event: events.Event) -> list[events.Key] | None:
    """The keys an alt+digit stands for (escape, then the digit), or None for any other event."""
    if isinstance(event, events.Key) and event.key.startswith("alt+") and event.key[4:] in list(DIGITS):
        digit = event.key[4:]
        return [events.Key("escape", "\x1b"), events.Key(digit, digit)]
    return None
