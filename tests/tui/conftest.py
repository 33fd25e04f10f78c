"""Fixtures for the TUI tests (helpers to import are in app_helpers.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def isolated_state(tmp_path, monkeypatch):
    """Drafts and config go to a temp dir, never the developer's home."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


@pytest.fixture
def isolated_cwd(isolated_state, tmp_path, monkeypatch):
    """isolated_state, and the working directory a temp dir too (saved files land there)."""
    monkeypatch.chdir(tmp_path)
