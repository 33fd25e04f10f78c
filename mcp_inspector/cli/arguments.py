"""Tool and prompt arguments from the command line.

The rule, kept simple on purpose: in ``key=value`` a value that parses as JSON
is that JSON value (``n=3`` -> 3, ``flag=true`` -> true, ``tags=["a"]`` -> a
list), anything else is the string as typed (``s=hello``). ``key=@path`` reads
the file and applies the same rule to its content. Pairs override ``--args``.
Prompt arguments are always strings, so ``get`` skips the JSON step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .exit_codes import UsageError


def parse_value(text: str) -> Any:
    """JSON when it parses, otherwise the string itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def read_file_argument(path: str, what: str) -> str:
    try:
        return Path(path).expanduser().read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{what}: file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{what}: cannot read {path}: {getattr(exc, 'strerror', None) or exc}") from None


def parse_pairs(pairs: list[str], *, json_values: bool = True) -> dict[str, Any]:
    """``key=value`` words into a dict (later keys win)."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"expected key=value, got {pair!r}")
        if value.startswith("@") and len(value) > 1:
            value = read_file_argument(value[1:], f"argument {key!r}")
            if not json_values:
                arguments[key] = value
                continue
            arguments[key] = parse_value(value)
        else:
            arguments[key] = parse_value(value) if json_values else value
    return arguments


def parse_args_option(text: str | None) -> dict[str, Any]:
    """``--args JSON`` (or ``--args @file.json``): must be a JSON object."""
    if text is None:
        return {}
    source = "--args"
    if text.startswith("@"):
        source = text[1:]
        text = read_file_argument(text[1:], "--args")
    try:
        value = json.loads(text)
    except ValueError as exc:
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
