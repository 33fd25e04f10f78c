"""The HTTP headers that mirror JSON-RPC body fields (2026-07-28, SEP-2243).

Pure functions, no I/O:

- ``encode_header_value``: a value as it may go in a header, plain when it is
  safe ASCII, else the Base64 sentinel ``=?base64?…?=`` (UTF-8, standard alphabet).
- ``standard_headers``: ``MCP-Protocol-Version``, ``Mcp-Method`` and, for
  ``tools/call``/``prompts/get`` (``params.name``), ``resources/read``
  (``params.uri``) and the tasks extension's ``tasks/get``/``tasks/update``/
  ``tasks/cancel`` (``params.taskId``), ``Mcp-Name``.
- ``invalid_header_reason``: why a tool's ``x-mcp-header`` annotations break
  the spec's constraints (the client must then leave the tool out of
  ``tools/list``), or None.
- ``tool_param_headers``: the ``Mcp-Param-{Name}`` headers of one call.

Source: ``docs/specification/2026-07-28/basic/transports/streamable-http.mdx``
(Request Metadata, Custom Headers from Tool Parameters, Value Encoding),
``server/tools.mdx`` §x-mcp-header, ``seps/2663`` (tasks use ``taskId``).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

SENTINEL_PREFIX = "=?base64?"
SENTINEL_SUFFIX = "?="

#: RFC 9110 ``token`` (``1*tchar``): the characters allowed in a header name.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: A value that can go in a header as it is: visible ASCII and inner spaces only.
_SAFE_VALUE = re.compile(r"[\x20-\x7e]*")

#: Methods whose ``Mcp-Name`` header mirrors a body field, and that field.
NAME_SOURCES = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}

#: JSON Schema types an ``x-mcp-header`` may annotate (``number`` is not allowed).
PRIMITIVE_TYPES = frozenset({"string", "integer", "boolean"})
#: The safe integer range of an IEEE 754 double (JavaScript's Number.MAX_SAFE_INTEGER).
MAX_SAFE_INTEGER = (1 << 53) - 1

#: Schema keywords whose values are subschemas (one, a list, or a name -> schema map).
_SUBSCHEMA_ONE = (
    "additionalProperties",
    "items",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "additionalItems",
    "contentSchema",
)
_SUBSCHEMA_LIST = ("oneOf", "anyOf", "allOf", "prefixItems")
_SUBSCHEMA_MAP = ("$defs", "definitions", "patternProperties", "dependentSchemas", "dependencies")

ANNOTATION = "x-mcp-header"


def needs_encoding(value: str) -> bool:
    """True when ``value`` cannot go in a header as it is."""
    if not _SAFE_VALUE.fullmatch(value):
        return True  # non-ASCII, or a control character (tab, CR, LF, NUL, DEL...)
    if value != value.strip(" \t"):
        return True  # leading or trailing whitespace would be trimmed by HTTP parsers
    return value.startswith(SENTINEL_PREFIX) and value.endswith(SENTINEL_SUFFIX)


def encode_header_value(value: str) -> str:
    """``value`` as a header value: plain if safe, else ``=?base64?<base64 of UTF-8>?=``."""
    if not needs_encoding(value):
        return value
    encoded = base64.b64encode(value.encode("utf-8", errors="surrogatepass")).decode("ascii")
    return f"{SENTINEL_PREFIX}{encoded}{SENTINEL_SUFFIX}"


def decode_header_value(value: str) -> str:
    """The inverse of ``encode_header_value`` (for display and tests)."""
    if (
        value.startswith(SENTINEL_PREFIX)
        and value.endswith(SENTINEL_SUFFIX)
        and len(value) >= len(SENTINEL_PREFIX) + len(SENTINEL_SUFFIX)
    ):
        inner = value[len(SENTINEL_PREFIX) : len(value) - len(SENTINEL_SUFFIX)]
        try:
            return base64.b64decode(inner, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return value
    return value


def standard_headers(message: dict[str, Any], protocol_version: str | None) -> dict[str, str]:
    """The standard request headers for one JSON-RPC message.

    ``MCP-Protocol-Version`` (when a version is given), ``Mcp-Method`` for a
    request or notification, ``Mcp-Name`` for the methods in ``NAME_SOURCES``
    when the field is a string (a message without it is sent without the header;
    the server answers that with its own error)."""
    headers: dict[str, str] = {}
    if protocol_version:
        headers["MCP-Protocol-Version"] = protocol_version
    if not isinstance(message, dict):
        return headers
    method = message.get("method")
    if not isinstance(method, str):
        return headers
    headers["Mcp-Method"] = encode_header_value(method)
    field = NAME_SOURCES.get(method)
    params = message.get("params")
    if field is not None and isinstance(params, dict):
        value = params.get(field)
        if isinstance(value, str):
            headers["Mcp-Name"] = encode_header_value(value)
    return headers


def body_protocol_version(message: Any) -> str | None:
    """``params._meta["io.modelcontextprotocol/protocolVersion"]`` of a message, if it has one."""
    if not isinstance(message, dict):
        return None
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


# -- x-mcp-header --------------------------------------------------------------


def _annotations(
    schema: Any, path: tuple[str, ...], reachable: bool, where: str
) -> Iterator[tuple[tuple[str, ...], bool, str, dict[str, Any]]]:
    """Every ``x-mcp-header`` in a schema: (property path, statically reachable, where, its schema).

    Walks only schema positions (``const``/``enum``/``default``/``examples`` are data)."""
    if not isinstance(schema, dict):
        return
    if ANNOTATION in schema:
        yield path, reachable and bool(path), where, schema
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            yield from _annotations(sub, (*path, str(name)), reachable, f"{where}.properties.{name}")
    for key in _SUBSCHEMA_ONE:
        sub = schema.get(key)
        if isinstance(sub, dict):
            yield from _annotations(sub, path, False, f"{where}.{key}")
        elif key == "items" and isinstance(sub, list):  # draft-07 tuple form
            for index, item in enumerate(sub):
                yield from _annotations(item, path, False, f"{where}.items[{index}]")
    for key in _SUBSCHEMA_LIST:
        subs = schema.get(key)
        if isinstance(subs, list):
            for index, sub in enumerate(subs):
                yield from _annotations(sub, path, False, f"{where}.{key}[{index}]")
    for key in _SUBSCHEMA_MAP:
        subs = schema.get(key)
        if isinstance(subs, dict):
            for name, sub in subs.items():
                yield from _annotations(sub, path, False, f"{where}.{key}.{name}")


def _type_problem(schema: dict[str, Any]) -> str | None:
    declared = schema.get("type")
    types = declared if isinstance(declared, list) else [declared]
    if declared is None:
        return 'has no "type" (only string, integer or boolean parameters may be mirrored)'
    if not all(isinstance(t, str) for t in types):
        return 'has an invalid "type"'
    concrete = [t for t in types if t != "null"]
    if not concrete or any(t not in PRIMITIVE_TYPES for t in concrete) or len(set(concrete)) > 1:
        shown = declared if isinstance(declared, str) else "/".join(types)
        return f"is of type {shown} (only string, integer or boolean parameters may be mirrored)"
    return None


def invalid_header_reason(tool: dict[str, Any]) -> str | None:
    """Why the tool's ``x-mcp-header`` annotations are invalid, or None when they are valid
    (or absent). A client on Streamable HTTP must leave such a tool out of ``tools/list``."""
    if not isinstance(tool, dict):
        return None
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return None
    seen: dict[str, str] = {}
    for path, reachable, where, prop in _annotations(schema, (), True, "inputSchema"):
        value = prop.get(ANNOTATION)
        label = ".".join(path) if path else "the schema root"
        if not reachable:
            return (
                f'x-mcp-header {value!r} at {where} is not reachable through "properties" alone '
                "(not allowed under items, oneOf/anyOf/allOf/not, if/then/else, $defs or $ref)"
            )
        if not isinstance(value, str):
            return f"x-mcp-header on {label} is not a string"
        if value == "":
            return f"x-mcp-header on {label} is empty"
        if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
            return f"x-mcp-header {value!r} on {label} contains a control character"
        if not _TOKEN.fullmatch(value):
            return f"x-mcp-header {value!r} on {label} is not a valid header name (RFC 9110 token characters only)"
        key = value.lower()
        if key in seen:
            return (
                f"x-mcp-header {value!r} on {label} repeats the one on {seen[key]} "
                "(names must be unique, ignoring case)"
            )
        seen[key] = label
        problem = _type_problem(prop)
        if problem is not None:
            return f"x-mcp-header {value!r}: {label} {problem}"
    return None


def header_params(tool: dict[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    """The (property path, header name) pairs of a tool's usable ``x-mcp-header`` annotations."""
    schema = tool.get("inputSchema") if isinstance(tool, dict) else None
    found = []
    for path, reachable, _where, prop in _annotations(schema, (), True, "inputSchema"):
        value = prop.get(ANNOTATION)
        if reachable and isinstance(value, str) and _TOKEN.fullmatch(value):
            found.append((path, value))
    return found


def _header_text(value: Any) -> str | None:
    """The string form of an argument value (string as is, integer in decimal, boolean
    lowercase); None for anything else (null, number with a fraction, object, array)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return str(int(value))  # 42.0 from a JSON parser is the integer 42
    if isinstance(value, str):
        return value
    return None


def tool_param_headers(tool: dict[str, Any], arguments: dict | None) -> dict[str, str]:
    """``Mcp-Param-{Name}: value`` for each annotated parameter with a value in ``arguments``.

    The value is read at the property's exact path; no value there (absent, or
    null) means no header. Values are encoded with ``encode_header_value``."""
    headers: dict[str, str] = {}
    if not isinstance(arguments, dict):
        return headers
    for path, name in header_params(tool):
        value: Any = arguments
        for step in path:
            if not isinstance(value, dict) or step not in value:
                value = None
                break
            value = value[step]
        text = _header_text(value)
        if text is not None:
            headers[f"Mcp-Param-{name}"] = encode_header_value(text)
    return headers
