"""Constraints and formats: a schema node's constraints as short phrases for the form, and the
check of a string against its ``format`` (date, date-time, email, uri, uuid, ipv4/6...)."""

from __future__ import annotations

import datetime as _dt
import ipaddress
import re
from typing import Any

# allOf members' patterns, and-ed by resolve.merge_all_of: "pattern" keeps the first, this key lists
# them all (one regex of lookaheads would be beyond the bounded engine of server_regex.py).
ALL_PATTERNS = "x-inspector-all-patterns"
SAFE_INTEGER = 2**53 - 1  # zod emits +-Number.MAX_SAFE_INTEGER for "any integer": not a real limit


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- constraints and formats ---------------------------------------------------------


def num_text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


def _count(low: Any, high: Any, noun: str, plural: str) -> str | None:
    low = low if is_number(low) and low > 0 else None
    high = high if is_number(high) else None
    if low is None and high is None:
        return None
    if low is not None and high is not None:
        if low == high:
            return f"exactly {num_text(low)} {noun if low == 1 else plural}"
        return f"{num_text(low)}–{num_text(high)} {plural}"
    if low is not None:
        return f"at least {num_text(low)} {noun if low == 1 else plural}"
    return f"at most {num_text(high)} {noun if high == 1 else plural}"


def describe_constraints(schema: Any) -> list[str]:
    """The schema's validation keywords as short human phrases, for hints beside a field.

    E.g. ``["≥ 0", "< 100", "multiple of 5"]``, ``["3–80 characters", "matches ^[a-z]+$",
    "format: email"]``, ``["2–5 items", "unique items"]``. Bounds of ±(2**53-1) (zod's
    "any safe integer") are left out: they are noise, not limits.
    """
    if not isinstance(schema, dict):
        return []
    out: list[str] = []
    minimum, maximum = schema.get("minimum"), schema.get("maximum")
    exclusive_min, exclusive_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if exclusive_min is True and is_number(minimum):  # draft-04 boolean form
        exclusive_min, minimum = minimum, None
    if exclusive_max is True and is_number(maximum):
        exclusive_max, maximum = maximum, None
    for symbol, bound in (("≥", minimum), (">", exclusive_min), ("≤", maximum), ("<", exclusive_max)):
        if is_number(bound) and abs(bound) < SAFE_INTEGER:
            out.append(f"{symbol} {num_text(bound)}")
    if is_number(schema.get("multipleOf")):
        out.append(f"multiple of {num_text(schema['multipleOf'])}")
    length = _count(schema.get("minLength"), schema.get("maxLength"), "character", "characters")
    if length:
        out.append(length)
    patterns = schema.get(ALL_PATTERNS) or [schema.get("pattern")]
    for pattern in patterns:
        if isinstance(pattern, str):
            from .server_regex import unsupported

            reason = unsupported(pattern)
            out.append(f"matches {pattern}" + (f" (not checked: {reason})" if reason else ""))
    if isinstance(schema.get("format"), str):
        out.append(f"format: {schema['format']}")
    items = _count(schema.get("minItems"), schema.get("maxItems"), "item", "items")
    if items:
        out.append(items)
    if schema.get("uniqueItems") is True:
        out.append("unique items")
    entries = _count(schema.get("minProperties"), schema.get("maxProperties"), "entry", "entries")
    if entries:
        out.append(entries)
    return out


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})?$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)*$")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_TIME = re.compile(r"^(\d{2}:\d{2}:\d{2}(?:\.\d+)?)([Zz]|[+-]\d{2}:\d{2})$")


def check_format(fmt: Any, value: Any) -> str | None:
    """A short message when ``value`` does not look like ``fmt``, else None (checked as the user types).

    Knows date, date-time, time, email, uri, uuid, ipv4 and ipv6; any other format, a
    non-string value or an empty string gives None (types and required-ness are checked
    elsewhere).
    """
    if not isinstance(value, str) or not value or not isinstance(fmt, str):
        return None
    if fmt == "date":
        if not _DATE.match(value):
            return "not a date: use YYYY-MM-DD"
        try:
            _dt.date.fromisoformat(value)
        except ValueError:
            return "no such date"
        return None
    if fmt == "date-time":
        match = _DATE_TIME.match(value)
        if not match:
            return "not a date-time: use YYYY-MM-DDThh:mm:ssZ"
        if not match.group(3):
            return "a date-time needs a time zone: Z or ±hh:mm"
        try:
            _dt.datetime.fromisoformat(f"{match.group(1)}T{match.group(2)}{_zone(match.group(3))}")
        except ValueError:
            return "no such date or time"
        return None
    if fmt == "time":
        match = _TIME.match(value)
        if not match:
            return "not a time: use hh:mm:ssZ or hh:mm:ss±hh:mm"
        try:
            _dt.time.fromisoformat(match.group(1))
        except ValueError:
            return "no such time"
        return None
    if fmt == "email":
        return None if _EMAIL.match(value) else "not an email address (name@example.com)"
    if fmt == "uri":
        return None if _URI.match(value) else "not a URI: it needs a scheme such as https: and no spaces"
    if fmt == "uuid":
        return None if _UUID.match(value) else "not a UUID (8-4-4-4-12 hex digits)"
    if fmt in ("ipv4", "ipv6"):
        try:
            address = ipaddress.ip_address(value)
        except ValueError:
            return f"not an {'IPv4' if fmt == 'ipv4' else 'IPv6'} address"
        return None if address.version == int(fmt[-1]) else f"not an {'IPv4' if fmt == 'ipv4' else 'IPv6'} address"
    return None


def _zone(text: str) -> str:
    return "+00:00" if text in ("Z", "z") else text
