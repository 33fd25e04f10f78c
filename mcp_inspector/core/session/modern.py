"""The 2026-07-28 ("modern") era: the ``_meta`` every request carries, what results
carry back (``resultType``, ``serverInfo``, ``ttlMs``/``cacheScope``) and the rules
for tools over HTTP (``x-mcp-header`` mirrors, invalid annotations excluded).

There is no handshake: each request declares the protocol version, the client's
capabilities and identity in ``params._meta`` (``basic/index.mdx`` §_meta). The
session installs :func:`add_request_meta` as the connection's ``meta_provider``,
so every request sent through ``RpcConnection.send_request`` gets it.
"""

from __future__ import annotations

from typing import Any

from ..base.errors import ProtocolViolation

# The reserved _meta keys (the same strings as mcp_types' *_META_KEY constants).
PROTOCOL_VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
LOG_LEVEL_KEY = "io.modelcontextprotocol/logLevel"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_ID_KEY = "io.modelcontextprotocol/subscriptionId"

# server-to-client method (an MRTR input request) -> the modern client capability it needs
MODERN_HANDLER_CAPABILITIES = {
    "roots/list": ("roots", {}),  # no listChanged: notifications/roots/list_changed is gone
    "sampling/createMessage": ("sampling", {}),
    "elicitation/create": ("elicitation", {"form": {}}),
}

#: Methods on which a server may answer with an InputRequiredResult (basic/patterns/mrtr.mdx).
MRTR_METHODS = frozenset({"tools/call", "prompts/get", "resources/read"})

#: The tasks extension (io.modelcontextprotocol/tasks, SEP-2663), which the client always
#: declares: a server may answer ``tools/call`` with ``resultType: "task"`` (tasks.py follows it).
TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: The requests a server may answer with a task; a task result to any other is invalid.
TASK_METHODS = frozenset({"tools/call"})

#: resultType values of extensions: the result is shown as it came, with this note (a
#: ``tools/call`` task is followed by the session; this note is for requests sent raw).
EXTENSION_RESULT_TYPES = {
    "task": 'the server answered with a task (resultType "task", the io.modelcontextprotocol/tasks extension): '
    "shown as it came; follow it with tasks/get",
}

#: Errors only a modern server sends (2026-07-28 schema.ts): they identify its era.
MODERN_ERROR_CODES = {
    -32020: "HeaderMismatch",
    -32021: "MissingRequiredClientCapability",
    -32022: "UnsupportedProtocolVersion",
}
UNSUPPORTED_PROTOCOL_VERSION = -32022


#: A handler may carry this attribute (a dict) to declare more than the default value,
#: e.g. an elicitation handler that can open URLs: ``handler.mcp_capability = {"form": {}, "url": {}}``.
CAPABILITY_ATTRIBUTE = "mcp_capability"


def declared_value(handler: Any, default: dict[str, Any]) -> dict[str, Any]:
    """The capability value a registered handler declares (its ``mcp_capability``, else ``default``)."""
    value = getattr(handler, CAPABILITY_ATTRIBUTE, None)
    return dict(value) if isinstance(value, dict) else dict(default)


def client_capabilities(handlers: dict[str, Any]) -> dict[str, Any]:
    """What the client declares in the modern era, from the handlers it has."""
    caps: dict[str, Any] = {}
    for method, (name, value) in MODERN_HANDLER_CAPABILITIES.items():
        if method in handlers:
            caps[name] = declared_value(handlers[method], value)
    caps["extensions"] = {TASKS_EXTENSION: {}}  # tasks are followed whatever the handlers (tasks.py)
    return caps


def request_meta(
    version: str, capabilities: dict[str, Any], client_info: dict[str, Any], log_level: str | None
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        PROTOCOL_VERSION_KEY: version,
        CLIENT_CAPABILITIES_KEY: capabilities,
        CLIENT_INFO_KEY: client_info,
    }
    if log_level is not None:
        meta[LOG_LEVEL_KEY] = log_level
    return meta


def add_request_meta(params: dict[str, Any] | None, meta: dict[str, Any]) -> dict:
    """A copy of ``params`` whose ``_meta`` has the modern keys (keys the caller set
    itself, e.g. in the raw composer, are kept as they are)."""
    merged = dict(params or {})
    existing = merged.get("_meta")
    combined = dict(meta)
    if isinstance(existing, dict):
        combined.update(existing)
    merged["_meta"] = combined
    return merged


def result_type(method: str, result: dict[str, Any]) -> str:
    """The result's ``resultType`` (absent means "complete"); a non-string is a violation."""
    value = result.get("resultType", "complete")
    if not isinstance(value, str):
        raise ProtocolViolation(f"the result of {method} has a resultType that is not a string: {value!r}")
    return value


def check_result_type(method: str, result: dict[str, Any]) -> str | None:
    """Judge a final result's resultType: None when complete, a note for an extension's
    type (shown as it came); an unknown type or a misplaced input_required raises."""
    kind = result_type(method, result)
    if kind == "complete":
        return None
    if kind == "task" and method not in TASK_METHODS:
        raise ProtocolViolation(
            f'the server answered {method} with resultType "task", but the tasks extension allows a task only on '
            f"{', '.join(sorted(TASK_METHODS))}: an invalid response (io.modelcontextprotocol/tasks §Supported Methods)"
        )
    if kind in EXTENSION_RESULT_TYPES:
        return EXTENSION_RESULT_TYPES[kind]
    if kind == "input_required":
        raise ProtocolViolation(
            f'the server answered {method} with resultType "input_required", which 2026-07-28 allows only on '
            f"{', '.join(sorted(MRTR_METHODS))}"
        )
    raise ProtocolViolation(
        f"the server answered {method} with resultType {kind!r}, which mcp-inspector does not know "
        "(2026-07-28: an unrecognized resultType is invalid)"
    )


def undeclared_result_type(result: dict[str, Any]) -> str:
    """Why an extension's resultType breaks the spec when the client never declared that
    extension (basic/index.mdx §ResultType; the tasks extension: "Never return a task to
    a client that did not declare support")."""
    return (
        f"resultType {result.get('resultType')!r} belongs to an extension the client did not declare in "
        "io.modelcontextprotocol/clientCapabilities: invalid for this client (2026-07-28 basic/index.mdx "
        "§ResultType)"
    )


def server_info_of(result: dict[str, Any]) -> dict[str, Any] | None:
    meta = result.get("_meta")
    info = meta.get(SERVER_INFO_KEY) if isinstance(meta, dict) else None
    return info if isinstance(info, dict) else None


def cache_facts(result: dict[str, Any]) -> dict[str, Any] | None:
    """``ttlMs``/``cacheScope`` of a cacheable result (server/utilities/caching.mdx), for display."""
    facts = {key: result[key] for key in ("ttlMs", "cacheScope") if key in result}
    return facts or None


def modern_error(code: int) -> str | None:
    return MODERN_ERROR_CODES.get(code)


# -- tools over 2026-07-28 HTTP -------------------------------------------------
def invalid_header_reason(tool: dict[str, Any]) -> str | None:
    """Why a tool's ``x-mcp-header`` annotations are invalid (None when they are fine)."""
    from ..transport import http_headers  # the Transport engineer's module (HTTP only)

    return http_headers.invalid_header_reason(tool)


def tool_param_headers(tool: dict[str, Any] | None, arguments: dict[str, Any]) -> dict[str, str]:
    """The ``Mcp-Param-*`` mirrors of a call's arguments."""
    if tool is None:
        return {}
    from ..transport import http_headers

    return http_headers.tool_param_headers(tool, arguments)


def split_excluded(tools: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The tools a client may list over 2026-07-28 HTTP, and the excluded ones with why."""
    kept: list[dict[str, Any]] = []
    excluded: dict[str, str] = {}
    for tool in tools:
        try:
            reason = invalid_header_reason(tool)
        except ImportError:  # no HTTP header support in this build: nothing to check against
            reason = None
        if reason is None:
            kept.append(tool)
        else:
            excluded[str(tool.get("name", ""))] = reason
    return kept, excluded


#: resultType of an extension -> the extension that defines it.
RESULT_TYPE_EXTENSIONS = {"task": TASKS_EXTENSION}


def declares_result_type(capabilities: dict[str, Any], kind: Any) -> bool:
    """Whether the client capabilities declare the extension an extension resultType belongs to."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and RESULT_TYPE_EXTENSIONS.get(kind) in extensions
