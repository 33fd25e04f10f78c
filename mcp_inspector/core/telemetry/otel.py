"""The OpenTelemetry implementation of the telemetry seam (the ``mcp-inspector[otel]`` extra).

Imported only by ``telemetry.configure`` when tracing is asked for. Follows OpenTelemetry's GenAI
semantic conventions for MCP, open-telemetry/semantic-conventions-genai v0.1.0 (docs/gen-ai/mcp.md):

- one CLIENT span per request (ended on its response, error, timeout or cancel) and per
  notification, named ``{mcp.method.name} {target}``, target being ``gen_ai.tool.name`` or
  ``gen_ai.prompt.name`` when there is one (a resource URI is never put in the name);
- attributes mcp.method.name, jsonrpc.request.id, gen_ai.tool.name / gen_ai.prompt.name,
  gen_ai.operation.name (``execute_tool`` on tools/call), mcp.resource.uri, mcp.session.id,
  mcp.protocol.version, network.transport (``pipe`` / ``tcp``), server.address / server.port,
  error.type and rpc.response.status_code on failure (status ERROR with the JSON-RPC message);
- the context is injected into ``params._meta`` (``traceparent``, ``tracestate``) unprefixed, as
  SEP-414 reserves them;
- one SERVER span per request and notification the server sends us (the conventions' ``mcp.server``
  span, "reported ... by the MCP client when server initiates the operation"), parented on the
  ``traceparent`` in its ``params._meta`` when there is one, ended when our reply is written;
- metrics ``mcp.client.operation.duration``, ``mcp.server.operation.duration`` (the server's
  requests, as we handle them) and ``mcp.client.session.duration`` (histograms, s).

The providers are the inspector's own (not the process-global ones), so a program embedding the
core keeps its own OpenTelemetry set-up.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from opentelemetry.context import Context
from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanLimits, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, SpanKind, StatusCode, set_span_in_context
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from .api import Peer

SCOPE = "mcp-inspector"
SHUTDOWN_LIMIT_MS = 3000  # at exit, what is buffered gets this long to reach the collector
#: A server's error message, a host's tool name or URI (the proxy) are cut to this many characters:
#: a hostile peer's 100 MB message does not travel to the collector.
MAX_TEXT = 4096
EXPORT_TIMEOUT = 2.0  # seconds for one export, retries included: an unreachable collector costs no more
_PROPAGATOR = TraceContextTextMapPropagator()
_RESOURCE_METHODS = frozenset(
    ("resources/read", "resources/subscribe", "resources/unsubscribe", "notifications/resources/updated")
)


def _base(endpoint: str | None, path: str) -> str | None:
    return None if endpoint is None else endpoint.rstrip("/") + path


class OtelOperation:
    """A span in progress; ``finish`` ends it and records its duration."""

    __slots__ = ("_attributes", "_histogram", "_span", "_started", "traceparent", "tracestate")

    def __init__(self, histogram: Any, span: Span, attributes: dict[str, Any]) -> None:
        self._histogram = histogram  # mcp.client.operation.duration, or .server. for the peer's requests
        self._span: Span | None = span
        self._attributes = attributes
        self._started = time.perf_counter()
        carrier: dict[str, str] = {}
        _PROPAGATOR.inject(carrier, context=set_span_in_context(span))
        self.traceparent = carrier.get("traceparent", "")
        self.tracestate = carrier.get("tracestate")

    def finish(self, error_type: str | None = None, message: str | None = None, code: int | None = None) -> None:
        span = self._span
        if span is None:
            return
        self._span = None
        attributes = self._attributes
        if error_type is not None:
            attributes["error.type"] = error_type
            span.set_attribute("error.type", error_type)
            if code is not None:
                attributes["rpc.response.status_code"] = str(code)
                span.set_attribute("rpc.response.status_code", str(code))
            span.set_status(StatusCode.ERROR, message[:MAX_TEXT] if message else None)
        span.end()
        self._histogram.record(time.perf_counter() - self._started, _metric_attributes(attributes))


class OtelTelemetry:
    """Spans and metrics over OTLP/HTTP (protobuf) to one collector."""

    def __init__(self, endpoint: str | None, service_name: str = "mcp-inspector", quiet: bool = False) -> None:
        # The SDK logs each failed export and retry; one ERROR line says the collector is not there.
        # ``quiet`` (the TUI, whose screen is the terminal): nothing at all.
        logging.getLogger("opentelemetry").setLevel(logging.CRITICAL + 1 if quiet else logging.ERROR)
        resource = Resource.create({"service.name": service_name})
        # endpoint None: the exporters read OTEL_EXPORTER_OTLP_(TRACES_|METRICS_)ENDPOINT themselves.
        self.tracer_provider = TracerProvider(resource=resource, span_limits=SpanLimits(max_attribute_length=MAX_TEXT))
        self.tracer_provider.add_span_processor(
            BatchSpanProcessor(OTLPSpanExporter(_base(endpoint, "/v1/traces"), timeout=EXPORT_TIMEOUT))
        )
        self.reader = PeriodicExportingMetricReader(
            OTLPMetricExporter(_base(endpoint, "/v1/metrics"), timeout=EXPORT_TIMEOUT)
        )
        self.meter_provider = MeterProvider(resource=resource, metric_readers=[self.reader])
        self.tracer = self.tracer_provider.get_tracer(SCOPE)
        meter = self.meter_provider.get_meter(SCOPE)
        self.operation_duration = meter.create_histogram(
            "mcp.client.operation.duration",
            unit="s",
            description="The duration of the MCP request or notification as observed on the sender "
            "from the time it was sent until the response or ack is received.",
        )
        self.server_operation_duration = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="MCP request or notification processing duration, observed on the receiver.",
        )
        self.session_duration = meter.create_histogram(
            "mcp.client.session.duration",
            unit="s",
            description="The duration of the MCP session as observed on the MCP client.",
        )

    def start(
        self,
        method: str,
        params: dict[str, Any] | None,
        msg_id: Any,
        peer: Peer,
        parent: dict[str, Any] | None = None,
        incoming: bool = False,
    ) -> OtelOperation:
        attributes = _peer_attributes(peer)
        attributes["mcp.method.name"] = method
        if msg_id is not None:
            attributes["jsonrpc.request.id"] = str(msg_id)
        target = None
        if params is not None:
            name = params.get("name")
            if isinstance(name, str):
                if method == "tools/call":
                    target = attributes["gen_ai.tool.name"] = name
                    attributes["gen_ai.operation.name"] = "execute_tool"
                elif method == "prompts/get":
                    target = attributes["gen_ai.prompt.name"] = name
            uri = params.get("uri")
            if isinstance(uri, str) and method in _RESOURCE_METHODS:
                attributes["mcp.resource.uri"] = uri
        context: Context | None = None
        if parent is not None:
            carrier = {k: v for k in ("traceparent", "tracestate") if isinstance(v := parent.get(k), str)}
            if carrier:
                context = _PROPAGATOR.extract(carrier)
        span = self.tracer.start_span(
            f"{method} {target[:MAX_TEXT]}" if target else method,
            context=context,
            kind=SpanKind.SERVER if incoming else SpanKind.CLIENT,
            attributes=attributes,
        )
        histogram = self.server_operation_duration if incoming else self.operation_duration
        return OtelOperation(histogram, span, attributes)

    def session_ended(self, seconds: float, peer: Peer, error_type: str | None = None) -> None:
        attributes = _metric_attributes(_peer_attributes(peer))
        if error_type is not None:
            attributes["error.type"] = error_type
        self.session_duration.record(seconds, attributes)

    def shutdown(self) -> None:
        self.tracer_provider.force_flush(SHUTDOWN_LIMIT_MS)
        self.tracer_provider.shutdown()
        self.meter_provider.shutdown(SHUTDOWN_LIMIT_MS)


def _peer_attributes(peer: Peer) -> dict[str, Any]:
    attributes: dict[str, Any] = {"network.transport": peer.transport}
    if peer.address is not None:
        attributes["server.address"] = peer.address
        if peer.port is not None:
            attributes["server.port"] = peer.port
    if peer.session_id is not None:
        attributes["mcp.session.id"] = peer.session_id
    if peer.protocol_version is not None:
        attributes["mcp.protocol.version"] = peer.protocol_version
    return attributes


#: The metric's attributes (low cardinality: no request id, session id or resource URI).
_METRIC_KEYS = (
    "mcp.method.name",
    "error.type",
    "gen_ai.tool.name",
    "gen_ai.prompt.name",
    "gen_ai.operation.name",
    "mcp.protocol.version",
    "network.transport",
    "server.address",
    "server.port",
    "rpc.response.status_code",
)


def _metric_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    return {key: attributes[key] for key in _METRIC_KEYS if key in attributes}
