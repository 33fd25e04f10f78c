"""Spans for the frames a proxy forwards (``mcp-inspector proxy``): the API the proxy's recorder calls.

The proxy never changes a frame: the host's ``traceparent`` goes to the server untouched. Each
request either side sends gets a CLIENT span parented on the ``traceparent`` in its own
``params._meta`` (the host's span, when the host traces), ended by the other side's reply; each
notification gets one ended at once. So in the host's trace the proxy's span sits under the host's,
beside the server's spans (which are parented on the host's span too, the context being unchanged).

    spans = RelaySpans(telemetry.active(), Peer("pipe"))
    spans.frame(from_host=True, kind="request", msg_id=1, method="tools/call", message=parsed)
    spans.frame(from_host=False, kind="response", msg_id=1, method=None, message=parsed)
    spans.close()   # spans still open end as connection_lost

``kind``: "request", "notification", "response" or "error" (anything else is ignored).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .api import Operation, Peer, Telemetry

OPEN_CAP = 10_000  # requests awaiting a reply tracked at most (the oldest span is ended as unanswered)


class RelaySpans:
    def __init__(self, telemetry: Telemetry, peer: Peer) -> None:
        self.telemetry = telemetry
        self.peer = peer
        self._open: OrderedDict[tuple[bool, bool, Any], tuple[Operation, str]] = OrderedDict()

    def frame(self, from_host: bool, kind: str, msg_id: Any, method: str | None, message: Any) -> None:
        params = message.get("params") if isinstance(message, dict) else None
        params = params if isinstance(params, dict) else None
        if kind == "request" and method is not None:
            operation = self.telemetry.start(method, params, msg_id, self.peer, parent=_meta(params))
            self._open[(from_host, isinstance(msg_id, str), msg_id)] = (operation, method)
            while len(self._open) > OPEN_CAP:
                old, _ = self._open.popitem(last=False)[1]
                old.finish("unanswered", "no reply before the proxy stopped tracking it")
        elif kind == "notification" and method is not None:
            self.telemetry.start(method, params, None, self.peer, parent=_meta(params)).finish()
        elif kind in ("response", "error"):
            found = self._open.pop((not from_host, isinstance(msg_id, str), msg_id), None)
            if found is not None:
                self._end(found[0], found[1], message)

    def _end(self, operation: Operation, method: str, message: Any) -> None:
        error = message.get("error") if isinstance(message, dict) else None
        result = message.get("result") if isinstance(message, dict) else None
        if isinstance(error, dict):
            code = error.get("code")
            text = error.get("message")
            code = code if isinstance(code, int) and not isinstance(code, bool) else None
            operation.finish(str(code) if code is not None else "error", text if isinstance(text, str) else None, code)
            return
        if isinstance(result, dict):
            if method == "initialize" and isinstance(result.get("protocolVersion"), str):
                self.peer.protocol_version = result["protocolVersion"]
            if method == "tools/call" and result.get("isError") is True:
                operation.finish("tool_error")
                return
        operation.finish()

    def close(self) -> None:
        """The session ended: spans still waiting for a reply end as ``connection_lost``."""
        while self._open:
            operation, _ = self._open.popitem(last=False)[1]
            operation.finish("connection_lost", "the session ended before the reply")


def _meta(params: dict[str, Any] | None) -> dict[str, Any] | None:
    meta = params.get("_meta") if params is not None else None
    return meta if isinstance(meta, dict) else None
