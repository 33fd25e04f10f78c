"""Fixtures for the demo server's protocol tests in this folder.

The ``Demo`` client (a real subprocess over real pipes) lives in
tests/test_demo_server.py; tests/ is on sys.path through the top conftest.
"""

from __future__ import annotations

import pytest
from test_demo_server import Demo


@pytest.fixture
def demo():
    server = Demo()
    server.initialize()
    yield server
    if server.proc.poll() is None:
        server.close()


@pytest.fixture
def start_demo():
    """Start demo servers with extra flags; every one is closed at the end."""
    started: list[Demo] = []

    def start(*args: str, version: str = "2025-11-25", capabilities: dict | None = None) -> Demo:
        server = Demo(*args)
        started.append(server)
        server.init_result = server.initialize(version, capabilities)
        return server

    yield start
    for server in started:
        if server.proc.poll() is None:
            server.close()
