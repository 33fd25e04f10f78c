"""Fixtures for the OAuth tests (helpers to import are in auth_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from auth_helpers import OAuthServer, ServerStartError, isolated_env, start_oauth_server


@pytest.fixture
def oauth_server() -> Iterator[Callable[..., OAuthServer]]:
    """``oauth_server("--jwt", "--expires-in", "1")`` -> a new OAuthServer, stopped after the test."""
    started: list[OAuthServer] = []

    def start(*args: str) -> OAuthServer:
        try:
            server = start_oauth_server(*args)
        except ServerStartError as exc:
            pytest.fail(f"oauth fixture server did not start: {exc}", pytrace=False)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The CLI's environment: XDG state/config under tmp_path, no display, no BROWSER."""
    return isolated_env(tmp_path)
