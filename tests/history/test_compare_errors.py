"""The history comparison's policy keys and error control (SPEC §7, §10, §18): issue 26."""

from __future__ import annotations

import dataclasses

import pytest
from history_cards import make_card, run

import scorekit as sk
from scorekit.history import compare


def _recorded_with(card: sk.Scorecard, regression: dict) -> sk.Scorecard:
    """``card`` as read back from a file whose recorded policy has this ``regression`` section."""
    return dataclasses.replace(card, policy={**card.policy, "regression": regression})


def test_a_card_that_recorded_the_retired_interval_method_is_compared_with_the_default(tmp_path):
    db = tmp_path / "history.sqlite"
    run(make_card(40, 0, "1"), db)
    old = _recorded_with(make_card(39, 1, "2"), {"required": True, "method": "interval", "max_drop": 0.02})
    comp = compare(old, db)
    assert comp["method"] == "paired" and comp["required"] is True and comp["max_drop"] == 0.02
    assert comp["status"] == "passed"
    assert "retired method 'interval'" in comp["detail"] and "read, not chosen" in comp["detail"]
    assert all(e["method"] == "paired" for e in comp["regressions"])


def test_choosing_the_interval_method_is_refused_naming_the_key(tmp_path):
    card = make_card(39, 1, "2")
    with pytest.raises(sk.PolicyError, match=r"^regression\.method: .*use paired or newcombe"):
        compare(card, tmp_path / "history.sqlite", regression={"method": "interval"})
    with pytest.raises(sk.PolicyError, match=r"^regression\.multiplicity: must be one of holm, none"):
        compare(card, tmp_path / "history.sqlite", regression={"multiplicity": "sidak"})
