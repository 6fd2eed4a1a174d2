"""A card's measurement basis: ctx_size from either place, and the recorded variance (release/_basis)."""

from __future__ import annotations

import pytest
from release_cards import card_payload

from scorekit.release import (
    ScorecardDocument,
    parse_scorecard_text,
    validate_scorecard,
    variance_stdev,
)
from scorekit.release._basis import ABSENT, basis_of, ctx_size_of


def _valid_front() -> dict:
    return card_payload(stdev=0.012).to_front_matter()


# ------------------------------------------------------------- ctx_size: recipe.environment or recipe.config
@pytest.mark.parametrize("where", ["environment", "config"])
def test_ctx_size_is_read_from_recipe_environment_or_recipe_config(where):
    front = card_payload(ctx_size=16384, ctx_size_at=where).to_front_matter()
    assert validate_scorecard(front) == []
    assert ctx_size_of(front) == 16384
    assert basis_of(front, fields=["ctx_size"]) == {"ctx_size": 16384}


def test_ctx_size_null_in_one_place_is_read_from_the_other():
    front = card_payload(ctx_size=8192, ctx_size_at="config", environment={"ctx_size": None}).to_front_matter()
    assert validate_scorecard(front) == [] and ctx_size_of(front) == 8192
    front["recipe"]["config"]["ctx_size"] = None
    assert validate_scorecard(front) == [] and ctx_size_of(front) is ABSENT


# --------------------------------------------------------------------------- variance lookup
def test_variance_stdev_defaults_to_the_weighted_metric():
    front = _valid_front()
    front["recipe"]["config"]["acceptance_variance"]["urgent_recall"] = {"mean": 0.65, "stdev": 0.05}
    assert variance_stdev(front) == 0.012
    assert variance_stdev(front, "urgent_recall") == 0.05
    assert variance_stdev(front, "category_accuracy") is None
    assert variance_stdev(ScorecardDocument(front, "")) == 0.012


def test_variance_stdev_is_none_without_a_block(seed_front_matter_text):
    assert variance_stdev(parse_scorecard_text(seed_front_matter_text)) is None

