"""Errors the engine raises to its callers, each with a message a person can act on."""

from __future__ import annotations

import re
from typing import Any

from .jsonrpc import ERROR_NAMES

QUOTE_LIMIT = 300  # characters of a server's stderr line quoted in a message


def quote_line(line: str, limit: int = QUOTE_LIMIT) -> str:
    """A line of the server's output cut to fit in a message (a 20 MB stderr line
    must not become a 20 MB error)."""
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… [cut, {len(line)} characters]"


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """Server text made safe to print: control characters (terminal escape sequences,
    bidi overrides) shown as ``\\xNN``/``\\uNNNN`` instead of acting on the terminal."""
    return _CONTROL.sub(lambda m: ascii(m.group())[1:-1], text)


class InspectorError(Exception):
    """Base class for every error the core reports."""


class RpcError(InspectorError):
    """The server answered with a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: Any = None, error: dict[str, Any] | None = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        self.error = error if error is not None else {"code": code, "message": message}
        name = ERROR_NAMES.get(code)
        super().__init__(f"JSON-RPC error {code}{f' ({name})' if name else ''}: {message}")


class ProtocolViolation(InspectorError):
    """The server answered a request with a frame that breaks JSON-RPC or MCP."""


class RequestTimeout(InspectorError):
    def __init__(self, method: str, seconds: float, hard_limit: bool = False) -> None:
        self.method = method
        self.seconds = seconds
        self.hard_limit = hard_limit
        what = "the maximum total time" if hard_limit else "the timeout"
        super().__init__(
            f"{method} timed out: no response within {what} of {seconds:g} s (notifications/cancelled was sent)"
        )


class RequestCancelled(InspectorError):
    def __init__(self, method: str, reason: str) -> None:
        self.method = method
        self.reason = reason
        super().__init__(f"{method} was cancelled: {reason}")


class ConnectionLost(InspectorError):
    """The server went away (exited, was killed, closed its output)."""

    def __init__(
        self, reason: str, exit_code: int | None = None, signal: int | None = None, stderr_tail: list[str] | None = None
    ) -> None:
        self.reason = reason
        self.exit_code = exit_code
        self.signal = signal
        self.stderr_tail = [quote_line(line) for line in stderr_tail or ()]
        text = reason
        if self.stderr_tail:
            text += "\nlast stderr lines:\n" + "\n".join(f"  {line}" for line in self.stderr_tail[-5:])
        super().__init__(text)


class ConnectError(InspectorError):
    """Connecting or the handshake failed (bad command, unsupported version...)."""


class EraNotSpoken(ConnectError):
    """The handshake of the era that was asked for (``--era legacy`` or ``--era modern``) was
    answered with a refusal that says the server speaks the other era: ``initialize`` rejected
    with -32601 or -32022, ``server/discover`` answered with an error that is not a modern one or
    listing legacy revisions only. The message is the single-era command's error;
    :meth:`explain` says it as a fact about the server (``--era both`` makes it a note)."""

    def __init__(self, message: str, *, era: str, request: str, answer: str) -> None:
        self.era = era
        self.request = request  # what was tried: "server/discover (protocol version 2026-07-28)"
        self.answer = answer  # what the server answered, in its words
        super().__init__(message)

    def explain(self, aside: str = "") -> str:
        """``the server does not speak the modern era (ASIDE): it answered REQUEST with ANSWER``."""
        return (
            f"the server does not speak the {self.era} era{f' ({aside})' if aside else ''}: "
            f"it answered {self.request} with {self.answer}"
        )


class TransportFailure(InspectorError):
    """The transport could not deliver a request or bring back its reply (an HTTP
    error status without a JSON-RPC body, a cut stream, a refused connection)."""

    def __init__(self, method: str, reason: str, status: int | None = None, meta: dict[str, Any] | None = None) -> None:
        self.method = method
        self.reason = reason
        self.status = status
        #: The Undelivered event's meta (``legacy_hint``: the reply looked like a legacy server's).
        self.meta = meta or {}
        super().__init__(f"{method} failed: {reason}")

    @property
    def legacy_hint(self) -> bool:
        return bool(self.meta.get("legacy_hint"))


class InputDeclined(InspectorError):
    """A 2026-07-28 request that ends because the client declined one of the server's
    input requests (MRTR) that has no "declined" answer: a ``sampling/createMessage`` or
    ``roots/list`` the user or the headless policy refused. There is nothing to send
    back, so the request is not retried (``client/sampling.mdx`` §Error Handling). Not
    the server's fault: the server behaved as the spec says."""

    def __init__(self, method: str, key: str, input_method: str, reason: str) -> None:
        self.method = method
        self.key = key
        self.input_method = input_method
        self.reason = reason
        super().__init__(
            f"{method} was not retried: the client declined the server's {input_method} input request "
            f"{key!r} ({reason}); 2026-07-28 has no refusal to send back, so the request ends here"
        )


class ToolExcluded(InspectorError):
    """A tool left out of the list because its definition breaks the spec (over 2026-07-28
    HTTP: invalid ``x-mcp-header`` annotations); calling it is refused."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        super().__init__(f"tool {name!r} was excluded from the list and is not called: {reason}")


class MalformedTask(ProtocolViolation):
    """A task the server sent (a CreateTaskResult, a ``tasks/get`` or ``tasks/cancel``
    result, a status notification) that breaks the shape the spec gives it: no
    ``taskId``, an unknown ``status``, a failed task without its error."""


class TaskCancelled(RequestCancelled):
    """A tool call run as a task ended cancelled: we sent ``tasks/cancel`` (the user, the
    caller), or the server reported the task ``cancelled``. A RequestCancelled, so callers
    that handle a cancelled request handle this one too."""

    def __init__(self, method: str, task_id: str, reason: str) -> None:
        self.task_id = task_id
        RequestCancelled.__init__(self, method, reason)
        self.args = (f"{method} (task {task_id}) was cancelled: {reason}",)


class TaskTimedOut(RequestTimeout):
    """A tool call run as a task did not reach a terminal status within the maximum total
    time the caller gave (``max_total``); ``tasks/cancel`` was sent."""

    def __init__(self, method: str, task_id: str, seconds: float, status: str) -> None:
        self.task_id = task_id
        self.status = status
        RequestTimeout.__init__(self, method, seconds, True)
        self.args = (
            f"{method} timed out: task {task_id} was still {status!r} after the maximum total time of "
            f"{seconds:g} s (tasks/cancel was sent)",
        )
