"""Headless answers to what a server asks of the client: elicitation, sampling, roots.

Each policy is a factory that returns a plain ``async handler(params, entry) -> dict``,
the shape ``McpSession(..., handlers=...)`` takes. The same handlers answer the
legacy era's server->client requests (``elicitation/create``, ``sampling/createMessage``,
``roots/list``) and the modern era's MRTR input requests. A capability is declared
only when its handler is registered. :func:`build_handlers` registers only the
policies given; :func:`headless_handlers` (what the CLI uses) registers all three, as
the TUI does, with honest defaults where no policy was given: elicitation declined,
sampling refused with a JSON-RPC error that says no ``--sampling`` policy was given,
``roots/list`` answered with the ``--root`` paths or an empty list (never a made-up
root such as the working directory). Elicitation declares URL mode too; a URL
request is always declined (a headless client cannot open it).

Files are read when the policy is built, so a missing or malformed file is an
:class:`AnswerPolicyError` before anything connects, not a failed answer later.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..base.errors import RpcError
from ..base.files import FileReadError, read_bounded
from ..base.json_text import JsonTextError, loads_strict
from ..protocol.incoming import MAX_WAITING_SERVER_REQUESTS, TOO_MANY_WAITING
from ..traffic.entry import TrafficEntry

Handler = Callable[[dict[str, Any] | None, TrafficEntry], Awaitable[dict]]
Report = Callable[[str], None]

ELICITATION_POLICIES = ("defaults", "decline", "cancel")
SAMPLING_POLICIES = ("decline",)
#: The error a client answers a refused sampling request with (the spec's example).
SAMPLING_REJECTED = -1
#: The message of the default sampling answer (no --sampling policy given).
NO_SAMPLING_POLICY = (
    "mcp-inspector (headless) has no --sampling policy: it cannot create a message "
    "(give --sampling @FILE to answer, or --sampling decline)"
)
#: What the headless elicitation handler declares (the same as the TUI: form and URL mode).
ELICITATION_CAPABILITY = {"form": {}, "url": {}}
#: What the headless sampling handler declares (the same as the TUI): tool use too, since an
#: answer file may hold a ``tool_use`` block (sampling with tools, 2025-11-25).
SAMPLING_CAPABILITY = {"tools": {}}
MAX_ANSWER_FILE = 16 * 1024 * 1024


class AnswerPolicyError(ValueError):
    """A policy that cannot be built: unknown name, unreadable or malformed answer file."""


def _quiet(message: str) -> None:
    pass


def _read_json_object(path: str, what: str) -> dict[str, Any]:
    try:
        data = read_bounded(os.path.expanduser(path), MAX_ANSWER_FILE)
    except FileReadError as exc:
        raise AnswerPolicyError(
            exc.words(
                missing=f"{what}: file not found: {path}",
                directory=f"{what}: {path} is a directory",
                too_large=f"{what}: {path} is larger than {MAX_ANSWER_FILE // (1024 * 1024)} MiB",
                unreadable=f"{what}: cannot read {path}: {exc.reason}",
            )
        ) from None
    try:
        document = loads_strict(data)
    except JsonTextError as exc:
        raise AnswerPolicyError(f"{what}: {path} is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise AnswerPolicyError(f"{what}: {path} must hold a JSON object")
    return document


# -- elicitation -------------------------------------------------------------


def schema_defaults(requested_schema: Any) -> dict[str, Any]:
    """``{name: default}`` for each property of a ``requestedSchema`` that declares one."""
    if not isinstance(requested_schema, dict) or not isinstance(requested_schema.get("properties"), dict):
        return {}
    return {
        name: prop["default"]
        for name, prop in requested_schema["properties"].items()
        if isinstance(prop, dict) and "default" in prop
    }


def elicitation_answer(
    params: dict[str, Any] | None, answers: dict[str, Any] | None = None, report: Report = _quiet
) -> dict[str, Any]:
    """The ``ElicitResult`` for one request: accept with the defaults (and ``answers`` over them)
    when that gives content the schema accepts, else decline, saying why through ``report``."""
    params = params or {}
    if params.get("mode") == "url":
        report("elicitation/create asks to open a URL; declined (a headless client cannot open it)")
        return {"action": "decline"}
    schema = params.get("requestedSchema")
    # imported here: the form machinery (~10 ms) is not loaded by a command no server asks anything of
    from ..schema.elicitation_form import ElicitationSchemaError, build_elicitation_form, elicitation_check

    try:
        form = build_elicitation_form(schema)
    except ElicitationSchemaError as exc:
        report(f"elicitation/create has a requestedSchema that is not a flat form ({exc}); declined")
        return {"action": "decline"}
    # Only the form's own fields are sent (ElicitResult.content "contains values matching the
    # requested schema"): other answers in the file belong to other forms, and stay here.
    properties = schema.get("properties") if isinstance(schema, dict) else None
    fields = set(properties) if isinstance(properties, dict) else set()
    others = sorted(key for key in (answers or {}) if key not in fields)
    if others:
        report(f"elicitation/create: answers not in this requestedSchema were left out: {', '.join(others)}")
    content = {**schema_defaults(schema), **{k: v for k, v in (answers or {}).items() if k in fields}}
    verdict = elicitation_check(form, content)
    for note in verdict.unchecked:
        report(f"elicitation/create: requestedSchema {note}")
    issues = verdict.issues
    if issues:
        problems = "; ".join(f"{issue.path}: {issue.message}" for issue in issues[:5])
        report(f"elicitation/create: the answer would not match the requestedSchema ({problems}); declined")
        return {"action": "decline"}
    return {"action": "accept", "content": content}


def elicitation_handler(policy: str, report: Report = _quiet) -> Handler:
    """``defaults``, ``decline``, ``cancel`` or ``@FILE`` (a JSON object of answers merged
    over the defaults)."""
    if policy in ("decline", "cancel"):
        result = {"action": policy}

        async def fixed(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
            return dict(result)

        return fixed
    if policy == "defaults":
        answers: dict[str, Any] = {}
    elif policy.startswith("@") and len(policy) > 1:
        answers = _read_json_object(policy[1:], "--elicitation")
    else:
        raise AnswerPolicyError(f"--elicitation: expected defaults, decline, cancel or @FILE, got {policy!r}")

    async def answer(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
        return elicitation_answer(params, answers, report)

    return answer


# -- sampling ----------------------------------------------------------------


def sampling_result(document: dict[str, Any]) -> dict[str, Any]:
    """A ``CreateMessageResult`` from a file: one already (``role``, ``content``, ``model``),
    or ``{"text": ...}`` made into an assistant text message."""
    if "content" in document:
        if not isinstance(document.get("content"), (dict, list)):
            raise AnswerPolicyError('--sampling: "content" must be a content block (or a list of them)')
        return {"role": "assistant", "model": "mcp-inspector", "stopReason": "endTurn", **document}
    text = document.get("text")
    if not isinstance(text, str):
        raise AnswerPolicyError('--sampling: the file needs "text" (a string) or a CreateMessageResult with "content"')
    extra = {key: value for key, value in document.items() if key != "text"}
    return {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": "mcp-inspector",
        "stopReason": "endTurn",
        **extra,
    }


def sampling_handler(policy: str) -> Handler:
    """``decline`` (a JSON-RPC error, the spec's "user rejected") or ``@FILE``."""
    if policy == "decline":

        async def decline(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
            raise RpcError(SAMPLING_REJECTED, "User rejected sampling request")

        return decline
    if not (policy.startswith("@") and len(policy) > 1):
        raise AnswerPolicyError(f"--sampling: expected decline or @FILE, got {policy!r}")
    result = sampling_result(_read_json_object(policy[1:], "--sampling"))

    async def answer(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
        return dict(result)

    return answer


# -- roots -------------------------------------------------------------------
# The client answers roots/list with the roots the user gave (--root, a config entry's "roots",
# the TUI's Roots editor) and nothing else: with none, an empty list. The capability is declared
# all the same, so roots given later reach the server (legacy: notifications/roots/list_changed).
# A server such as server-filesystem keeps the folders it was started with on an empty list, and
# would narrow itself to whatever roots it was told (a made-up working directory, once).


def root_entries(paths: list[str]) -> list[dict[str, str]]:
    """Root paths (``--root`` values: a path, ``~/x`` or a ``file://`` URI) as ``Root`` objects:
    absolute ``file://`` URIs, named after the directory."""
    from ..config.servers import root_path

    roots = []
    for path in paths:
        try:
            absolute = Path(root_path(path))
        except ValueError as exc:
            raise AnswerPolicyError(f"--root: {exc}") from None
        roots.append({"uri": absolute.as_uri(), "name": absolute.name or str(absolute)})
    return roots


def live_roots_handler(current: Callable[[], list[str]]) -> Handler:
    """Answers ``roots/list`` with the roots ``current()`` gives at the time of asking (the TUI's:
    they change in its Roots editor); a root that cannot be one is left out, never replaced."""

    async def answer(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
        roots = []
        for path in current():
            try:
                roots.extend(root_entries([path]))
            except AnswerPolicyError:
                continue
        return {"roots": roots}

    return answer


def roots_handler(paths: list[str]) -> Handler:
    """Answers ``roots/list`` with exactly these roots."""
    roots = root_entries(paths)

    async def answer(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
        return {"roots": [dict(root) for root in roots]}

    return answer


def build_handlers(
    elicitation: str | None = None, sampling: str | None = None, roots: list[str] | None = None, report: Report = _quiet
) -> dict[str, Handler]:
    """The handlers for these policies (None or empty: that capability is not declared)."""
    handlers: dict[str, Handler] = {}
    if elicitation is not None:
        handlers["elicitation/create"] = elicitation_handler(elicitation, report)
    if sampling is not None:
        handlers["sampling/createMessage"] = sampling_handler(sampling)
    if roots:
        handlers["roots/list"] = roots_handler(roots)
    return handlers


def no_elicitation_policy(report: Report = _quiet) -> Handler:
    """The default elicitation answer: decline, saying so through ``report``."""

    async def decline(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
        message = (params or {}).get("message")
        asked = f" ({message!r})" if isinstance(message, str) and message else ""
        report(f"the server asked for elicitation{asked}; declined: no --elicitation policy given")
        return {"action": "decline"}

    return decline


def no_sampling_policy(report: Report = _quiet) -> Handler:
    """The default sampling answer: a JSON-RPC error saying no policy was given."""

    async def refuse(params: dict[str, Any] | None, entry: TrafficEntry) -> dict:
        report("the server asked for sampling/createMessage; refused with an error: no --sampling policy given")
        raise RpcError(SAMPLING_REJECTED, NO_SAMPLING_POLICY)

    return refuse


def headless_handlers(
    elicitation: str | None = None,
    sampling: str | None = None,
    roots: list[str] | None = None,
    report: Report = _quiet,
    report_refused: Report | None = None,
) -> dict[str, Handler]:
    """All three handlers, as the TUI declares them (sampling, elicitation {form, url}, roots),
    with the defaults of the module doc for a policy not given. ``report_refused`` (else
    ``report``) is told once when a flood of requests is refused (protocol/incoming.py)."""
    elicit = elicitation_handler(elicitation, report) if elicitation is not None else no_elicitation_policy(report)
    elicit.mcp_capability = dict(ELICITATION_CAPABILITY)  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    sample = sampling_handler(sampling) if sampling is not None else no_sampling_policy(report)
    sample.mcp_capability = dict(SAMPLING_CAPABILITY)  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    handlers = {
        "elicitation/create": elicit,
        "sampling/createMessage": sample,
        "roots/list": roots_handler(list(roots or [])),
    }
    refused = refusal_reporter(report_refused or report)
    for handler in handlers.values():
        handler.mcp_refused = refused  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    return handlers


def refusal_reporter(report: Report) -> Callable[[str], None]:
    """The ``mcp_refused`` hook of handlers (protocol/incoming.py): says once that requests
    beyond those allowed to wait at once were refused with an error."""
    said: list[str] = []

    def refused(method: str) -> None:
        if not said:
            said.append(method)
            report(
                f"the server sent more requests than may wait for an answer at once ({MAX_WAITING_SERVER_REQUESTS}): "
                f"the rest are refused with error {TOO_MANY_WAITING} (first: {method})"
            )

    return refused
