"""Answering what a server asks the client (``sampling/createMessage``, ``elicitation/create``,
``roots/list``), for a legacy server->client request and for an MRTR input round alike.

The screens live in ``answer/``: ``pick_screen`` chooses one for a request (form-mode
elicitation: the ``ElicitationForm``; URL mode: the URL and its host, opened only on request;
sampling: the request by role and a reply editor; anything else: raw JSON), and
``ServerRequestScreen(method, params, context)`` builds it. ``client_handlers`` are what the
TUI registers on a session: sampling first looks for a saved rule of the server
(core/config/sampling_rules.py) and answers by it without asking; each screen names the
server that asks (``origin``), and says so when it is not the one on screen (during a switch).

Keys (ids for ``[keymap]``): ctrl+s accept, ctrl+r decline, escape cancel, ctrl+o open the URL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ....core.base.errors import RpcError
from ....core.base.json_text import JsonTextError, loads_strict, parse_frame
from ....core.base.jsonrpc import Kind
from ....core.config.sampling_rules import SamplingRule, SamplingRuleError, SamplingRules
from ....core.session.answers import live_roots_handler
from ....core.traffic.entry import TrafficEntry
from ....core.traffic.store import TrafficStore
from ...text.traffic_text import clean, mrtr_round
from .base import Answer, ServerRequestScreen
from .elicitation import FormScreen, RawScreen, describe_elicitation, elicitation_template, make_form
from .queue import AnswerQueue
from .sampling import SamplingScreen
from .sampling_text import describe_sampling
from .url_elicitation import UrlFacts, UrlScreen, url_facts

__all__ = [
    "Answer",
    "ServerRequestScreen",
    "UrlFacts",
    "url_facts",
    "build_reply",
    "client_handlers",
    "describe_request",
    "elicitation_template",
    "pick_screen",
    "request_context",
]

PARAMS_PARSE_LIMIT = 64 * 1024


def describe_request(method: str, params: dict | None) -> str:
    if method == "sampling/createMessage":
        return describe_sampling(params or {})
    if method == "elicitation/create":
        return describe_elicitation(params)
    return json.dumps(params or {}, indent=2)


def build_reply(method: str, answer: Answer) -> dict:
    """The JSON-RPC result for an answer; raises RpcError for a refused sampling request."""
    if method == "elicitation/create":
        if answer.result is not None:
            return answer.result
        if answer.action != "accept":
            return {"action": answer.action}
        try:
            content = loads_strict(answer.text or "{}")
        except JsonTextError as exc:
            raise RpcError(-32603, f"the user's answer was not valid JSON: {exc}") from None
        return {"action": "accept", "content": content}
    if answer.action != "accept":
        raise RpcError(-1, f"the user {'declined' if answer.action == 'decline' else 'cancelled'} the {method} request")
    if answer.result is not None:
        return answer.result
    return {
        "role": "assistant",
        "content": {"type": "text", "text": answer.text},
        "model": "mcp-inspector (typed by a person)",
        "stopReason": "endTurn",
    }


def elicitation_mode(params: dict | None) -> str:
    """``form`` (also when ``mode`` is absent, as before 2025-11-25), ``url``, or the unknown mode as sent."""
    mode = (params or {}).get("mode", "form")
    return mode if isinstance(mode, str) else repr(mode)


def pick_screen(method: str, params: dict) -> type[ServerRequestScreen]:
    """The screen class for a request (``ServerRequestScreen(...)`` calls it)."""
    if method == "sampling/createMessage":
        return SamplingScreen
    if method == "elicitation/create":
        mode = elicitation_mode(params)
        if mode == "url":
            return UrlScreen
        if mode == "form" and make_form(params)[0] is not None:
            return FormScreen
    return _RawFor


class _RawFor(RawScreen):
    """RawScreen with the note saying why (an unknown mode, a schema the form cannot take)."""

    def __init__(self, method: str, params: dict | None, context: str | None = None) -> None:
        note = None
        if method == "elicitation/create":
            mode = elicitation_mode(params if isinstance(params, dict) else {})
            note = (
                f"Unknown elicitation mode {clean(mode)[:40]!r}, answer as JSON."
                if mode != "form"
                else make_form(params if isinstance(params, dict) else {})[1]
            )
        super().__init__(method, params, context, note=note)


ServerRequestScreen.picker = pick_screen  # ServerRequestScreen(method, params) builds the right screen


def request_context(entry: TrafficEntry | None, store: TrafficStore) -> str | None:
    """Which request of which call asks (MRTR: "round 2 of tools/call echo (#12)"), or None for a
    legacy server->client request, which needs no more than its method."""
    if entry is None or entry.kind is not Kind.RESPONSE or entry.reply_to is None:
        return None
    request = store.get(entry.reply_to)
    if request is None:
        return None
    found = mrtr_round(request)
    first_seq, number = (found[0], found[1] + 1) if found is not None else (request.seq, 1)
    first = store.get(first_seq) or request
    what = clean(first.method or "the request")
    if len(first.raw) <= PARAMS_PARSE_LIMIT:
        try:
            message, _ = parse_frame(first.raw)
        except JsonTextError:
            message = None
        params = message.get("params") if isinstance(message, dict) else None
        name = params.get("name") or params.get("uri") if isinstance(params, dict) else None
        if isinstance(name, str):
            what += f" {clean(name[:80])}"
    return f"Input round {number} of {what} (#{first_seq}): the server needs this answer before it can reply."


#: names the server a request comes from: (name, whether it is not the server the screen shows)
Origin = Callable[[Any], tuple[str, bool]]


def _server_key(app: Any, spec: Any = None) -> str | None:
    """The key sampling rules are saved under: the asking server's (else the one shown)."""
    key = getattr(spec if spec is not None else getattr(getattr(app, "main", None), "spec", None), "key", None)
    return key if isinstance(key, str) else None


def client_handlers(
    app: Callable[[], Any],
    store: TrafficStore,
    rules_file: Path | None = None,
    *,
    roots: Any = None,
    origin: Origin | None = None,
) -> dict[str, Any]:
    """The handlers for what a server asks the client (legacy server->client requests, and MRTR
    input requests, which the session answers through the same handlers): roots/list by ``roots``
    (the roots the user gave; without it an empty list, never made up); sampling by a saved rule or
    by hand; elicitation by hand. ``handler.for_spec(spec)`` is the handler of one server's session
    (connection.bound_handlers): its screens name that server (``origin(spec)``), which matters
    while a switch (F7) keeps the old server on screen and the new one already asks.
    Every server's questions wait in ONE line (queue.py): one answering screen at a time."""
    queue = AnswerQueue(app)
    elicit = _answering(app, store, rules_file, origin, None, queue)["elicitation/create"]
    sample = _answering(app, store, rules_file, origin, None, queue)["sampling/createMessage"]
    for method, handler in (("elicitation/create", elicit), ("sampling/createMessage", sample)):
        handler.for_spec = lambda spec, method=method: _answering(app, store, rules_file, origin, spec, queue)[method]
    return {
        "roots/list": _counted(roots if roots is not None else live_roots_handler(lambda: []), queue),
        "sampling/createMessage": sample,
        "elicitation/create": elicit,
    }


def _counted(handler: Any, queue: AnswerQueue) -> Any:
    """``handler`` (and what its ``for_spec`` binds) with the hook that counts refused requests on the queue."""
    handler.mcp_refused = queue.count_refused
    bind = getattr(handler, "for_spec", None)
    if callable(bind) and not getattr(bind, "counted", False):
        bound = lambda spec: _counted(bind(spec), queue)  # noqa: E731 - a function object that carries .counted
        bound.counted = True
        handler.for_spec = bound
    return handler


def _answering(
    app: Callable[[], Any],
    store: TrafficStore,
    rules_file: Path | None,
    origin: Origin | None,
    spec: Any,
    queue: AnswerQueue,
) -> dict[str, Any]:
    """The sampling and elicitation handlers of the server ``spec`` (None: the one shown)."""

    def named(screen: ServerRequestScreen) -> ServerRequestScreen:
        if origin is not None:
            screen.origin, screen.origin_hidden = origin(spec)
        return screen

    async def elicit(params: dict | None, entry: TrafficEntry) -> dict:
        # built when its turn comes (a flood's thousandth request costs nothing while it waits)
        answer = await queue.ask(
            lambda: named(ServerRequestScreen("elicitation/create", params, context=request_context(entry, store)))
        )
        return build_reply("elicitation/create", answer)

    async def sample(params: dict | None, entry: TrafficEntry) -> dict:
        the_app = app()
        server = _server_key(the_app, spec)
        if server is not None:
            rules = await asyncio.to_thread(SamplingRules.load, rules_file)
            if rules.problem:
                the_app.notify(rules.problem, title="Sampling rules", severity="warning", markup=False)
            rule = rules.find(server, params)
            if rule is not None:
                try:
                    result = await asyncio.to_thread(rule.result)
                except SamplingRuleError as exc:
                    the_app.notify(f"{exc}: answer by hand", title="Sampling rule", severity="error", markup=False)
                else:
                    store.note(
                        f"sampling/createMessage answered by a saved rule: {rule.describe()}", sampling_rule=True
                    )
                    the_app.notify(
                        f"Answered by a saved rule: {rule.describe()}", title="sampling/createMessage", markup=False
                    )
                    return result
        shown: list[SamplingScreen] = []

        def make() -> ServerRequestScreen:
            screen = SamplingScreen(
                "sampling/createMessage", params, context=request_context(entry, store), server=server
            )
            shown.append(screen)
            return named(screen)

        answer = await queue.ask(make)
        reply = build_reply("sampling/createMessage", answer)
        screen = shown[0]
        if screen.remembered is not None and server is not None:
            remembered = screen.remembered
            rule = SamplingRule(
                server,
                reply=remembered["reply"],
                match=remembered["match"],
                model=remembered["model"],
                stop_reason=remembered["stopReason"],
            )
            try:
                await asyncio.to_thread(_add_rule, rules_file, rule)
            except (OSError, SamplingRuleError) as exc:
                the_app.notify(f"The rule was not saved: {exc}", title="Sampling rules", severity="error", markup=False)
            else:
                the_app.notify(
                    f"Saved: this server's sampling requests are answered {rule.describe()} (palette: sampling rules)",
                    title="Sampling rule",
                    markup=False,
                )
        return reply

    sample.mcp_capability = {"tools": {}}  # the reply editor can answer with a tool_use block
    sample.mcp_refused = elicit.mcp_refused = queue.count_refused  # a flood's refused requests, counted on screen
    elicit.mcp_capability = {"form": {}, "url": {}}  # the modal shows URL mode too: declare it (both eras)
    return {"sampling/createMessage": sample, "elicitation/create": elicit}


def _add_rule(path: Path | None, rule: SamplingRule) -> None:
    rules = SamplingRules.load(path)
    rules.add(rule)
