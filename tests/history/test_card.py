"""What a card contributes to the history: its comparability key and counts (history/_card)."""

from __future__ import annotations

from history_cards import DIM, make_card, run

import scorekit as sk
from scorekit.history import (
    compare,
    read_history,
    record,
    with_comparison,
)


# --------------------------------------------------------------------------- comparability
def _assert_not_comparable(db, old, new):
    """``old`` is recorded and eligible; ``new`` must not find it (status missing)."""
    _, first, id1 = run(old, db)
    assert first["status"] == "missing" and bool(read_history(db).loc[id1, "eligible"])
    comp = compare(new, db)
    assert comp["status"] == "missing" and comp["baseline"] is None
    assert with_comparison(new, comp).decision == "INCOMPLETE"


def test_control_everything_equal_is_comparable(db):
    run(make_card(10, 0, "1"), db)
    assert compare(make_card(10, 0, "2"), db)["status"] == "passed"


def test_suite_hash_breaks_comparability(db):
    old, new = make_card(10, 0, "1"), make_card(10, 0, "2", case_prefix="d")
    assert old.hashes["suite"] != new.hashes["suite"] and old.hashes["policy"] == new.hashes["policy"]
    _assert_not_comparable(db, old, new)


def test_policy_hash_breaks_comparability(db):
    other = {"regression": {"required": True}, "gate": {"thresholds": {DIM: 0.6}}}
    old, new = make_card(10, 0, "1"), make_card(10, 0, "2", policy=other)
    assert old.hashes["suite"] == new.hashes["suite"] and old.hashes["policy"] != new.hashes["policy"]
    _assert_not_comparable(db, old, new)


def test_regression_section_does_not_break_comparability(db):
    optional = {"regression": {"required": False, "method": "point", "max_drop": 0.2},
                "gate": {"thresholds": {DIM: 0.5}}}
    run(make_card(10, 0, "1", policy=optional), db)
    assert compare(make_card(10, 0, "2"), db)["status"] == "passed"


def test_judge_identity_breaks_comparability(db):
    policy = {"regression": {"required": True}, "gate": {"thresholds": {"helpfulness": 0.5}}}
    old = make_card(10, 0, "1", policy=policy, judge="judge-a", dimension="helpfulness")
    new = make_card(10, 0, "2", policy=policy, judge="judge-b", dimension="helpfulness")
    assert old.judges == ["judge-a"] and new.judges == ["judge-b"]
    assert old.hashes["suite"] == new.hashes["suite"] and old.hashes["policy"] == new.hashes["policy"]
    _assert_not_comparable(db, old, new)
    # The same judge is comparable.
    same = make_card(10, 0, "3", policy=policy, judge="judge-a", dimension="helpfulness")
    assert compare(same, db)["status"] == "passed"


def test_scoring_version_breaks_comparability(db, monkeypatch):
    from scorekit import _hashing

    old, new = make_card(10, 0, "1"), make_card(10, 0, "2")
    assert old.hashes == {**old.hashes, "suite": new.hashes["suite"], "policy": new.hashes["policy"]}
    with monkeypatch.context() as m:
        m.setattr(_hashing, "SCORING_VERSION", "scorekit-scoring/0")  # recorded by an older scorekit
        run(old, db)
    assert read_history(db)["scoring_version"].tolist() == ["scorekit-scoring/0"]
    comp = compare(new, db)
    assert comp["status"] == "missing" and comp["baseline"] is None



# --------------------------------------------------------------------------- counts
def test_dimension_counts_include_errors_and_abstains(db):
    rows = [{"id": f"r{i}", "dimension": DIM, "case_id": f"c{i}", "evaluator": "h",
             "status": ["PASS", "FAIL", "ERROR", "ABSTAIN"][i % 4]} for i in range(8)]
    rid = record(sk.evaluate(rows, policy={"purpose": "exploratory"}), db, label=None)
    long = read_history(db, dimensions=True)
    got = long.loc[long["record_id"] == rid, ["n", "passes", "fails", "errors", "abstains"]].iloc[0].tolist()
    assert got == [4, 2, 2, 2, 2]
