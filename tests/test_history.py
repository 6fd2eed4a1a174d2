"""History and regression comparison (SPEC §8 comparison step, §10 history)."""

from __future__ import annotations

import json
import os
import sqlite3

import numpy as np
import pandas as pd
import pytest

import scorekit as sk
from scorekit import HistoryError, history
from scorekit.history import apply_comparison, compare, read_history, record, with_comparison

DIM = "task_completion"
REQUIRED = {"regression": {"required": True}, "gate": {"thresholds": {DIM: 0.5}}}


def make_card(
    passes: int,
    fails: int = 0,
    version: str | None = "1",
    *,
    policy: dict | None = None,
    output: str | None = None,
    name: str = "agent",
    case_prefix: str = "c",
    judge: str | None = None,
    dimension: str = DIM,
) -> sk.Scorecard:
    """A card from pre-scored rows (or judged rows when ``judge`` is given).

    ``output`` is the captured output (it defaults to one per agent version,
    so two versions have different results hashes, as two real runs do).
    """
    output = f"output of {version}" if output is None else output
    rows = []
    for i in range(passes + fails):
        row = {"id": f"r{i}", "dimension": dimension, "case_id": f"{case_prefix}{i}", "trial": 0,
               "agent_output": f"{output} #{i}"}
        if judge is None:
            row.update(status="PASS" if i < passes else "FAIL", evaluator="h")
        else:
            row.update(input="q", judge_criteria="answers the question",
                       judge_votes=[{"judge": judge, "verdict": "PASS" if i < passes else "FAIL"}])
        rows.append(row)
    return sk.evaluate(rows, policy=REQUIRED if policy is None else policy, agent_name=name, agent_version=version)


def run(card, db, *, label=None, baseline=None, regression=None):
    """What ``scorekit run --history DB --label L [--baseline B]`` does."""
    comparison = compare(card, db, baseline_label=baseline, regression=regression)
    final = with_comparison(card, comparison)
    rid = record(final, db, label=label)
    return final, comparison, rid


@pytest.fixture
def db(tmp_path):
    return tmp_path / "history.sqlite"


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


def test_default_baseline_is_the_latest_comparable_eligible_record(db):
    _, _, id1 = run(make_card(40, 0, "1"), db)
    _, _, id2 = run(make_card(40, 0, "2"), db)
    run(make_card(20, 20, "3"), db)  # regressed: not a baseline
    run(make_card(40, 0, "4", case_prefix="other"), db)  # another suite: not comparable
    _, comp, _ = run(make_card(40, 0, "5"), db)
    assert comp["baseline"]["id"] == id2 != id1


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


# --------------------------------------------------------------------------- methods through compare
@pytest.mark.parametrize(
    ("method", "max_drop", "candidate", "status"),
    [
        ("interval", 0.0, (37, 3), "passed"),   # 0.925 >= Wilson low of 40/40 (0.912)
        ("interval", 0.0, (36, 4), "regressed"),  # 0.900 <  0.912
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
    assert compare(card, db)["status"] == "passed"  # interval
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


def test_rescored_output_of_an_older_non_baseline_run_is_unusable(db):
    _, _, id1 = run(make_card(40, 0, "1"), db)
    run(make_card(40, 0, "2"), db)
    comp = compare(make_card(40, 0, "3", output="output of 1"), db)
    assert comp["status"] == "unusable" and comp["rescored_from"] == id1
    assert comp["baseline"]["agent"]["version"] == "2"


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


def test_incompatible_first_run_is_not_eligible(db):
    # Naming a wrong label does not make a run the "first run of the suite".
    _, comp, rid = run(make_card(40, 0, "1"), db, baseline="typo")
    assert comp["status"] == "incompatible"
    assert not bool(read_history(db).loc[rid, "eligible"])
    assert compare(make_card(40, 0, "2"), db)["status"] == "missing"


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


# --------------------------------------------------------------------------- reading
def test_read_history_dataframe(db):
    _, _, id1 = run(make_card(8, 2, "1"), db, label="v1")
    _, _, id2 = run(make_card(9, 1, "2"), db)
    frame = read_history(db)
    assert isinstance(frame, pd.DataFrame) and list(frame.index) == [id1, id2] and frame.index.name == "id"
    for column in ("label", "agent_name", "agent_version", "created_at", "suite_hash", "policy_hash",
                   "results_hash", "judges", "scoring_version", "decision", "measured_decision",
                   "comparison_status", "baseline_id", "eligible"):
        assert column in frame.columns, column
    assert frame.loc[id1, "label"] == "v1" and pd.isna(frame.loc[id2, "label"])
    assert frame.loc[id1, "judges"] == [] and frame.loc[id1, "agent_version"] == "1"
    assert str(frame["created_at"].dtype).startswith("datetime64") and frame["created_at"].is_monotonic_increasing
    assert frame["eligible"].dtype == bool and frame["baseline_id"].tolist() == [pd.NA, id1]
    assert frame["comparison_status"].tolist() == ["missing", "passed"]

    long = read_history(db, dimensions=True)
    assert list(long["record_id"]) == [id1, id2] and set(long["dimension"]) == {DIM}
    row = long.iloc[0]
    assert (row["n"], row["passes"], row["fails"], row["errors"], row["abstains"]) == (10, 8, 2, 0, 0)
    low, high = sk.wilson_interval(8, 10)
    assert row["rate"] == 0.8 and row["ci_low"] == pytest.approx(low) and row["ci_high"] == pytest.approx(high)
    assert row["label"] == "v1" and bool(row["in_scope"]) and row["verdict"] == "PASS"


def test_dimension_counts_include_errors_and_abstains(db):
    rows = [{"id": f"r{i}", "dimension": DIM, "case_id": f"c{i}", "evaluator": "h",
             "status": ["PASS", "FAIL", "ERROR", "ABSTAIN"][i % 4]} for i in range(8)]
    rid = record(sk.evaluate(rows, policy={"purpose": "exploratory"}), db, label=None)
    long = read_history(db, dimensions=True)
    got = long.loc[long["record_id"] == rid, ["n", "passes", "fails", "errors", "abstains"]].iloc[0].tolist()
    assert got == [4, 2, 2, 2, 2]


def test_read_history_of_a_missing_file_is_an_error(tmp_path):
    with pytest.raises(HistoryError, match="no history database"):
        read_history(tmp_path / "nope.sqlite")


def test_empty_database_reads_as_no_records(db):
    run(make_card(1), db)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM dimensions")
        conn.execute("DELETE FROM records")
    conn.close()
    frame = read_history(db)
    assert frame.empty and "eligible" in frame.columns
    assert read_history(db, dimensions=True).empty


def test_default_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rid = record(make_card(3), None, label="x")
    assert (tmp_path / "reports" / "history.sqlite").is_file()
    assert list(read_history().index) == [rid]


def test_database_is_wal_with_a_schema_version(db):
    record(make_card(3), db, label="x")
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        meta = dict(conn.execute("SELECT key, value FROM meta"))
        assert meta["application"] == "scorekit-history" and meta["schema_version"] == str(history.SCHEMA_VERSION)
    finally:
        conn.close()


def test_record_rejects_bad_label(db):
    with pytest.raises(ValueError):
        record(make_card(1), db, label="  ")


# --------------------------------------------------------------------------- foreign and corrupt files
def _one_line_history_error(call, path):
    with pytest.raises(HistoryError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def _all_calls(path):
    card = make_card(3)
    return [lambda: compare(card, path), lambda: record(card, path, label="x"), lambda: read_history(path)]


def test_corrupt_file_random_bytes(tmp_path):
    path = tmp_path / "history.sqlite"
    data = np.random.default_rng(0).bytes(8192)
    path.write_bytes(data)
    for call in _all_calls(path):
        assert "not an SQLite file" in _one_line_history_error(call, path)
    assert path.read_bytes() == data  # left untouched


def test_corrupt_data_pages(tmp_path):
    # Schema pages intact, record pages destroyed: the error comes from a query.
    path = tmp_path / "history.sqlite"
    rows = [{"id": f"r{i}", "dimension": f"d{i:02d}", "case_id": f"c{i}", "status": "PASS", "evaluator": "h"}
            for i in range(30)]
    card = sk.evaluate(rows, policy={"purpose": "exploratory"})
    for _ in range(40):
        record(card, path, label="x" * 50)
    raw = bytearray(path.read_bytes())
    assert len(raw) > 64 * 1024
    raw[16384:-16384] = np.random.default_rng(2).bytes(len(raw) - 32768)
    path.write_bytes(bytes(raw))
    calls = [lambda: compare(card, path), lambda: record(card, path, label="y"),
             lambda: read_history(path), lambda: read_history(path, dimensions=True)]
    for call in calls:
        assert "corrupt" in _one_line_history_error(call, path)


def test_corrupt_sqlite_pages(tmp_path):
    path = tmp_path / "history.sqlite"
    record(make_card(3), path, label="x")
    raw = bytearray(path.read_bytes())
    for suffix in ("-wal", "-shm"):
        assert not os.path.exists(str(path) + suffix)  # checkpointed and removed on close
    raw[100:] = np.random.default_rng(1).bytes(len(raw) - 100)  # keep the header, destroy the rest
    path.write_bytes(bytes(raw))
    for call in _all_calls(path):
        message = _one_line_history_error(call, path)
        assert "corrupt" in message or "scorekit history" in message


def test_foreign_sqlite_database(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO users (name) VALUES ('ada')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    for call in _all_calls(path):
        assert "another application" in _one_line_history_error(call, path)
    assert path.read_bytes() == before  # not switched to WAL, nothing written


def test_foreign_sqlite_with_a_meta_table(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (k TEXT, v TEXT)")
    conn.commit()
    conn.close()
    for call in _all_calls(path):
        assert "another application" in _one_line_history_error(call, path)


def test_newer_schema(db):
    record(make_card(3), db, label="x")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    for call in _all_calls(db):
        assert "newer" in _one_line_history_error(call, db)


def test_directory_instead_of_a_file(tmp_path):
    for call in _all_calls(tmp_path):
        assert "directory" in _one_line_history_error(call, tmp_path)


def test_empty_file_becomes_a_history(db):
    db.write_bytes(b"")
    assert compare(make_card(3), db)["status"] == "missing"
    assert record(make_card(3), db, label="x") == 1


def test_history_error_is_a_scorekit_error():
    assert issubclass(HistoryError, sk.ScorekitError)
