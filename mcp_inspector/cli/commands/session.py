"""The commands for the rest of the server surface: templates, read (of a URI or a
template), complete, subscribe.

``read``: a URI holding an RFC 6570 expression (``{...}``: a literal brace is not
allowed in a URI, RFC 3986, so nothing real is mistaken for one) is a template,
expanded with the ``KEY=VALUE`` words (``uritemplate``, every operator), and the
expanded URI is read; the URI actually read is noted on stderr. A value that is a
JSON array or object is a list or an associative array (for ``{?tags*}``), any
other value a string.

``complete`` prints the values one a line, then ``(total: N, hasMore: true)`` when
the server said either; ``--json`` prints the ``result`` exactly as sent.

``subscribe`` prints one line per ``notifications/resources/updated`` (``--json``:
the notification's ``params`` as one JSON line), until ``--for`` seconds pass,
``--count`` updates came, or a stop signal; then it unsubscribes (legacy
``resources/unsubscribe``; in 2026-07-28 the subscriptions/listen stream drops the URI).
``--call TOOL [--call-args JSON]`` calls a tool once subscribed, in the same session (a
server may send updates only after some tool ran: server-everything's
``toggle-subscriber-updates``, the demo's ``touch_resource``), as ``call`` does (a task
followed to its result). The lines go to stdout from a thread (line_feed.py), so a stdout
nobody reads never stalls the loop; updates that cannot wait (over ``UPDATE_BUFFER``) are
counted and said at the end, as are updates whose uri is not a string. Only updates of the
URI (or of a resource under it: the spec lets a server name a sub-resource) are printed and
counted by ``--count``; an update of another URI is said on stderr (the first few) and counted
apart. A URI template is a usage error (subscribe to an expanded URI).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import anyio

from ...core.base.errors import ConnectionLost, InspectorError, TransportFailure
from ...core.base.json_text import JsonTextError, loads_strict
from ...core.protocol.uri_template import EXPRESSION, expression_problem, is_template
from ...core.session.events import ResourceUpdated, ServerClosed
from ...core.session.mcp_session import McpSession
from ...core.session.results import read_problems
from .. import exit_codes, stopping
from ..arguments import parse_pairs, require_utf8
from ..exit_codes import UsageError
from ..output import render
from ..output.line_feed import LineFeed
from ..runner import Context
from .basic import ToolExcluded, check_call, emit, finish_exact, list_templates, out

UNSUBSCRIBE_WAIT = 5.0  # seconds for resources/unsubscribe on the way out
OUTPUT_WAIT = 2.0  # seconds for stdout to take the updates still queued, on the way out
MALFORMED_SAID = 3  # malformed updates warned about one by one; the rest are counted
MAX_VALUES = 100  # completion.values: "must not exceed 100 items"
STOPPED_UNSUBSCRIBE_WAIT = 1.0  # the same after a stop signal (Ctrl-C)
ACK_WAIT = 5.0  # seconds for the modern listen stream's acknowledgment
UPDATE_BUFFER = 10_000  # updates waiting to be printed; past it a flood's updates are counted, not kept
STREAM_CHECK = 0.25  # seconds between looks at whether the HTTP stream carrying the updates was given up
PROBE_EVERY = 2.0  # 2026-07-28 over HTTP: seconds between round trips while the listen stream is down
PROBE_WAIT = 5.0  # ... and how long one may take


def covers(subscribed: str, updated: str) -> bool:
    """Whether an update of ``updated`` is one of ``subscribed``: the same URI, or a resource under it
    ("the URI of the resource that has been updated. This might be a sub-resource of the one that the
    client actually subscribed to")."""
    return updated == subscribed or updated.startswith(subscribed.rstrip("/") + "/")


def _variable(text: str) -> Any:
    """A template variable's value: a JSON array or object as itself, anything else a string."""
    if text[:1] in "[{":
        try:
            value = loads_strict(text)
        except JsonTextError:
            return text
        if isinstance(value, (list, dict)):
            return value
    return text


def expand_template(template: str, pairs: list[str]) -> tuple[str, list[str]]:
    """(the expanded URI, the template's variables not given); an unknown variable or a
    template uritemplate refuses is a usage error."""
    from uritemplate import URITemplate

    problem = expression_problem(template)
    if problem is not None:
        raise UsageError(problem)
    variables = {key: _variable(value) for key, value in parse_pairs(pairs, json_values=False).items()}
    try:
        parsed = URITemplate(template)
        names = list(parsed.variable_names)
        unknown = [name for name in variables if name not in names]
        if unknown:
            raise UsageError(
                f"the template {template} has no variable {', '.join(map(repr, unknown))} "
                f"(its variables: {', '.join(names) or 'none'})"
            )
        return parsed.expand(variables), [name for name in names if name not in variables]
    except UsageError:
        raise
    except Exception as exc:  # uritemplate is lenient; anything it still refuses is a usage error
        raise UsageError(f"cannot expand the URI template {template}: {exc}") from None


def prepare(args: Any) -> None:
    """Before connecting: the template of ``read`` expanded, the reference of ``complete``."""
    if args.command == "read":
        args.template = None
        args.missing = []
        stray = EXPRESSION.sub("", args.uri)
        if "{" in stray or "}" in stray:  # a typo in a template ({id without its }): never a URI (RFC 3986)
            raise UsageError(
                f"{args.uri} has an unmatched {'{' if '{' in stray else '}'}: a URI cannot hold braces, "
                "and a template's expressions are {name} (e.g. demo://notes/{note_id})"
            )
        if is_template(args.uri):
            args.template = args.uri
            args.uri, args.missing = expand_template(args.uri, args.pairs)
        elif args.pairs:
            raise UsageError(f"KEY=VALUE variables go with a URI template (a URI with {{...}}); {args.uri} has none")
    elif args.command == "complete":
        if args.prompt is not None:
            args.ref = {"type": "ref/prompt", "name": require_utf8(args.prompt, "--prompt")}
        else:
            args.ref = {"type": "ref/resource", "uri": require_utf8(args.template, "--template")}
        require_utf8(args.argument, "ARGUMENT")
        require_utf8(args.value, "VALUE")
        args.context_arguments = parse_pairs(args.context, json_values=False)
    elif args.command == "subscribe":
        from ..arguments import parse_args_option

        if is_template(args.uri):  # a server may take it as a resource whose name has braces: never updated
            raise UsageError(
                f"{args.uri} is a URI template, not a resource: subscribe to an expanded URI "
                f"(mcp-inspector read '{args.uri}' KEY=VALUE ... shows it)"
            )

        if args.call_args is not None and args.call is None:
            raise UsageError("--call-args goes with --call TOOL")
        try:
            args.call_arguments = parse_args_option(args.call_args) if args.call is not None else {}
        except UsageError as exc:  # its messages name --args
            raise UsageError(str(exc).replace("--args", "--call-args", 1)) from None


async def cmd_templates(session: McpSession, ctx: Context, args: Any) -> int:
    items = await list_templates(session, ctx)  # a note and none without the resources capability
    return await emit(ctx, {"resourceTemplates": items}, lambda: render.templates(items))


async def cmd_read(session: McpSession, ctx: Context, args: Any) -> int:
    template = getattr(args, "template", None)
    if template is not None:
        for name in getattr(args, "missing", []):
            ctx.warn(f"template variable {name!r} not given: it expands to nothing")
        ctx.note(f"reading {args.uri} (from the template {template})")
    ctx.step = "resources/read"
    pending = await session.begin_request("resources/read", {"uri": args.uri})
    result, raw = await finish_exact(session, ctx, pending)
    for problem in read_problems(result):  # said as call says a malformed result's problems
        ctx.warn(f"malformed result: {problem}")
    return await emit(ctx, result, lambda: render.read_result(result), raw)


async def cmd_complete(session: McpSession, ctx: Context, args: Any) -> int:
    if "completions" not in session.capabilities:
        ctx.warn("the server does not declare the completions capability; asking anyway")
    params: dict[str, Any] = {"ref": args.ref, "argument": {"name": args.argument, "value": args.value}}
    if args.context_arguments:
        params["context"] = {"arguments": args.context_arguments}
    ctx.step = "completion/complete"
    pending = await session.begin_request("completion/complete", params)
    result, raw = await finish_exact(session, ctx, pending)
    completion = result.get("completion")
    if not isinstance(completion, dict) or not isinstance(completion.get("values"), list):
        ctx.warn("malformed result: completion/complete has no completion.values array")
        completion = completion if isinstance(completion, dict) else {}
    values = completion.get("values") if isinstance(completion.get("values"), list) else []
    odd = sum(1 for value in values if not isinstance(value, str))
    if odd:
        ctx.warn(
            f"malformed result: {odd} of the {len(values)} values {'is' if odd == 1 else 'are'} not a string"
            + ("" if ctx.options.json else " (printed as JSON)")
        )
    if len(values) > MAX_VALUES:
        ctx.warn(f"the server sent {len(values)} values; the spec allows at most {MAX_VALUES}")
    if ctx.options.json:
        out(raw or json.dumps(result))
        return exit_codes.OK
    for value in values:  # one a line: a string that would break the line (a newline) is printed as JSON
        out(value if isinstance(value, str) and value.isprintable() else json.dumps(value, ensure_ascii=False))
    if not values:
        ctx.note("no completions")
    facts = []
    if "total" in completion:
        facts.append(f"total: {json.dumps(completion['total'])}")
    if "hasMore" in completion:
        facts.append(f"hasMore: {json.dumps(completion['hasMore'])}")
    if facts:
        out(f"({', '.join(facts)})")
    return exit_codes.OK


async def cmd_subscribe(session: McpSession, ctx: Context, args: Any) -> int:
    uri = args.uri
    resources = session.capabilities.get("resources")
    if session.era == "legacy" and not (isinstance(resources, dict) and resources.get("subscribe") is True):
        ctx.warn("the server does not declare resources.subscribe; subscribing anyway")
    send, receive = anyio.create_memory_object_stream[tuple[ResourceUpdated, Any]](UPDATE_BUFFER)
    dropped = malformed = others = 0

    def on_event(event: Any) -> None:
        nonlocal dropped, malformed, others
        if isinstance(event, ResourceUpdated):
            params = _update_params(session, event)
            if params is not None and not isinstance(params.get("uri"), str):  # the session made it a string
                malformed += 1
                if malformed <= MALFORMED_SAID:
                    ctx.warn(
                        "ignored a malformed notifications/resources/updated: uri is not a string "
                        f"({json.dumps(params.get('uri'))})"
                    )
                return
            if not covers(uri, event.uri):  # not the resource subscribed to: said, never counted
                others += 1
                if others <= MALFORMED_SAID:
                    ctx.warn(f"ignored an update of {event.uri[:200]}: not {uri} nor a resource under it")
                return
            try:
                send.send_nowait((event, params))
            except anyio.WouldBlock:  # a flood the output cannot keep up with: counted, said at the end
                dropped += 1
            except anyio.ClosedResourceError:
                pass
        elif isinstance(event, ServerClosed):  # the server went away: stop waiting
            send.close()

    remove = session.add_listener(on_event)
    ctx.step = "resources/subscribe"
    limit = ctx.options.timeout
    if args.for_seconds is not None and (limit is None or args.for_seconds < limit):
        limit = args.for_seconds  # --for bounds the whole command, an unanswered subscribe too (exit 4)
    await session.subscribe(uri, timeout=limit)
    ctx.step = ""
    if session.era == "modern":
        await _check_acknowledged(session, ctx, uri)
    refused = getattr(_http_stream(session), "standalone_refused", None) if session.era == "legacy" else None
    if refused:
        ctx.warn(f"{refused}: updates of {uri} can come only on the replies to later requests (--call)")
    gone = None
    probe = _ListenProbe(session)
    until = f" for {args.for_seconds:g} s" if args.for_seconds else " until Ctrl-C"
    ctx.note(f"subscribed to {uri}{until}{f' or {args.count} updates' if args.count else ''}")
    seen = 0
    feed = LineFeed(UPDATE_BUFFER)
    try:
        with anyio.move_on_after(args.for_seconds):
            if getattr(args, "call", None):
                await _call_trigger(session, ctx, args.call, args.call_arguments)
            while True:
                event = None
                with anyio.move_on_after(STREAM_CHECK):
                    try:
                        event = await receive.receive()
                    except anyio.EndOfStream:
                        break
                if event is None:  # over HTTP: has the stream carrying the updates gone with the server?
                    gone = _stream_gone(session) or await probe.gone()
                    if gone is not None:
                        break
                    continue
                # a flood wakes us seldom: print all that waits at once, with one flush
                batch = [event]
                while args.count is None or seen + len(batch) < args.count:
                    try:
                        batch.append(receive.receive_nowait())
                    except (anyio.WouldBlock, anyio.EndOfStream):
                        break
                if not feed.put("".join(_update_line(session, ctx, each) for each in batch), len(batch)):
                    if feed.broken:  # the reader went away (| head): nothing more to do
                        break
                    dropped += len(batch)  # stdout is not read fast enough (or at all)
                    continue
                seen += len(batch)
                if args.count is not None and seen >= args.count:
                    break
    finally:
        remove()
        send.close()
        # after a stop signal the user is waiting: a short wait (then the server is shut down anyway)
        wait = UNSUBSCRIBE_WAIT if stopping.received is None else STOPPED_UNSUBSCRIBE_WAIT
        with anyio.CancelScope(shield=True):
            with anyio.move_on_after(wait) as unsubscribing:
                try:
                    if session.closed is None:
                        await session.unsubscribe(uri)
                except (InspectorError, OSError) as exc:
                    ctx.warn(f"resources/unsubscribe {uri} failed: {exc}")
            if unsubscribing.cancelled_caught:
                ctx.warn(f"resources/unsubscribe {uri} got no answer within {wait:g} s (given up)")
            wait = OUTPUT_WAIT if stopping.received is None else STOPPED_UNSUBSCRIBE_WAIT
            if not await feed.drain(wait):
                ctx.warn(
                    f"{feed.waiting} update line{'s' if feed.waiting != 1 else ''} not written: "
                    f"stdout was not read for {wait:g} s (given up)"
                )
        # said after Ctrl-C too (the command is being cancelled then: this is its only chance)
        ctx.note(f"{seen} update{'s' if seen != 1 else ''} of {uri}")
        if others > MALFORMED_SAID:
            ctx.warn(f"{others} updates of other URIs than {uri} ignored in all")
        if malformed > MALFORMED_SAID:
            ctx.warn(f"{malformed} malformed notifications/resources/updated ignored in all (uri not a string)")
        if dropped:
            ctx.warn(
                f"{dropped} more update{'s' if dropped != 1 else ''} of {uri} not printed: they came faster "
                f"than stdout took them (more than {UPDATE_BUFFER} waiting)"
            )
    if session.closed is not None:
        closed = session.closed
        raise ConnectionLost(closed.reason, closed.exit_code, closed.signal, closed.stderr_tail)
    if gone is not None:
        raise ConnectionLost(f"no update can arrive any more: {gone}")
    return exit_codes.OK


def _http_stream(session: McpSession) -> Any:
    """The Streamable HTTP transport under the session (HttpTransport wraps it), or whatever it is."""
    return getattr(session.transport, "inner", session.transport)


class _ListenProbe:
    """2026-07-28 over HTTP: the session reopens a broken subscriptions/listen stream for ever
    (with a backoff); while it is down, a round trip now and then (server/discover) tells a
    server that is gone (it cannot be reached) from one that ended the stream."""

    def __init__(self, session: McpSession) -> None:
        self.session = session
        self.last = anyio.current_time()

    async def gone(self) -> str | None:
        session = self.session
        if session.era != "modern" or getattr(session.transport, "url", None) is None:
            return None
        listening = session.subscriptions.pending
        if (listening is not None and not listening.done) or anyio.current_time() - self.last < PROBE_EVERY:
            return None
        self.last = anyio.current_time()
        try:
            with anyio.move_on_after(PROBE_WAIT):
                await session.ping(timeout=PROBE_WAIT)
        except (TransportFailure, ConnectionLost) as exc:
            return f"the subscriptions/listen stream is down and the server cannot be reached: {exc}"
        except InspectorError:  # it answered (an error, a timeout): not gone
            return None
        return None


def _stream_gone(session: McpSession) -> str | None:
    """Why the standalone GET stream, which carries a legacy Streamable HTTP server's updates,
    was given up (the server unreachable: it died), or None."""
    return getattr(_http_stream(session), "standalone_gone", None) if session.era == "legacy" else None


async def _call_trigger(session: McpSession, ctx: Context, name: str, arguments: dict[str, Any]) -> None:
    """``--call TOOL``: one tool call in the same session once subscribed (a server that sends
    updates only after some tool ran, e.g. server-everything's toggle-subscriber-updates)."""
    try:
        await check_call(session, ctx, name, arguments)  # the tool list: its taskSupport, as call does
    except ToolExcluded as exc:
        raise UsageError(str(exc)) from None
    ctx.step = f"tools/call {name}"
    # a tool that runs as a task is followed to its result, bounded by --timeout as a whole
    may_be_task = session.task_support(name) != "forbidden"
    pending = await session.begin_tool_call(name, arguments, max_total=ctx.options.timeout if may_be_task else None)
    outcome = await session.finish_tool_call(pending)
    ctx.step = ""
    texts = [block.block.get("text") for block in outcome.view.blocks if block.type == "text"]
    summary = render.first_line(texts[0]) if texts and isinstance(texts[0], str) else "(no text)"
    if outcome.view.is_error:
        ctx.warn(f"--call {name} returned isError: {summary}")
    else:
        ctx.note(f"called {name}: {summary}")


async def _check_acknowledged(session: McpSession, ctx: Context, uri: str) -> None:
    """2026-07-28: wait (a little) for the listen stream's acknowledgment; a URI the server
    does not honour gets a warning, since no update of it will come."""
    with anyio.move_on_after(min(ACK_WAIT, ctx.options.timeout or ACK_WAIT)):
        await session.subscriptions.acknowledgment_for(uri)
    ack = session.subscription_ack
    if ack is None:
        ctx.warn("subscriptions/listen was not acknowledged yet: updates may not come")
        return
    honoured = ack.get("resourceSubscriptions")
    if not (isinstance(honoured, list) and uri in honoured):
        ctx.warn(
            f"the server did not acknowledge the subscription to {uri} (subscriptions/listen): "
            "no updates of it will come"
        )


def _update_params(session: McpSession, event: ResourceUpdated) -> dict[str, Any] | None:
    """The notification's params as sent (None when its entry is gone from the store)."""
    entry = session.store.get(event.seq)
    if entry is None:
        return None
    try:
        params = json.loads(entry.raw).get("params")
    except (ValueError, AttributeError):
        return None
    return params if isinstance(params, dict) else None


def _update_line(session: McpSession, ctx: Context, update: tuple[ResourceUpdated, Any]) -> str:
    """One update as its output line (with the newline)."""
    event, params = update
    if ctx.options.json:
        return json.dumps(params if isinstance(params, dict) else {"uri": event.uri}, ensure_ascii=False) + "\n"
    entry = session.store.get(event.seq)
    stamp = datetime.fromtimestamp(entry.ts if entry is not None else session.store.now()).strftime("%H:%M:%S.%f")[:-3]
    return f"{stamp} updated {event.uri}\n"


COMMANDS = {
    "templates": cmd_templates,
    "read": cmd_read,
    "complete": cmd_complete,
    "subscribe": cmd_subscribe,
}
