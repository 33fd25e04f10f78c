"""URL elicitation required (2025-11-25): a ``tools/call`` that fails with JSON-RPC error
``-32042`` whose ``data.elicitations`` lists URL-mode elicitations (``elicitationId``, ``url``,
``message``) the user must complete before the call can succeed, and the server's
``notifications/elicitation/complete {elicitationId}`` that says one of them is done.

``finish_tool_call`` raises :class:`UrlElicitationRequired` (an ``RpcError``, so every caller
that handled the plain error still does) with the URLs read from ``data`` and the call to
retry (name and arguments). The session keeps the ids the server said are complete
(``session.completed_elicitations``) and emits ``ElicitationCompleted`` for each
(:func:`note_complete`, called from the session's notification listener); a URL-mode
``elicitation/create`` the user accepted is completed the same way.

:func:`url_facts` says where a URL really goes (its host) and what is odd about it, for the
TUI's screens and the CLI's message alike; nothing here ever fetches a URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

from ..base.errors import RpcError
from ..traffic.entry import TrafficEntry
from ..traffic.store import TrafficStore
from .events import ELICITATION_COMPLETE, ElicitationCompleted, SessionEvent


class ElicitingSession(Protocol):
    """What noting a completed URL elicitation needs of the session (mcp_session.py imports this)."""

    @property
    def store(self) -> TrafficStore: ...
    @property
    def completed_elicitations(self) -> dict[str, int]: ...

    def emit(self, event: SessionEvent) -> None: ...


URL_ELICITATION_REQUIRED = -32042
COMPLETE = ELICITATION_COMPLETE
MAX_LISTED = 20  # URLs read from one error (a hostile server may list thousands)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def shown(text: str) -> str:
    """Server text made safe for one terminal line: control and bidi characters become spaces."""
    return _UNSAFE.sub(" ", text)


@dataclass
class UrlFacts:
    """What the user should know about a URL before opening it."""

    url: str  # as sent, made safe for the terminal
    host: str  # the host it really goes to ("" when there is none)
    can_open: bool
    warnings: list[str]


def url_facts(url: Any) -> UrlFacts:
    """The host of a URL-mode elicitation's ``url`` and what is odd about it (never fetched)."""
    if not isinstance(url, str) or not url:
        return UrlFacts("", "", False, ["the server sent no URL"])
    text = shown(url)
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError as exc:
        return UrlFacts(text, "", False, [f"not a valid URL: {exc}"])
    warnings: list[str] = []
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not host:
        warnings.append(f"not a web address ({shown(scheme) or 'no scheme'}): it will not be opened")
        return UrlFacts(text, shown(host), False, warnings)
    if scheme == "http":
        warnings.append("http, not https: the page is not encrypted")
    if "@" in parts.netloc:
        warnings.append(f"the address has a user part before the host: it really goes to {shown(host)}")
    if not host.isascii() or any(label.startswith("xn--") for label in host.split(".")):
        try:
            ascii_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            ascii_host = "(not a valid international name)" if not host.isascii() else host
        warnings.append(f"an international host name, spelled {ascii_host} in ASCII: check it is the site you expect")
    if url != text or any(ch.isspace() for ch in url):
        warnings.append("the URL holds spaces or control characters (shown as spaces): it will not be opened")
    where = shown(f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
    return UrlFacts(text, where, url == text and not any(ch.isspace() for ch in url), warnings)


@dataclass(frozen=True)
class RequiredUrl:
    """One URL elicitation of a ``-32042`` error, as the server sent it (``url`` is the raw
    value: only a string that ``url_facts`` finds safe is ever opened)."""

    elicitation_id: str | None
    url: Any
    message: str | None

    @property
    def facts(self) -> UrlFacts:
        return url_facts(self.url)


def read_elicitations(data: Any) -> tuple[list[RequiredUrl], list[str]]:
    """The URL elicitations of a ``-32042`` error's ``data`` and what is wrong with them
    (``data.elicitations`` missing, not a list, an entry without an ``elicitationId``...)."""
    listed = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        return [], ["the error's data has no elicitations list (2025-11-25: data.elicitations)"]
    found: list[RequiredUrl] = []
    problems: list[str] = []
    for index, item in enumerate(listed[:MAX_LISTED]):
        if not isinstance(item, dict):
            problems.append(f"elicitations[{index}] is not an object")
            continue
        ident = item.get("elicitationId")
        if not isinstance(ident, str) or not ident:
            problems.append(f"elicitations[{index}] has no elicitationId: its completion cannot be told")
            ident = None
        if item.get("mode", "url") != "url":
            problems.append(f"elicitations[{index}] has mode {shown(str(item.get('mode')))[:40]!r}, not url")
        message = item.get("message")
        found.append(RequiredUrl(ident, item.get("url"), message if isinstance(message, str) else None))
    if len(listed) > MAX_LISTED:
        problems.append(f"{len(listed)} elicitations listed: only the first {MAX_LISTED} are shown")
    return found, problems


class UrlElicitationRequired(RpcError):
    """A ``tools/call`` refused with ``-32042``: the URLs to complete first, and the call to retry."""

    def __init__(self, error: RpcError, name: str, arguments: dict[str, Any]) -> None:
        super().__init__(error.code, error.message, error.data, error.error)
        self.name = name
        self.arguments = arguments
        self.elicitations, self.problems = read_elicitations(error.data)

    @property
    def ids(self) -> set[str]:
        return {item.elicitation_id for item in self.elicitations if item.elicitation_id is not None}

    def describe(self) -> list[str]:
        """Lines for a terminal: what to do, then each URL with its host and message."""
        count = len(self.elicitations)
        lines = [
            f"the server needs {'this URL' if count == 1 else f'these {count} URLs'} opened and completed "
            f"in a browser first, then the same call again:"
            if count
            else "the server needs a URL completed first but listed none it could show"
        ]
        for item in self.elicitations:
            facts = item.facts
            lines.append(f"  {facts.url or '(no URL)'}   (opens a page on {facts.host or 'no host'})")
            if item.message:
                lines.append(f"    {shown(item.message)[:300]}")
            lines.extend(f"    warning: {warning}" for warning in facts.warnings)
        lines.extend(f"  note: {problem}" for problem in self.problems)
        return lines


def url_required(error: RpcError, call_params: dict[str, Any] | None) -> RpcError:
    """``error`` as :class:`UrlElicitationRequired` when it is a ``-32042``, else unchanged
    (``call_params``: the ``tools/call`` params, name and arguments)."""
    if error.code != URL_ELICITATION_REQUIRED or isinstance(error, UrlElicitationRequired):
        return error
    params = call_params if isinstance(call_params, dict) else {}
    arguments = params.get("arguments")
    return UrlElicitationRequired(error, str(params.get("name", "")), arguments if isinstance(arguments, dict) else {})


def note_complete(session: ElicitingSession, params: dict[str, Any] | None, entry: TrafficEntry) -> None:
    """A ``notifications/elicitation/complete``: kept in ``session.completed_elicitations`` and
    emitted as ``ElicitationCompleted``; without an ``elicitationId`` the frame is marked."""
    ident = (params or {}).get("elicitationId")
    if not isinstance(ident, str) or not ident:
        session.store.flag(entry, "notifications/elicitation/complete without an elicitationId string (2025-11-25)")
        return
    session.completed_elicitations[ident] = entry.seq
    session.emit(ElicitationCompleted(ident, entry.seq))
