"""Which recorded runs can be a baseline (history/_eligibility, SPEC §10)."""

from __future__ import annotations

from history_cards import DIM, make_card, run

from scorekit.history import (
    compare,
    read_history,
)


# --------------------------------------------------------------------------- eligibility
def test_a_regressed_run_never_becomes_a_baseline_and_rerunning_it_stays_fail(db):
    _, _, id1 = run(make_card(40, 0, "1"), db, label="v1")
    bad, comp, id2 = run(make_card(30, 10, "2"), db, label="v2")
    assert bad.measured_decision == "PASS"  # 0.75 meets the 0.5 threshold ...
    assert comp["status"] == "regressed" and bad.decision == "FAIL"  # ... but regressed
    assert any("regressed" in r for r in bad.decision_reasons)
    assert not bool(read_history(db).loc[id2, "eligible"])

    # Re-running the regressed agent (new execution, same quality) stays FAIL: its
    # baseline is still v1, never the regressed v2.
    again, comp_again, _ = run(make_card(30, 10, "2", output="second execution"), db, label="v2")
    assert comp_again["status"] == "regressed" and comp_again["baseline"]["id"] == id1
    assert again.decision == "FAIL"
    # Even an identical re-run of the regressed output stays FAIL.
    same, comp_same, _ = run(make_card(30, 10, "2"), db, label="v2")
    assert comp_same["baseline"]["id"] == id1 and same.decision == "FAIL"


def test_a_regression_under_an_optional_comparison_is_reported_and_never_a_baseline(db):
    optional = {"regression": {"required": False}, "gate": {"thresholds": {DIM: 0.5}}}
    _, _, id1 = run(make_card(40, 0, "1", policy=optional), db)
    card, comp, id2 = run(make_card(30, 10, "2", policy=optional), db)
    assert comp["status"] == "regressed" and comp["required"] is False
    assert card.decision == "PASS"  # not required: decision unchanged, comparison still reported
    assert card.comparison["status"] == "regressed"
    frame = read_history(db)
    assert bool(frame.loc[id1, "eligible"]) and not bool(frame.loc[id2, "eligible"])
    # Once required, the comparison still uses v1 (the policy hash ignores `regression`).
    _, comp3, _ = run(make_card(30, 10, "3"), db)
    assert comp3["status"] == "regressed" and comp3["baseline"]["id"] == id1


def test_default_baseline_is_the_earliest_comparable_eligible_record(db):
    run(make_card(40, 0, "0", case_prefix="other"), db)  # another suite: not comparable
    _, first, _ = run(make_card(2, 38, "f"), db)  # the first run, measured FAIL: not eligible
    assert first["status"] == "missing"
    _, _, id1 = run(make_card(40, 0, "1"), db)
    _, _, id2 = run(make_card(40, 0, "2"), db)
    run(make_card(20, 20, "3"), db)  # regressed: not a baseline
    _, comp, _ = run(make_card(40, 0, "5"), db)
    assert comp["baseline"]["id"] == id1 != id2  # never simply the latest
    assert comp["baseline"]["chosen"] == "earliest" and comp["baseline"]["pinned_at"] is None



def test_incompatible_first_run_is_not_eligible(db):
    # Naming a wrong label does not make a run the "first run of the suite".
    _, comp, rid = run(make_card(40, 0, "1"), db, baseline="typo")
    assert comp["status"] == "incompatible"
    assert not bool(read_history(db).loc[rid, "eligible"])
    assert compare(make_card(40, 0, "2"), db)["status"] == "missing"
