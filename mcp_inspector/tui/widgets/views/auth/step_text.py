"""How the Auth view writes an authorization flow: the head line, one row per step, and a
step's detail (request, response, details, what the spec expects), as Rich renderables.

Everything here reads an ``AuthLog`` / ``AuthStep`` (core/auth/model.py) and nothing else;
the steps are masked by the code that fills them (``AuthHttp``), so no credential is here
to hide. ``mask`` (snapshot mode) replaces what changes from run to run: loopback ports,
times, durations.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from rich.console import Group, RenderableType
from rich.json import JSON
from rich.text import Text

from .....core.auth.model import AuthLog, AuthStep

#: the mark and style of each step status (and "waiting": the step step-by-step mode holds)
MARKS = {
    "running": ("…", "bold cyan"),
    "ok": ("✓", "bold green"),
    "warning": ("!", "bold yellow"),
    "failed": ("✗", "bold red"),
    "skipped": ("–", "dim"),
    "waiting": ("⏸", "bold reverse"),
}
STATUS_WORDS = {
    "running": "running",
    "ok": "ok",
    "warning": "ok, with deviations",
    "failed": "failed",
    "skipped": "skipped",
    "waiting": "waiting for n / enter (step-by-step)",
}
SHOWN_JSON = 60_000  # characters of one document shown (a step's documents are capped already)
_PORT = re.compile(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+")


# control characters (terminal escape sequences, bidi overrides) a server may put in a document;
# newlines and tabs stay (a text body has lines)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def identity(text: str) -> str:
    """Text from a step made safe to draw: control characters as ``\\xNN`` (every string the
    view shows goes through this or ``mask_volatile``)."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], text)


def mask_volatile(text: str) -> str:
    """``identity``, and loopback ports (ephemeral in tests) as PORT, so a snapshot is stable."""
    return _PORT.sub(r"\1:PORT", identity(text))


def mark(status: str) -> tuple[str, str]:
    symbol, style = MARKS.get(status, ("?", ""))
    return symbol, style


def failed_step(log: AuthLog) -> AuthStep | None:
    """The step the newest flow failed at (the last failed step of that flow)."""
    flow = log.flows
    for step in reversed(log.steps):
        if step.details.get("flow") != flow:
            break
        if step.status == "failed":
            return step
    return None


def head_text(
    log: AuthLog | None,
    transport: str,
    waiting: bool,
    step_mode: bool,
    mask: Callable[[str], str] = identity,
    who: str = "",
) -> Text:
    """One line: what the flow is doing, or why there is none; ``who``: the client and scopes
    (when authorized)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append("Auth  ", style="bold")
    if log is None or (not log.steps and log.state == "none"):
        if transport == "recording":
            text.append("a recording: authorization is shown on a live connection")
        elif transport == "stdio":
            text.append("not an HTTP server: stdio servers are not authorized with OAuth")
        elif log is None:
            text.append("no authorization for this connection")
        else:
            text.append("not needed: this server did not ask for authorization")
    elif log.state == "authorizing":
        text.append("authorizing", style="bold yellow")
        if log.summary:
            text.append(f": {mask(log.summary)}")
    elif log.state == "authorized":
        text.append("authorized", style="bold green")
        if who:
            text.append(f" {mask(who)}", style="bold")
        if log.summary:
            text.append(f"{' · ' if who else ': '}{mask(log.summary)}")
    elif log.state == "failed":
        failed = failed_step(log)
        text.append(f"failed at step {failed.number}" if failed is not None else "failed", style="bold red")
        if log.summary:
            text.append(f": {mask(log.summary)}")
    else:
        text.append(mask(log.summary) or f"{len(log.steps)} steps")
    if step_mode:
        text.append("   step-by-step" + (": n / enter runs the next step" if waiting else ""), style="bold reverse")
    return text


def none_text(log: AuthLog | None, transport: str, spec_url: str | None) -> str:
    """What the view says when there is no step to show."""
    if transport == "recording":
        return (
            "This is a recording (--open): the Auth view shows the authorization flows of a live connection "
            "to a remote server (mcp-inspector --url URL)."
        )
    if transport == "stdio" or (transport == "" and spec_url is None and log is None):
        return (
            "This server runs over stdio: it is not an HTTP server, so there is no authorization to show. "
            "The Auth view shows the OAuth flow of a remote server (mcp-inspector --url URL) that answers 401."
        )
    if log is None:
        return (
            "This server did not ask for authorization: no OAuth flow ran for this connection "
            "(or authorization is turned off with --no-auth)."
        )
    if log.state == "authorized":
        return (
            "Authorized with stored credentials: no flow ran in this session. "
            "r runs the flow again (step by step with s first), d clears the stored credentials."
        )
    return (
        "This server did not ask for authorization: no request was answered with 401 so far. "
        "r starts a flow now anyway (discovery, registration, authorization)."
    )


def step_row(step: AuthStep, status: str | None = None, mask: Callable[[str], str] = identity) -> Text:
    """``number mark kind title`` on one line."""
    status = status or step.status
    symbol, style = mark(status)
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{step.number:>2} ", style="dim")
    text.append(symbol, style=style)
    text.append(f" {mask(str(step.kind)):<17.17} ", style="bold")
    text.append(mask(" ".join(str(step.title).split())))
    return text


def _json(value: Any, mask: Callable[[str], str]) -> RenderableType:
    try:
        shown = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except RecursionError:
        return Text("(a document nested too deeply to show)", style="italic")
    except (TypeError, ValueError):
        return Text(mask(str(type(value).__name__)) + " (not JSON)", style="italic")
    if len(shown) > SHOWN_JSON:
        return Text(mask(shown[:SHOWN_JSON]) + "\n… (cut)")
    try:
        text = JSON(mask(shown), indent=2).text
    except Exception:  # not JSON after masking (cannot happen with ports, but a view must not break)
        return Text(mask(shown))
    text.no_wrap = False
    text.overflow = "fold"  # a long URL or token claim wraps instead of being cut at the pane's edge
    return text


def _section(title: str) -> Text:
    return Text(f"\n{title}", style="bold underline")


VOLATILE_HEADERS = frozenset({"date", "expires", "last-modified", "x-request-id", "mcp-session-id"})


def _headers(headers: Any, mask: Callable[[str], str]) -> Text:
    volatile = mask is not identity
    text = Text()
    pairs = headers.items() if isinstance(headers, dict) else headers if isinstance(headers, list) else []
    for pair in pairs:
        try:
            name, value = pair
        except (TypeError, ValueError):
            continue
        text.append(f"  {mask(str(name))}: ", style="bold dim")
        shown = "…" if volatile and str(name).lower() in VOLATILE_HEADERS else mask(str(value))
        text.append(shown + "\n")
    text.rstrip()
    return text


def _body(body: Any, mask: Callable[[str], str]) -> RenderableType:
    if isinstance(body, (dict, list)):
        return _json(body, mask)
    return Text(mask(str(body))[:SHOWN_JSON])


def _parameters(url: str, mask: Callable[[str], str]) -> Text | None:
    """The query parameters of a URL, one a line (the authorization URL, a redirect)."""
    try:
        query = urlsplit(url).query
    except ValueError:
        return None
    pairs = parse_qsl(query, keep_blank_values=True)
    if not pairs:
        return None
    text = Text()
    width = min(24, max(len(name) for name, _ in pairs))
    for name, value in pairs:
        text.append(f"  {mask(name):<{width}} ", style="bold")
        text.append(mask(value) + "\n")
    text.rstrip()
    return text


def _detail_value(value: Any, mask: Callable[[str], str]) -> RenderableType:
    if isinstance(value, (dict, list)) and value:
        return _json(value, mask)
    if isinstance(value, list):
        return Text("[]")
    return Text(mask(str(value)))


def claim_times(value: Any) -> str:
    """A decoded JWT's iat / nbf / exp as UTC times, with how far away exp is."""
    claims = value.get("claims", value) if isinstance(value, dict) else None
    if not isinstance(claims, dict):
        return ""
    shown = []
    for name in ("iat", "nbf", "exp"):
        moment = claims.get(name)
        if isinstance(moment, (int, float)) and not isinstance(moment, bool) and 0 < moment < 1e11:
            when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(moment))
            if name == "exp":
                left = moment - time.time()
                when += f" (in {left / 60:.0f} min)" if left >= 0 else f" (expired {-left / 60:.0f} min ago)"
            shown.append(f"  {name} {when}")
    return "\n".join(shown)


def duration_text(step: AuthStep) -> str:
    if step.ended is None:
        return ""
    seconds = max(0.0, step.ended - step.started)
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def step_detail(
    step: AuthStep, status: str | None = None, mask: Callable[[str], str] = identity, volatile: bool = False
) -> RenderableType:
    """Everything about one step, top to bottom."""
    status = status or step.status
    symbol, style = mark(status)
    parts: list[RenderableType] = []
    head = Text()
    head.append(f"Step {step.number}", style="bold")
    head.append(f" · {mask(str(step.kind))} · ")
    head.append(f"{symbol} {STATUS_WORDS.get(status, status)}", style=style)
    took = "" if volatile else duration_text(step)
    if took:
        head.append(f" · {took}", style="dim")
    flow = step.details.get("flow")
    if isinstance(flow, int) and flow > 1:
        head.append(f" · flow {flow}", style="dim")
    parts.append(head)
    parts.append(Text(mask(str(step.title))))
    if status == "waiting":
        parts.append(
            Text("\nStep-by-step: this step runs when you press n (or enter). s turns step-by-step off.", style="bold")
        )
    findings = step.findings
    if findings:
        parts.append(_section("What the spec expects"))
        for finding in findings:
            line = Text("  ")
            line.append("✓ " if finding.ok else "✗ ", style="bold green" if finding.ok else "bold red")
            line.append(mask(finding.text))
            if finding.spec:
                line.append(f"  ({mask(str(finding.spec))})", style="dim italic")
            parts.append(line)
    request = step.request
    if isinstance(request, dict):
        parts.append(_section("Request"))
        url = str(request.get("url") or "")
        line = Text("  ")
        line.append(mask(str(request.get("method") or "")), style="bold")
        line.append(f" {mask(url)}")
        parts.append(line)
        params = _parameters(url, mask) if url else None
        if params is not None:
            parts.append(Text("  parameters:", style="dim"))
            parts.append(params)
        if request.get("headers"):
            parts.append(_headers(request["headers"], mask))
        if request.get("body") not in (None, "", {}):
            parts.append(Text("  body:", style="dim"))
            parts.append(_body(request["body"], mask))
    response = step.response
    if isinstance(response, dict):
        parts.append(_section("Response"))
        status_code = response.get("status")
        line = Text("  ")
        good = isinstance(status_code, int) and 200 <= status_code < 400
        line.append(
            mask(f"{status_code} {response.get('reason') or ''}".rstrip()), style="bold green" if good else "bold red"
        )
        parts.append(line)
        if response.get("headers"):
            parts.append(_headers(response["headers"], mask))
        if response.get("body") not in (None, ""):
            parts.append(Text("  body:", style="dim"))
            parts.append(_body(response["body"], mask))
    details = {key: value for key, value in step.details.items() if key != "flow"}
    if details:
        parts.append(_section("Details"))
        for key, value in details.items():
            label = Text(f"  {mask(str(key)).replace('_', ' ')}: ", style="bold")
            if isinstance(value, (dict, list)) and value:
                parts.append(label)
                parts.append(_detail_value(value, mask))
                times = None if volatile else claim_times(value)
                if times:
                    parts.append(Text(times, style="dim"))
            else:
                label.append_text(_detail_value(value, mask))  # type: ignore[arg-type]  # _detail_value returns Text for the values it is given here
                parts.append(label)
    return Group(*parts)


def step_json(step: AuthStep) -> str:
    """A step as JSON (for the clipboard): what the view shows, nothing more (it is masked)."""
    data = {
        "number": step.number,
        "kind": step.kind,
        "title": step.title,
        "status": step.status,
        "started": step.started,
        "ended": step.ended,
        "request": step.request,
        "response": step.response,
        "details": step.details,
        "findings": [{"ok": f.ok, "text": f.text, "spec": f.spec} for f in step.findings],
        "exchange_id": step.exchange_id,
    }
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)
