"""The OTLP receiver (otlp_receiver.py) as a fixture, and the traced fixture server's command."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from otlp_receiver import Receiver, start_receiver  # noqa: E402

TRACED_SERVER = Path(__file__).parent.parent / "servers" / "traced_server.py"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found, server = start_receiver()
    try:
        yield found
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def traced_server() -> list[str]:
    return [sys.executable, str(TRACED_SERVER)]
