"""Fixtures for CLI tests (helpers live in cli_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own $XDG_STATE_HOME (the CLI children inherit it): what a command keeps there
    (the era a server spoke, config/eras.py; OAuth tokens) is never the user's, nor another
    test's. A test that runs a server twice sees what its own first run kept."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    return state


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"
