"""Shared fixtures for the release-scorecard tests (owned by helper LIB; others: please do not edit).

Fixtures
--------
seed_front_matter_text : str
    The seed's example ``SCORECARD.md`` exactly as printed in the document
    (front matter with its comment lines, and the elided body).
make_card_text : callable
    ``make_card_text(**options) -> str``: the text of a valid card (options of
    :func:`release_cards.card_payload`: ``version``, ``value``, ``secondaries``,
    ``stdev``, ``mean``, ``limit``, ``n_runs``, ``model``, ``ctx_size``, ``ctx_size_at``,
    ``dataset_reference``, ``dataset_size``, ``test_cases_run``, ``primary``,
    ``inherited_from``, ``measured_version``, ``reproduction_command``,
    ``config_extra``, ...); ``set={"dotted.path": value}`` and
    ``drop=("dotted.path",)`` edit the front matter afterwards to build
    invalid cards.
write_card : callable
    ``write_card(tmp_path, *, version="0.3.0", value=0.8467, secondaries=..., stdev=None, limit=220,
    ..., filename="SCORECARD.md") -> Path``: writes ``make_card_text(...)`` to ``tmp_path / filename``.
make_payload : callable
    ``make_payload(**options) -> ResultPayload`` (valid, seed-shaped).

The same helpers are importable as ``from release_cards import card_text, card_payload,
write_card_file`` (never ``from conftest import ...``).
"""

from __future__ import annotations

import pytest
from release_cards import SEED_EXAMPLE, card_payload, card_text, write_card_file


@pytest.fixture
def seed_front_matter_text() -> str:
    """The seed's example SCORECARD.md, verbatim (comment lines included)."""
    return SEED_EXAMPLE.read_text(encoding="utf-8")


@pytest.fixture
def make_card_text():
    return card_text


@pytest.fixture
def write_card():
    return write_card_file


@pytest.fixture
def make_payload():
    return card_payload
