"""Parsing JSON that comes from outside: frames, arguments, config and session files.

Every place that parses JSON from a server, a file or a user goes through here, so
that no input can raise anything but :class:`JsonTextError` (a ``ValueError`` whose
text is one line fit for a user): not ``RecursionError`` on deep nesting, not the
interpreter's integer-digit limit, not a bare ``NaN`` slipping through as a float.

Two entry points:

- :func:`loads_strict` for what a user or a file gives us: anything that is not
  plain, portable JSON is an error.
- :func:`parse_frame` for what a server sends: the frame is parsed whenever it can
  be, and whatever a debugging tool should point out (another encoding, a BOM,
  ``NaN``, numbers a JavaScript client would lose, duplicate keys) comes back as
  notes beside the value.
"""

from __future__ import annotations

import codecs
import json
import math
from typing import Any

# Deeper than this is refused. Real MCP messages and schemas stay far below it, and
# it leaves room for the recursive code that walks a parsed value (forms, validation,
# pretty printing) under the interpreter's default recursion limit of 1000.
MAX_DEPTH = 128

# Integers beyond this lose precision in JavaScript (Number.MAX_SAFE_INTEGER).
SAFE_INTEGER = 2**53 - 1

# Python refuses to convert integer literals longer than this (sys.int_info).
_MAX_DIGITS = 4300

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16-LE: it starts the same
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class JsonTextError(ValueError):
    """Input that cannot be taken as JSON; ``str()`` is a one-line reason."""


class _Unusual(Exception):
    """Raised by the fast path's hooks: parse again, with the noting hooks, to say what."""


def _fast_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Unusual
    return result


def _fast_constant(token: str) -> float:
    raise _Unusual


def _fast_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # infinity (NaN never gets here: it is a constant)
        raise _Unusual
    return value


# Built once: almost every frame is plain JSON and pays only for these stateless hooks.
# They are safe to share between threads; the noting parse below is made per use.
_fast_decode = json.JSONDecoder(
    object_pairs_hook=_fast_pairs, parse_constant=_fast_constant, parse_float=_fast_float
).decode


class _Parse:
    """One careful parse: the decoder hooks collect what they notice here."""

    __slots__ = ("notes", "strict", "duplicates")

    def __init__(self, strict: bool) -> None:
        self.notes: list[str] = []
        self.strict = strict
        self.duplicates = 0

    def pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self._duplicate(pairs)
        return result

    def _duplicate(self, pairs: list[tuple[str, Any]]) -> None:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                self.duplicates += 1
                if self.duplicates <= 3:
                    self.notes.append(f"duplicate key {_quote(key)} (the last one wins)")
            seen.add(key)

    def constant(self, token: str) -> float:
        if self.strict:
            raise JsonTextError(f"{token} is not a JSON value")
        self.notes.append(f"{token} is not JSON (a bare token some encoders write)")
        return float(token)

    def floating(self, text: str) -> float:
        value = float(text)
        if math.isinf(value):
            if self.strict:
                raise JsonTextError(f"number out of range: {_cut(text, 40)}")
            self.notes.append(f"number out of range: {_cut(text, 40)} (read as infinity)")
        return value

    def integer(self, text: str) -> int:
        digits = len(text) - (text[0] == "-")
        if digits > _MAX_DIGITS:
            raise JsonTextError(f"number too long: an integer of {digits} digits")
        return int(text)


def parse_frame(raw: bytes) -> tuple[Any, list[str]]:
    """Parse one frame from a server. Returns the value and notes on what is off.

    Raises :class:`JsonTextError` when the frame cannot be parsed at all.
    """
    notes: list[str] = []
    text = _decode_frame(raw, notes)
    try:
        value = _fast_decode(text)
    except RecursionError:
        raise JsonTextError(f"nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise JsonTextError(f"not JSON: {_cut(str(exc), 120)}") from None
    except (_Unusual, ValueError):  # a duplicate key, NaN, infinity, an integer too long to convert
        pass
    else:
        _check_depth(text, value)
        return value, notes
    state = _Parse(strict=False)
    value = _decode(text, state)
    notes.extend(state.notes)
    if state.duplicates > 3:
        notes.append(f"{state.duplicates} duplicate keys in all")
    return value, notes


def loads_strict(text: str | bytes) -> Any:
    """Parse JSON given by a user or read from a file; anything unusual is an error.

    Accepts UTF-8 (with or without a byte order mark). Raises :class:`JsonTextError`.
    """
    if isinstance(text, (bytes, bytearray)):
        data = bytes(text)
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8) :]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise JsonTextError(f"not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    elif text.startswith("\ufeff"):
        text = text[1:]
    try:  # the shared fast decoder first; anything unusual is parsed again carefully, for the reason
        value = _fast_decode(text)
    except (_Unusual, RecursionError, ValueError):
        return _decode(text, _Parse(strict=True))
    _check_depth(text, value)
    return value


def dumps_strict(value: Any, **options: Any) -> str:
    """JSON text that :func:`loads_strict` reads back, for everything we write to a file.

    A value parsed leniently from a server (``parse_frame``) may hold a non-finite number
    (``1e400`` is infinity, a bare ``NaN``); ``json.dumps`` would write ``Infinity`` or
    ``NaN``, which no strict reader takes. Such a number is written as ``null``, as
    ``JSON.stringify`` does (the frame's raw bytes keep it as it came). ``options`` go
    to ``json.dumps``.
    """
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError:  # a non-finite float somewhere (circular values do not come from JSON)
        return json.dumps(_finite(value), allow_nan=False, **options)


def _finite(value: Any) -> Any:
    if type(value) is float:
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether a parsed value nests deeper than ``limit`` (iterative: safe on any depth)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def _decode(text: str, state: _Parse) -> Any:
    decoder = json.JSONDecoder(
        object_pairs_hook=state.pairs,
        parse_constant=state.constant,
        parse_float=state.floating,
        parse_int=state.integer,
    )
    try:
        value = decoder.decode(text)
    except RecursionError:
        raise JsonTextError(f"nested deeper than {MAX_DEPTH} levels") from None
    except JsonTextError:
        raise
    except ValueError as exc:  # JSONDecodeError, and the digit limit for integers in exponents
        raise JsonTextError(f"not JSON: {_cut(str(exc), 120)}") from None
    _check_depth(text, value)
    return value


def _check_depth(text: str, value: Any) -> None:
    # Counting brackets is cheap; only a value that could be deep is walked.
    if (text.count("[") + text.count("{") > MAX_DEPTH) and too_deep(value):
        raise JsonTextError(f"nested deeper than {MAX_DEPTH} levels")


def _decode_frame(raw: bytes, notes: list[str]) -> str:
    """Bytes to text. UTF-8 is the only encoding MCP allows; others are read but noted."""
    if raw[:1] == b"{" and raw[1:2] != b"\x00":
        encoding, skip = "utf-8", 0  # the usual case, decided without looking further
    else:
        encoding, skip = _sniff(raw, notes)
    data = raw[skip:] if skip else raw
    try:
        return data.decode(encoding, "surrogatepass" if encoding == "utf-8" else "strict")
    except UnicodeDecodeError:
        notes.append(f"invalid {'UTF-8' if encoding == 'utf-8' else encoding.upper()} (bytes replaced with U+FFFD)")
        return data.decode(encoding, "replace")


def _sniff(raw: bytes, notes: list[str]) -> tuple[str, int]:
    """The encoding of a frame that does not start with ``{``, and how many BOM bytes to skip."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            notes.append(f"encoded as {encoding.upper()} with a byte order mark (MCP requires UTF-8 without one)")
            return encoding, len(bom)
    head = raw[:4]
    if len(head) < 4 or b"\x00" not in head:
        return "utf-8", 0
    # RFC 4627's pattern of zero bytes among the first four (JSON text starts with ASCII).
    if head[0] == 0 and head[1] == 0:
        encoding = "utf-32-be"
    elif head[0] == 0:
        encoding = "utf-16-be"
    elif head[1] == 0 and head[2] == 0 and head[3] == 0:
        encoding = "utf-32-le"
    elif head[1] == 0:
        encoding = "utf-16-le"
    else:
        return "utf-8", 0
    notes.append(f"encoded as {encoding.upper()} (MCP requires UTF-8)")
    return encoding, 0


def _quote(key: str) -> str:
    return json.dumps(_cut(key, 40), ensure_ascii=False)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def same_json(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1 and key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b
