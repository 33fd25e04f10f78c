"""Fixtures for CLI tests (helpers live in cli_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def record(tmp_path: Path) -> Path:
    return tmp_path / "session.jsonl"
