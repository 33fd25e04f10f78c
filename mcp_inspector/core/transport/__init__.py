"""Transports move frames; they know nothing of JSON-RPC or MCP."""

from .base import Closed, Note, Received, StderrLine, Transport, TransportError, TransportEvent

__all__ = ["Closed", "Note", "Received", "StderrLine", "Transport", "TransportError", "TransportEvent"]
