"""Shared fixtures of the history tests: ``db``, a history path in a fresh directory."""

from __future__ import annotations

import pytest


@pytest.fixture
def db(tmp_path):
    return tmp_path / "history.sqlite"
