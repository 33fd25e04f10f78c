"""Multi Round-Trip Requests (2026-07-28, ``basic/patterns/mrtr.mdx``).

A modern server may answer ``tools/call``, ``prompts/get`` or ``resources/read``
with an ``InputRequiredResult``: ``inputRequests`` (``{key: {method, params}}``,
each an ``elicitation/create``, ``sampling/createMessage`` or ``roots/list``) and
an opaque ``requestState``. The client answers every input request with the
handler registered for its method on ``connection.handlers`` (the ones legacy
server-to-client requests use), then retries the same method with a NEW id, the
original params, ``inputResponses`` under the same keys and ``requestState``
echoed unchanged, until the result is complete. Each retry's traffic entry is
marked ``meta={"mrtr": {"first": <seq of the first request>, "round": n}}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ..base.errors import InputDeclined, InspectorError, ProtocolViolation, RequestCancelled, RpcError
from ..protocol.rpc import PendingRequest, RpcConnection
from ..traffic.store import TrafficStore
from .events import InputRequested, SessionEvent
from .modern import result_type

MAX_ROUNDS = 32
MAX_INPUTS = 64  # input requests in one round (each may be a dialog for a person)
INPUT_METHODS = ("elicitation/create", "sampling/createMessage", "roots/list")
#: input request method -> the client capability that lets a server send it
INPUT_CAPABILITIES = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
DECLINED_ELICITATION = {"action": "decline"}


class MrtrError(ProtocolViolation):
    """A multi round-trip request that cannot go on (a malformed InputRequiredResult,
    too many rounds, an input request the client cannot answer)."""


class MrtrSession(Protocol):
    """What the input rounds need of the session (mcp_session.py imports this module)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def connection(self) -> RpcConnection: ...

    def emit(self, event: SessionEvent) -> None: ...
    def client_capabilities(self) -> dict[str, Any]: ...


@dataclass(slots=True)
class MrtrOutcome:
    result: dict[str, Any]
    rounds: list[PendingRequest] = field(default_factory=list)


def remember(pending: PendingRequest, params: dict[str, Any] | None, options: dict[str, Any]) -> PendingRequest:
    """Keep what a retry needs on the first request (its params before ``_meta`` was
    added, and the send options)."""
    pending.mrtr_params = dict(params) if params is not None else None  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    pending.mrtr_options = dict(options)  # type: ignore[attr-defined]  # an attribute set on the object for the code that reads it back
    return pending


async def complete(session: MrtrSession, first: PendingRequest) -> MrtrOutcome:
    """Wait for ``first`` and run the rounds until a result that is not input_required."""
    method = first.method
    params: dict[str, Any] | None = getattr(first, "mrtr_params", first.params)
    options: dict[str, Any] = dict(getattr(first, "mrtr_options", {}))
    options.pop("msg_id", None)
    first_seq = first.entry.seq if first.entry is not None else None
    pending = first
    rounds = [first]
    for round_no in range(1, MAX_ROUNDS + 2):
        result = await pending.wait()
        if result_type(method, result) != "input_required":
            return MrtrOutcome(result, rounds)
        if round_no > MAX_ROUNDS:
            raise MrtrError(f"{method}: the server still asked for input after {MAX_ROUNDS} rounds; stopped")
        requests, state = _parse(method, result)
        if first.cancel_requested is not None:  # cancelled once this answer was in: ask no one
            raise RequestCancelled(method, first.cancel_requested)
        session.emit(InputRequested(round_no, requests, first_seq))
        responses = await answer_inputs(session, method, requests, pending)
        if first.cancel_requested is not None:  # cancelled while the input was being gathered
            raise RequestCancelled(method, first.cancel_requested)
        retry = {k: v for k, v in (params or {}).items() if k not in ("inputResponses", "requestState")}
        if requests:
            retry["inputResponses"] = responses
        if state is not None:
            retry["requestState"] = state
        pending = await session.connection.send_request(
            method, retry, entry_meta={"mrtr": {"first": first_seq, "round": round_no}}, **options
        )
        rounds[-1].successor = pending
        rounds.append(pending)
        if first.cancel_requested is not None:  # cancelled while the retry was being written:
            await first.cancel(first.cancel_requested)  # it found no retry then; this one is it
    raise AssertionError("unreachable")  # pragma: no cover


def _parse(method: str, result: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], str | None]:
    requests = result.get("inputRequests")
    state = result.get("requestState")
    if requests is not None and not isinstance(requests, dict):
        raise MrtrError(f"{method}: inputRequests must be an object of {{key: request}}, got {type(requests).__name__}")
    if state is not None and not isinstance(state, str):
        raise MrtrError(f"{method}: requestState must be a string, got {type(state).__name__}")
    if requests is None and state is None:
        raise MrtrError(f"{method}: an InputRequiredResult with neither inputRequests nor requestState")
    return check_input_requests(method, requests or {}), state


def check_input_requests(method: str, requests: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``inputRequests`` checked: each a ``{method, params}`` the client can be asked
    (MrtrError otherwise). The tasks extension's ``inputRequests`` (tasks.py) use it too."""
    if len(requests) > MAX_INPUTS:
        raise MrtrError(
            f"{method}: the server asked for {len(requests)} inputs in one round (more than {MAX_INPUTS}); stopped"
        )
    checked: dict[str, dict[str, Any]] = {}
    for key, request in requests.items():
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            raise MrtrError(f"{method}: input request {key!r} is not a {{method, params}} object")
        if request["method"] not in INPUT_METHODS:
            raise MrtrError(
                f"{method}: input request {key!r} asks for {request['method']!r}, which is not one of "
                f"{', '.join(INPUT_METHODS)}"
            )
        request_params = request.get("params")
        if request_params is not None and not isinstance(request_params, dict):
            raise MrtrError(f"{method}: input request {key!r} has params that are not an object")
        checked[key] = request
    return checked


async def answer_inputs(
    session: MrtrSession, method: str, requests: dict[str, dict[str, Any]], pending: PendingRequest
) -> dict[str, Any]:
    """The responses to checked input requests, each answered by the handler registered for
    its method (a declined elicitation when there is none), one at a time (a person may be
    answering them); ``pending`` is the request whose result asked (its reply is flagged if
    the server asked for an undeclared capability). MRTR rounds and the tasks extension's
    ``input_required`` tasks (tasks.py) share it."""
    responses: dict[str, Any] = {}
    entry = pending.reply if pending.reply is not None else pending.entry
    handlers = session.connection.handlers
    _flag_undeclared(session, method, requests, pending.reply)
    for key, request in requests.items():
        input_method = request["method"]
        handler = handlers.get(input_method)
        if handler is None:
            if input_method == "elicitation/create":
                # Not declared (no handler): declining is the answer the spec gives the user.
                session.store.note(
                    f"{method}: input request {key!r} ({input_method}) declined: no handler for it "
                    "(the client did not declare elicitation)",
                    mrtr=True,
                )
                responses[key] = dict(DECLINED_ELICITATION)
                continue
            raise MrtrError(
                f"{method}: the server asked for {input_method} (input request {key!r}), which the client did "
                "not declare in its capabilities and cannot answer"
            )
        assert entry is not None
        try:
            answer = await handler(request.get("params"), entry)
        except RpcError as exc:
            if input_method == "elicitation/create":
                session.store.note(f"{method}: input request {key!r} cancelled: {exc.message}", mrtr=True)
                responses[key] = {"action": "cancel"}
                continue
            # The user (or the headless policy) refused: a decision of the client, not a fault
            # of the server; sampling and roots have no "declined" result to send back.
            raise InputDeclined(method, key, input_method, exc.message) from None
        except InspectorError:
            raise
        except Exception as exc:  # a handler bug must not crash the call
            raise MrtrError(
                f"{method}: the {input_method} handler failed on input request {key!r}: {exc.__class__.__name__}: {exc}"
            ) from None
        if not isinstance(answer, dict):
            raise MrtrError(f"{method}: the {input_method} handler returned {type(answer).__name__}, not an object")
        responses[key] = answer
    return responses


def _undeclared(request: dict[str, Any], capabilities: dict[str, Any]) -> str | None:
    """What an input request asks for that the client's capabilities do not declare."""
    input_method = request["method"]
    name = INPUT_CAPABILITIES[input_method]
    declared = capabilities.get(name)
    if declared is None:
        return f"{input_method}, but the client did not declare {name}"
    params = request.get("params")
    if (
        input_method == "elicitation/create"
        and isinstance(params, dict)
        and params.get("mode") == "url"
        and not (isinstance(declared, dict) and "url" in declared)
    ):
        return "a URL-mode elicitation/create, but the client declared form mode only"
    if (
        input_method == "sampling/createMessage"
        and isinstance(params, dict)
        and ("tools" in params or "toolChoice" in params)
    ) and not (isinstance(declared, dict) and "tools" in declared):  # client/sampling.mdx: MUST NOT
        return "a tool-enabled sampling/createMessage, but the client did not declare sampling.tools"
    return None


def _flag_undeclared(session: MrtrSession, method: str, requests: dict[str, dict[str, Any]], reply: Any) -> None:
    """Mark the InputRequiredResult: servers MUST NOT ask for what the client did not
    declare (mrtr.mdx §Server Requirements; elicitation.mdx: no undeclared modes)."""
    capabilities = session.client_capabilities()
    problems = [
        f"input request {key!r} asks for {what}"
        for key, request in requests.items()
        if (what := _undeclared(request, capabilities)) is not None
    ]
    if not problems:
        return
    text = "; ".join(problems) + " (2026-07-28: a server MUST NOT ask for an undeclared capability)"
    session.store.flag(reply, text)
    session.store.note(f"{method}: {text}", mrtr=True, undeclared=True)
