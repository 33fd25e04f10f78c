"""A real OTLP/HTTP receiver on 127.0.0.1 for the tests: it decodes each POST to /v1/traces and
/v1/metrics (ExportTraceServiceRequest / ExportMetricsServiceRequest protobufs, as any collector
does, with opentelemetry-proto) and keeps the spans and metric points it was sent."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return None if kind is None else getattr(value, kind)


@dataclass
class ReceivedSpan:
    name: str
    kind: int  # opentelemetry.proto.trace.v1.Span.SpanKind: 3 = CLIENT, 2 = SERVER
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    status_code: int  # 2 = ERROR
    status_message: str
    service: str


@dataclass
class Receiver:
    url: str
    spans: list[ReceivedSpan] = field(default_factory=list)
    metrics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # name -> points' attributes+count
    posts: list[str] = field(default_factory=list)

    def named(self, name: str) -> list[ReceivedSpan]:
        return [span for span in self.spans if span.name == name]


def start_receiver() -> tuple[Receiver, ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    receiver = Receiver(f"http://127.0.0.1:{server.server_address[1]}")
    server.receiver = receiver  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver, server


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        receiver: Receiver = self.server.receiver  # type: ignore[attr-defined]
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        receiver.posts.append(self.path)
        if self.path == "/v1/traces":
            request = ExportTraceServiceRequest.FromString(body)
            for resource_spans in request.resource_spans:
                resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
                for scope_spans in resource_spans.scope_spans:
                    for span in scope_spans.spans:
                        receiver.spans.append(
                            ReceivedSpan(
                                span.name,
                                span.kind,
                                span.trace_id.hex(),
                                span.span_id.hex(),
                                span.parent_span_id.hex(),
                                {a.key: _value(a.value) for a in span.attributes},
                                span.status.code,
                                span.status.message,
                                str(resource.get("service.name")),
                            )
                        )
            reply = ExportTraceServiceResponse().SerializeToString()
        elif self.path == "/v1/metrics":
            request = ExportMetricsServiceRequest.FromString(body)
            for resource_metrics in request.resource_metrics:
                for scope_metrics in resource_metrics.scope_metrics:
                    for metric in scope_metrics.metrics:
                        points = receiver.metrics.setdefault(metric.name, [])
                        for point in metric.histogram.data_points:
                            attributes = {a.key: _value(a.value) for a in point.attributes}
                            points.append({"attributes": attributes, "count": point.count, "unit": metric.unit})
            reply = ExportMetricsServiceResponse().SerializeToString()
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)
