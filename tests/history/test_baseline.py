"""Baseline choice never ratchets: label, else the latest pin, else the earliest (history/_baseline, SPEC §10, §18)."""

from __future__ import annotations

import sqlite3

import pandas as pd
import pytest
from history_cards import DIM, make_card, run

import scorekit as sk
from scorekit.history import compare, pin, read_history, unpin, with_comparison

# An unchanged agent measured again and again: the same quality, its passes wandering by chance.
UNCHANGED = (38, 40, 39, 38, 40)


def _unchanged_runs(db, count=5):
    """Record ``count`` runs of an unchanged agent (40 cases), labelled run-1, run-2, ...; their ids."""
    ids = []
    for k, passes in enumerate(UNCHANGED[:count], start=1):
        _, _, rid = run(make_card(passes, 40 - passes, "1", output=f"execution {k}"), db, label=f"run-{k}")
        ids.append(rid)
    return ids


# --------------------------------------------------------------------------- the default: the earliest
def test_an_unchanged_agent_recorded_five_times_meets_record_one_every_time(db):
    ids = []
    for k, passes in enumerate(UNCHANGED, start=1):
        final, comp, rid = run(make_card(passes, 40 - passes, "1", output=f"execution {k}"), db, label=f"run-{k}")
        if ids:  # never the latest (a lucky 40 of 40 would raise the bar for the next run)
            assert comp["baseline"]["id"] == ids[0], k
            assert comp["baseline"]["chosen"] == "earliest" and comp["status"] == "passed", k
            assert final.decision == "PASS", k
        ids.append(rid)
    assert read_history(db)["baseline_id"].tolist() == [pd.NA] + [ids[0]] * (len(UNCHANGED) - 1)


def test_the_earliest_is_the_earliest_comparable_eligible_record(db):
    run(make_card(40, 0, "0", case_prefix="other"), db)  # another suite: not comparable
    _, first, first_id = run(make_card(2, 38, "f"), db)  # the first run of this suite, measured FAIL
    assert first["status"] == "missing" and not read_history(db).loc[first_id, "eligible"]
    _, _, id1 = run(make_card(40, 0, "1"), db)
    run(make_card(20, 20, "2"), db)  # regressed
    comp = compare(make_card(40, 0, "3"), db)
    assert comp["baseline"]["id"] == id1 and comp["baseline"]["chosen"] == "earliest"


# --------------------------------------------------------------------------- pins
def test_after_pin_the_pinned_record_is_the_baseline_and_the_latest_pin_wins(db):
    ids = _unchanged_runs(db)
    assert pin(db, "run-3") == ids[2]
    comp = compare(make_card(40, 0, "1", output="next"), db)
    assert comp["baseline"]["id"] == ids[2] and comp["baseline"]["chosen"] == "pinned"
    assert comp["baseline"]["pinned_at"] is not None

    # Pinning an older record later makes it the baseline: the latest pin, not the newest record, wins.
    assert pin(db, "run-2") == ids[1]
    assert compare(make_card(40, 0, "1", output="next"), db)["baseline"]["id"] == ids[1]
    frame = read_history(db)
    assert frame["pin_order"].tolist() == [pd.NA, 2, 1, pd.NA, pd.NA]  # the older pin is kept
    assert frame["pinned_at"].notna().tolist() == [False, True, True, False, False]
    assert str(frame["pinned_at"].dtype).startswith("datetime64")

    # Pinning a record again makes it the latest pin; unpinning falls back to the pin before.
    pin(db, "run-3")
    assert compare(make_card(40, 0, "1", output="next"), db)["baseline"]["id"] == ids[2]
    assert unpin(db, "run-3") == [ids[2]]
    assert compare(make_card(40, 0, "1", output="next"), db)["baseline"]["id"] == ids[1]
    unpin(db, "run-2")
    comp = compare(make_card(40, 0, "1", output="next"), db)
    assert comp["baseline"]["id"] == ids[0] and comp["baseline"]["chosen"] == "earliest"


def test_a_run_compared_with_a_pin_records_it_as_its_baseline(db):
    ids = _unchanged_runs(db, 3)
    pin(db, "run-2")
    _, comp, rid = run(make_card(40, 0, "1", output="next"), db)
    assert int(read_history(db).loc[rid, "baseline_id"]) == ids[1] == comp["baseline"]["id"]


def test_pin_takes_the_latest_record_of_the_label(db):
    run(make_card(40, 0, "1"), db, label="release")
    _, _, id2 = run(make_card(40, 0, "2"), db, label="release")
    assert pin(db, "release") == id2


def test_a_pin_of_another_suite_or_policy_is_not_a_baseline(db):
    run(make_card(40, 0, "0", case_prefix="other"), db, label="other-suite")
    pin(db, "other-suite")
    ids = _unchanged_runs(db, 2)
    comp = compare(make_card(40, 0, "1", output="next"), db)
    assert comp["baseline"]["id"] == ids[0] and comp["baseline"]["chosen"] == "earliest"


def test_baseline_label_still_wins_over_the_pin(db):
    ids = _unchanged_runs(db)
    pin(db, "run-4")
    comp = compare(make_card(40, 0, "1", output="next"), db, baseline_label="run-2")
    assert comp["baseline"]["id"] == ids[1] and comp["baseline"]["chosen"] == "label"
    policy = {"regression": {"required": True, "baseline": "run-5"}, "gate": {"thresholds": {DIM: 0.5}}}
    comp = compare(make_card(40, 0, "1", policy=policy, output="next"), db)
    assert comp["baseline"]["id"] == ids[4] and comp["baseline"]["chosen"] == "label"


# --------------------------------------------------------------------------- a FAIL is never a baseline
def test_a_regressed_run_cannot_be_pinned_and_rerunning_it_stays_fail(db):
    _, _, id1 = run(make_card(40, 0, "1"), db, label="good")
    bad, comp, id2 = run(make_card(20, 20, "2"), db, label="bad")
    assert comp["status"] == "regressed" and bad.decision == "FAIL"
    with pytest.raises(sk.InputError, match=r"record 2 labelled 'bad' .*cannot be pinned: not eligible: decision FAIL"):
        pin(db, "bad")
    assert read_history(db)["pin_order"].isna().all()  # nothing written
    for k in range(3):  # rerunning the regressed agent meets the first record again and again
        again, comp_again, _ = run(make_card(20, 20, "2", output=f"rerun {k}"), db, label="bad")
        assert comp_again["baseline"]["id"] == id1 and again.decision == "FAIL", k
    assert not read_history(db).loc[id2, "eligible"]


def test_a_first_run_measured_fail_cannot_be_pinned(db):
    run(make_card(2, 38, "1"), db, label="failing")
    with pytest.raises(sk.InputError, match="not eligible: decision FAIL, measured decision FAIL, comparison missing"):
        pin(db, "failing")


def test_a_pinned_record_stays_the_baseline_when_a_later_run_regresses(db):
    _unchanged_runs(db, 2)
    rid = pin(db, "run-2")
    run(make_card(20, 20, "2"), db, label="bad")
    final, comp, _ = run(make_card(20, 20, "2", output="again"), db)
    assert comp["baseline"]["id"] == rid and final.decision == "FAIL"


# --------------------------------------------------------------------------- refusals
def test_pin_of_a_label_no_record_carries_names_the_label_and_the_database(db):
    _unchanged_runs(db, 1)
    with pytest.raises(sk.InputError, match=rf"^{db}: no record labelled 'release-9'$"):
        pin(db, "release-9")
    with pytest.raises(sk.InputError, match="no record labelled 'release-9'"):
        unpin(db, "release-9")
    with pytest.raises(sk.InputError, match="no record labelled 'run-1' is pinned"):
        unpin(db, "run-1")


def test_pin_in_a_database_that_does_not_exist_is_refused_and_creates_nothing(tmp_path):
    db = tmp_path / "absent.sqlite"
    with pytest.raises(sk.HistoryError, match="absent.sqlite: no history database here"):
        pin(db, "x")
    with pytest.raises(sk.HistoryError, match="no history database here"):
        unpin(db, "x")
    assert not db.exists()


@pytest.mark.parametrize("label", ["", "  ", None, 3])
def test_pin_needs_a_label(db, label):
    _unchanged_runs(db, 1)
    with pytest.raises(ValueError, match="label must be a non-empty string"):
        pin(db, label)


# --------------------------------------------------------------------------- a damaged pin is refused
@pytest.mark.parametrize(
    ("edit", "field"),
    [
        ("UPDATE records SET pinned_at = 'yesterday', pin_order = 1 WHERE id = 1", "pinned_at is 'yesterday'"),
        ("UPDATE records SET pinned_at = '2026-01-01T00:00:00+00:00' WHERE id = 1", "pin_order is NULL"),
        ("UPDATE records SET pin_order = 1 WHERE id = 1", "pinned_at is NULL"),
        ("UPDATE records SET pinned_at = '2026-01-01T00:00:00+00:00', pin_order = 0 WHERE id = 1", "pin_order is 0"),
        ("UPDATE records SET pinned_at = '2026-01-01T00:00:00+00:00', pin_order = 'first' WHERE id = 1",
         "pin_order is 'first'"),
        ("UPDATE records SET pinned_at = X'3230', pin_order = 1 WHERE id = 1", "pinned_at is b'20'"),
        ("UPDATE records SET pinned_at = '2026-01-01T00:00:00+00:00', pin_order = 1 WHERE id < 3",
         "another pinned record"),
        ("UPDATE records SET pinned_at = '2026-01-01T00:00:00+00:00', pin_order = 5 WHERE id = 3",
         "can never be a baseline"),
    ],
)
def test_an_edited_pin_is_refused_by_every_reader(db, edit, field):
    _unchanged_runs(db, 2)
    run(make_card(20, 20, "2"), db, label="bad")  # record 3: regressed
    conn = sqlite3.connect(db)
    try:
        conn.execute(edit)
        conn.commit()
    finally:
        conn.close()
    with pytest.raises(sk.HistoryError, match=field):
        read_history(db)
    if edit.endswith("WHERE id = 1"):  # the pinned baseline compare reads back is checked too
        with pytest.raises(sk.HistoryError, match=field):
            with_comparison(make_card(40, 0, "1", output="next"), compare(make_card(40, 0, "1", output="next"), db))
