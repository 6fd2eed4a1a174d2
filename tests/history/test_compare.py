"""The comparison with a baseline and the decision step it implies (history/_compare, SPEC §8, §10)."""

from __future__ import annotations

import json

import pytest
from history_cards import DIM, REQUIRED, make_card, run

import scorekit as sk
from scorekit.history import (
    apply_comparison,
    compare,
    read_history,
    record,
    with_comparison,
)


# --------------------------------------------------------------------------- the deadlock scenario
def test_first_required_run_incomplete_then_next_compares_and_passes(db):
    first, comp1, id1 = run(make_card(40, 0, "1"), db, label="v1")
    assert first.measured_decision == "PASS"
    assert comp1["status"] == "missing" and comp1["required"] is True and comp1["baseline"] is None
    assert first.decision == "INCOMPLETE" and not first.overall_pass
    assert any("required regression comparison missing" in r for r in first.decision_reasons)
    # The first run is eligible: measured PASS and no comparable baseline existed.
    assert bool(read_history(db).loc[id1, "eligible"])

    second, comp2, id2 = run(make_card(39, 1, "2"), db, label="v2")
    assert comp2["status"] == "passed"
    assert comp2["baseline"]["id"] == id1 and comp2["baseline"]["label"] == "v1"
    assert comp2["baseline"]["agent"] == {"name": "agent", "version": "1"}
    assert second.decision == "PASS" and second.overall_pass
    assert not any(r.startswith("required regression comparison") for r in second.decision_reasons)
    assert [e["dimension"] for e in comp2["regressions"]] == [DIM]
    assert int(read_history(db).loc[id2, "baseline_id"]) == id1
    json.dumps(comp2, allow_nan=False)



# --------------------------------------------------------------------------- methods through compare
@pytest.mark.parametrize(
    ("method", "max_drop", "candidate", "status"),
    [
        ("newcombe", 0.0, (36, 4), "passed"),   # the difference's interval straddles 0
        ("newcombe", 0.0, (28, 12), "regressed"),
        ("newcombe", 0.2, (28, 12), "passed"),  # wholly below 0 but not below −0.2
        ("point", 0.0, (39, 1), "regressed"),
        ("point", 0.05, (38, 2), "passed"),     # a drop of exactly max_drop
        ("point", 0.05, (37, 3), "regressed"),
    ],
)
def test_each_method_through_compare(db, method, max_drop, candidate, status):
    policy = {"regression": {"required": True, "method": method, "max_drop": max_drop},
              "gate": {"thresholds": {DIM: 0.5}}}
    run(make_card(40, 0, "1", policy=policy), db)
    card, comp, _ = run(make_card(*candidate, "2", policy=policy), db)
    assert comp["method"] == method and comp["max_drop"] == max_drop
    assert comp["status"] == status
    assert card.decision == ("FAIL" if status == "regressed" else "PASS")


def test_regression_argument_overrides_the_policy(db):
    run(make_card(40, 0, "1"), db)
    card = make_card(39, 1, "2")
    assert compare(card, db)["status"] == "passed"  # paired, the default
    comp = compare(card, db, regression={"required": True, "method": "point", "max_drop": 0.0})
    assert comp["status"] == "regressed" and comp["method"] == "point"
    comp = compare(card, db, regression=sk.Policy().regression)
    assert comp["required"] is False and comp["status"] == "passed"
    with pytest.raises(ValueError):
        compare(card, db, regression={"method": "t-test"})


def test_only_in_scope_dimensions_are_compared(db):
    policy = {"regression": {"required": True}, "gate": {"required_dimensions": [DIM], "thresholds": {DIM: 0.5}}}

    def card(version, extra_passes):
        rows = [{"id": f"r{i}", "dimension": DIM, "case_id": f"c{i}", "status": "PASS", "evaluator": "h",
                 "agent_output": version} for i in range(10)]
        rows += [{"id": f"x{i}", "dimension": "other", "case_id": f"x{i}", "evaluator": "h",
                  "status": "PASS" if i < extra_passes else "FAIL", "agent_output": version} for i in range(10)]
        return sk.evaluate(rows, policy=policy, agent_name="a", agent_version=version)

    run(card("1", 10), db)
    _, comp, _ = run(card("2", 0), db)  # "other" collapsed but is not in scope
    assert comp["status"] == "passed" and [e["dimension"] for e in comp["regressions"]] == [DIM]


def test_undefined_candidate_dimension_makes_the_comparison_unusable(db):
    run(make_card(10, 0, "1"), db)
    rows = [{"id": f"r{i}", "dimension": DIM, "case_id": f"c{i}", "trial": 0, "evaluator": "h",
             "agent_output": "new", "status": "ERROR"} for i in range(10)]
    card = sk.evaluate(rows, policy=REQUIRED, agent_name="agent", agent_version="2")
    assert card.hashes["suite"] == make_card(1, 9).hashes["suite"]
    comp = compare(card, db)
    assert comp["status"] == "unusable" and comp["regressions"][0]["status"] == "undefined"
    assert with_comparison(card, comp).decision == "INCOMPLETE"


# --------------------------------------------------------------------------- re-scored old output
def test_rescored_old_output_is_unusable(db):
    _, _, id1 = run(make_card(40, 0, "1"), db)
    # The same captured output, presented as agent version 2.
    rescored = make_card(40, 0, "2", output="output of 1")
    assert rescored.hashes["results"] == make_card(40, 0, "1").hashes["results"]
    final, comp, id2 = run(rescored, db)
    assert comp["status"] == "unusable" and comp["rescored_from"] == id1
    assert "re-scored old output" in comp["detail"]
    assert final.measured_decision == "PASS" and final.decision == "INCOMPLETE"
    assert not bool(read_history(db).loc[id2, "eligible"])  # and never a baseline


def test_rescored_output_of_a_non_baseline_run_is_unusable(db):
    _, _, id1 = run(make_card(40, 0, "1"), db)
    _, _, id2 = run(make_card(40, 0, "2"), db)
    comp = compare(make_card(40, 0, "3", output="output of 2"), db)  # the baseline is record 1 (the earliest)
    assert comp["status"] == "unusable" and comp["rescored_from"] == id2
    assert comp["baseline"]["id"] == id1 and comp["baseline"]["agent"]["version"] == "1"


def test_rescoring_with_the_same_agent_version_is_not_unusable(db):
    run(make_card(40, 0, "1"), db)
    comp = compare(make_card(40, 0, "1"), db)
    assert comp["status"] == "passed" and comp["rescored_from"] is None


def test_rescored_output_that_regressed_is_still_fail(db):
    run(make_card(40, 0, "1"), db)
    _, _, id2 = run(make_card(20, 20, "2"), db)  # regressed
    final, comp, _ = run(make_card(20, 20, "3", output="output of 2"), db)
    assert comp["rescored_from"] == id2 and comp["status"] == "regressed" and final.decision == "FAIL"


def test_unusable_under_an_optional_comparison_keeps_the_decision(db):
    optional = {"gate": {"thresholds": {DIM: 0.5}}}
    run(make_card(10, 0, "1", policy=optional), db)
    final, comp, _ = run(make_card(10, 0, "2", policy=optional, output="output of 1"), db)
    assert comp["status"] == "unusable" and final.decision == "PASS"


# --------------------------------------------------------------------------- named baseline
def test_named_baseline_is_used_even_when_not_latest(db):
    _, _, id1 = run(make_card(40, 0, "1"), db, label="release-1")
    run(make_card(40, 0, "2"), db, label="nightly")
    _, comp, _ = run(make_card(36, 4, "3"), db, baseline="release-1")
    assert comp["baseline"]["id"] == id1 and comp["baseline_label"] == "release-1"
    # The policy's regression.baseline is the default label.
    policy = {"regression": {"required": True, "baseline": "release-1"}, "gate": {"thresholds": {DIM: 0.5}}}
    comp = compare(make_card(40, 0, "4", policy=policy), db)
    assert comp["baseline"]["id"] == id1 and comp["baseline_label"] == "release-1"


def test_named_baseline_latest_record_with_that_label(db):
    run(make_card(40, 0, "1"), db, label="main")
    _, _, id2 = run(make_card(40, 0, "2"), db, label="main")
    assert compare(make_card(40, 0, "3"), db, baseline_label="main")["baseline"]["id"] == id2


def test_named_baseline_missing_label_is_incompatible(db):
    run(make_card(40, 0, "1"), db, label="v1")
    comp = compare(make_card(40, 0, "2"), db, baseline_label="no-such-label")
    assert comp["status"] == "incompatible" and comp["baseline"] is None
    assert "no-such-label" in comp["detail"]
    assert with_comparison(make_card(40, 0, "2"), comp).decision == "INCOMPLETE"
    # ... also on an empty history.
    assert compare(make_card(1), db.with_name("absent.sqlite"), baseline_label="x")["status"] == "incompatible"


def test_named_baseline_not_eligible_is_incompatible(db):
    run(make_card(40, 0, "1"), db, label="good")
    run(make_card(20, 20, "2"), db, label="bad")  # regressed → FAIL
    _, _, id3 = run(make_card(2, 38, "3"), db, label="failing")  # measured FAIL
    for label in ("bad", "failing"):
        comp = compare(make_card(40, 0, "4"), db, baseline_label=label)
        assert comp["status"] == "incompatible" and "not eligible" in comp["detail"], label


def test_named_baseline_not_comparable_is_incompatible(db):
    run(make_card(40, 0, "1", case_prefix="other-suite"), db, label="other")
    comp = compare(make_card(40, 0, "2"), db, baseline_label="other")
    assert comp["status"] == "incompatible" and "suite hash" in comp["detail"]



# --------------------------------------------------------------------------- no history given
def test_no_history_given(db):
    optional = {"gate": {"thresholds": {DIM: 0.5}}}
    comp = compare(make_card(5, policy=optional), None)
    assert comp["status"] == "not_requested" and comp["required"] is False
    comp = compare(make_card(5), None)
    assert comp["status"] == "missing" and comp["required"] is True
    assert with_comparison(make_card(5), comp).decision == "INCOMPLETE"


def test_compare_reads_only(db):
    comp = compare(make_card(5), db)
    assert comp["status"] == "missing" and not db.exists()


# --------------------------------------------------------------------------- the decision step
@pytest.mark.parametrize(
    ("decision", "status", "required", "expected"),
    [
        ("PASS", "passed", True, "PASS"),
        ("PASS", "regressed", True, "FAIL"),
        ("INCOMPLETE", "regressed", True, "FAIL"),
        ("FAIL", "regressed", True, "FAIL"),
        ("PASS", "missing", True, "INCOMPLETE"),
        ("PASS", "incompatible", True, "INCOMPLETE"),
        ("PASS", "unusable", True, "INCOMPLETE"),
        ("PASS", "not_requested", True, "INCOMPLETE"),
        ("FAIL", "missing", True, "FAIL"),
        ("INCOMPLETE", "unusable", True, "INCOMPLETE"),
        ("PASS", "regressed", False, "PASS"),
        ("PASS", "missing", False, "PASS"),
        ("FAIL", "passed", False, "FAIL"),
        ("SELF_TEST", "regressed", True, "SELF_TEST"),
        ("TRIAGE", "missing", True, "TRIAGE"),
    ],
)
def test_apply_comparison(decision, status, required, expected):
    got, reasons = apply_comparison(decision, decision, {"status": status, "required": required}, required)
    assert got == expected
    assert bool(reasons) == (required and status != "passed" and decision not in ("SELF_TEST", "TRIAGE"))


def test_apply_comparison_required_defaults_to_the_comparison_and_rejects_unknown_status():
    assert apply_comparison("PASS", "PASS", {"status": "missing", "required": True})[0] == "INCOMPLETE"
    assert apply_comparison("PASS", "PASS", "missing")[0] == "PASS"
    assert apply_comparison("PASS", "PASS", "missing", True)[0] == "INCOMPLETE"
    with pytest.raises(ValueError):
        apply_comparison("PASS", "PASS", "ok", True)


def test_with_comparison_matches_decide_for_a_partial_scan(db):
    rows = [{"id": f"r{i}", "dimension": DIM, "case_id": f"c{i}", "status": "PASS", "evaluator": "h"} for i in range(4)]
    card = sk.evaluate(rows, policy=REQUIRED, limit=2)
    assert card.decision == "TRIAGE"
    final = with_comparison(card, compare(card, db))
    assert final.decision == "TRIAGE" and final.comparison["status"] == "missing"
    rid = record(final, db, label="scan")
    assert not bool(read_history(db).loc[rid, "eligible"])
