"""sdk_server.py with the mcp SDK's own OpenTelemetry spans exported to a collector.

Usage: ``python tests/servers/traced_server.py`` with ``TRACED_SERVER_OTLP=http://127.0.0.1:PORT``.
The SDK's server middleware makes a SERVER span per request, parented on the ``traceparent`` in
the request's ``params._meta``; each span is exported as it ends (SimpleSpanProcessor), so a test
sees the server's spans join the client's trace.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

provider = TracerProvider(resource=Resource.create({"service.name": "traced-server"}))
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(os.environ["TRACED_SERVER_OTLP"] + "/v1/traces")))
trace.set_tracer_provider(provider)

sys.path.insert(0, str(Path(__file__).parent))
from sdk_server import server  # noqa: E402 - the provider is set first

if __name__ == "__main__":
    server.run("stdio")
