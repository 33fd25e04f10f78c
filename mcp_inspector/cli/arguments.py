"""Tool and prompt arguments from the command line.

The rule, kept simple on purpose: in ``key=value`` a value that parses as
strict JSON is that JSON value (``n=3`` -> 3, ``flag=true`` -> true,
``tags=["a"]`` -> a list), anything else is the string as typed (``s=hello``,
and ``x=NaN``: bare ``NaN``/``Infinity`` are not JSON, so they are strings too).
JSON that cannot be sent faithfully (nested deeper than the parser allows, a
number out of range) is a usage error naming the key rather than a surprise.
``key=@path`` reads the file and applies the same rule to its content. Pairs
override ``--args``, which must be a strict JSON object. Prompt arguments are
always strings, so ``get`` skips the JSON step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.base.files import FileReadError, read_bounded
from ..core.base.json_text import JsonTextError, loads_strict
from .exit_codes import UsageError

# An argument file bigger than this is refused (``k=@/dev/zero`` would otherwise eat the memory).
MAX_ARGUMENT_FILE = 64 * 1024 * 1024


def require_utf8(text: str, what: str) -> str:
    """A command-line word that is not UTF-8 reaches Python as lone surrogates, which would go
    out as ``"\\udcff"`` escapes (not text any server can use): a usage error instead."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(
            f"{what} is not valid UTF-8 (byte 0x{ord(text[exc.start]) & 0xFF:02x} at offset {exc.start})"
        ) from None
    return text


def _is_not_json(reason: str) -> bool:
    """Whether loads_strict's reason means "this is not JSON" (so the text is a string),
    as opposed to JSON we refuse to send (too deep, a number out of range)."""
    return reason.startswith("not JSON") or reason.endswith("is not a JSON value")


def parse_value(text: str, key: str | None = None) -> Any:
    """Strict JSON when it parses, otherwise the string itself (see the module doc)."""
    try:
        return loads_strict(text)
    except JsonTextError as exc:
        if _is_not_json(str(exc)):
            return text
        raise UsageError(f"argument {key!r}: {exc}" if key is not None else str(exc)) from None


def read_file_argument(path: str, what: str) -> str:
    try:
        data = read_bounded(Path(path).expanduser(), MAX_ARGUMENT_FILE)
    except FileReadError as exc:
        raise UsageError(
            exc.words(
                missing=f"{what}: file not found: {path}",
                too_large=f"{what}: {path} is larger than {MAX_ARGUMENT_FILE // (1024 * 1024)} MiB",
                unreadable=f"{what}: cannot read {path}: {exc.reason}",
            )
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what}: {path} is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None


def parse_pairs(pairs: list[str], *, json_values: bool = True) -> dict[str, Any]:
    """``key=value`` words into a dict (later keys win)."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"expected key=value, got {pair!r}")
        require_utf8(key, "an argument name")
        require_utf8(value, f"argument {key!r}")
        if value.startswith("@") and len(value) > 1:
            value = read_file_argument(value[1:], f"argument {key!r}")
            if not json_values:
                arguments[key] = value
                continue
            arguments[key] = parse_value(value, key)
        else:
            arguments[key] = parse_value(value, key) if json_values else value
    return arguments


def parse_args_option(text: str | None) -> dict[str, Any]:
    """``--args JSON`` (or ``--args @file.json``): must be a JSON object."""
    if text is None:
        return {}
    source = "--args"
    require_utf8(text, source)
    if text.startswith("@"):
        source = f"--args {text}"
        text = read_file_argument(text[1:], "--args")
    try:
        value = loads_strict(text)
    except JsonTextError as exc:
        raise UsageError(f"{source} is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{source} must be a JSON object, got {type(value).__name__}")
    return value


def tool_arguments(pairs: list[str], args_json: str | None) -> dict[str, Any]:
    """Arguments for ``call``: pairs merged over ``--args``."""
    arguments = parse_args_option(args_json)
    arguments.update(parse_pairs(pairs))
    return arguments


def prompt_arguments(pairs: list[str], args_json: str | None) -> tuple[dict[str, str], list[str]]:
    """Arguments for ``get`` (strings only): (arguments, warnings about converted values)."""
    warnings: list[str] = []
    arguments: dict[str, str] = {}
    for key, value in parse_args_option(args_json).items():
        if not isinstance(value, str):
            warnings.append(f"prompt arguments are strings; {key} was sent as {json.dumps(value)!r}")
            value = json.dumps(value, ensure_ascii=False)
        arguments[key] = value
    arguments.update(parse_pairs(pairs, json_values=False))
    return arguments, warnings
