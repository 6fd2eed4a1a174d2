"""Histories written before pins: read, compared against their earliest eligible record, pinned (SPEC §10).

``tests/data/history/v1.sqlite`` (schema 1, no per-case counts) and ``v2.sqlite``
(schema 2, per-case counts, no pins) were written by older scorekits (see the
``build_v*_fixture.py`` scripts beside them). Tests work on copies. The
comparability key (suite and policy hash, judges, scoring version) of a copy's
records is set to this scorekit's key for the fixture's cards first, so the
records stay comparable whatever later versions change in hashing: what is
tested is the schema, not the hashes.
"""

from __future__ import annotations

import importlib.util
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pandas as pd
import pytest
from test_db_concurrency import WRITER, _spawn, race

import scorekit as sk
from scorekit.history import compare, pin, read_history, record, unpin, with_comparison
from scorekit.history._card import _key

DATA = Path(__file__).resolve().parents[1] / "data" / "history"


def _builder(version: int):
    """The fixture's build script as a module (its ``card`` function builds the cards it recorded)."""
    spec = importlib.util.spec_from_file_location(f"build_v{version}_fixture", DATA / f"build_v{version}_fixture.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _schema(path) -> tuple[str, set[str]]:
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        columns = {r[1] for r in conn.execute("PRAGMA table_info(records)")}
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    return version, columns


def _comparable_copy(version: int, tmp_path) -> tuple[Path, sk.Scorecard]:
    """A copy of fixture ``version`` whose records carry this scorekit's key, and a new card of that suite."""
    path = tmp_path / f"v{version}.sqlite"
    shutil.copyfile(DATA / f"v{version}.sqlite", path)
    card = _builder(version).card("9.0", 0)
    suite, policy, judges, scoring = _key(card)
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE records SET suite_hash = ?, policy_hash = ?, judges = ?, scoring_version = ?",
                     (suite, policy, judges, scoring))
        conn.commit()
    finally:
        conn.close()
    return path, card


@pytest.fixture
def v2(tmp_path):
    return _comparable_copy(2, tmp_path)


@pytest.fixture
def v1(tmp_path):
    return _comparable_copy(1, tmp_path)


# --------------------------------------------------------------------------- schema 2
def test_the_v2_fixture_is_schema_2_without_pins():
    version, columns = _schema(DATA / "v2.sqlite")
    assert version == "2" and "has_case_counts" in columns and not {"pinned_at", "pin_order"} & columns


def test_a_schema_2_history_is_read_with_no_pins(tmp_path):
    path = tmp_path / "v2.sqlite"
    shutil.copyfile(DATA / "v2.sqlite", path)  # as it was written, hashes and all
    frame = read_history(path)
    assert frame["label"].tolist() == ["release-1.0", "nightly", "broken"]
    assert frame["decision"].tolist() == ["INCOMPLETE", "PASS", "FAIL"]
    assert frame["eligible"].tolist() == [True, True, False]
    assert frame["pinned_at"].isna().all() and frame["pin_order"].isna().all()
    assert str(frame["pinned_at"].dtype).startswith("datetime64") and str(frame["pin_order"].dtype) == "Int64"
    assert len(read_history(path, cases=True)) == 3 * 2 * 8
    assert _schema(path)[0] == "2"  # a read never migrates


def test_a_schema_2_history_compares_with_its_earliest_eligible_record(v2):
    db, card = v2
    comp = compare(card, db)
    # Not record 2 (the latest eligible, which scorekit at ecf8f4a chose), and never the regressed record 3.
    assert comp["baseline"]["id"] == 1 and comp["baseline"]["chosen"] == "earliest"
    assert comp["baseline"]["pinned_at"] is None and comp["status"] == "passed"
    assert _schema(db)[0] == "2"


def test_a_schema_2_history_is_pinned_migrating_on_that_write(v2):
    db, card = v2
    before = read_history(db)
    assert pin(db, "nightly") == 2
    version, columns = _schema(db)
    assert version == "3" and {"pinned_at", "pin_order"} <= columns
    after = read_history(db)
    assert after["pin_order"].tolist() == [pd.NA, 1, pd.NA]
    unchanged = [c for c in before.columns if c not in ("pinned_at", "pin_order")]
    pd.testing.assert_frame_equal(after[unchanged], before[unchanged])  # the records read as before
    comp = compare(card, db)
    assert comp["baseline"]["id"] == 2 and comp["baseline"]["chosen"] == "pinned"
    # A run recorded next compares with the pin and is recorded at schema 3.
    final = with_comparison(card, comp)
    rid = record(final, db, label="9.0")
    assert read_history(db).loc[rid, "baseline_id"] == 2


def test_pinning_a_regressed_record_of_an_old_history_is_refused_and_migrates_nothing(v2):
    db, _ = v2
    with pytest.raises(sk.InputError, match="record 3 labelled 'broken' .*not eligible: decision FAIL"):
        pin(db, "broken")
    with pytest.raises(sk.InputError, match="no record labelled 'absent'"):
        pin(db, "absent")
    with pytest.raises(sk.InputError, match="no record labelled 'nightly' is pinned"):
        unpin(db, "nightly")
    assert _schema(db)[0] == "2"


# --------------------------------------------------------------------------- schema 1
def test_a_schema_1_history_compares_with_its_earliest_record_and_is_pinned(v1):
    db, card = v1
    assert read_history(db)["pinned_at"].isna().all()
    comp = compare(card, db)
    assert comp["baseline"]["id"] == 1 and comp["baseline"]["chosen"] == "earliest"
    assert _schema(db)[0] == "1"
    assert pin(db, "release-1.1") == 2
    version, columns = _schema(db)
    assert version == "3" and {"has_case_counts", "pinned_at", "pin_order"} <= columns
    comp = compare(card, db)
    assert comp["baseline"]["id"] == 2 and comp["baseline"]["chosen"] == "pinned"
    frame = read_history(db)
    assert frame["has_case_counts"].tolist() == [False, False] and frame["pin_order"].tolist() == [pd.NA, 1]


# --------------------------------------------------------------------------- crash-safety of a pin
KILLED_PIN = """
import sys, time
from scorekit.history import _baseline
original = _baseline._set_pin

def stall(conn, record_id):
    original(conn, record_id)
    print("ready", record_id, flush=True)
    time.sleep(120)

_baseline._set_pin = stall  # pin() looks it up in _baseline at call time
_baseline.pin(sys.argv[1], sys.argv[2])
"""


@pytest.mark.timeout(120)
def test_a_pinner_killed_after_migrating_and_pinning_leaves_the_old_database(v2):
    db, card = v2
    proc = _spawn(KILLED_PIN, str(db), "nightly")  # stops inside pin()'s transaction, after its UPDATE
    try:
        line = proc.stdout.readline().split()
        assert line == ["ready", "2"], proc.stderr.read()
        # Meanwhile readers see the old database whole: no pin, the earliest baseline.
        assert read_history(db)["pin_order"].isna().all()
        assert compare(card, db)["baseline"]["chosen"] == "earliest"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _schema(db)[0] == "2" and read_history(db)["pin_order"].isna().all()
    started = time.monotonic()
    assert pin(db, "nightly") == 2  # the next pin migrates and pins at once
    assert time.monotonic() - started < 10  # no stale lock to wait out
    assert _schema(db)[0] == "3" and compare(card, db)["baseline"]["id"] == 2


# --------------------------------------------------------------------------- concurrent pinners
PINNER = """
import json, sys
from scorekit.history import pin

db, labels, count = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()
print(json.dumps([pin(db, labels[k % len(labels)]) for k in range(count)]), flush=True)
"""


@pytest.mark.timeout(180)
def test_concurrent_pinners_and_writers_migrate_once_and_lose_no_pin(v2):
    db, card = v2
    pinners, writers, each = 3, 2, 5
    procs = [_spawn(PINNER, str(db), "release-1.0,nightly" if p % 2 else "nightly,release-1.0", str(each))
             for p in range(pinners)]
    procs += [_spawn(WRITER, str(db), str(w), str(each)) for w in range(writers)]

    def read() -> None:  # a reader meanwhile never fails
        assert compare(card, db)["baseline"]["id"] in (1, 2)

    race(procs, read)
    assert _schema(db)[0] == "3"
    frame = read_history(db)  # checks that no two pins share an order
    assert len(frame) == 3 + writers * each
    orders = frame["pin_order"].dropna().astype(int)
    assert sorted(orders.index) == [1, 2]  # only the two labels pinned; each pin took a fresh order
    assert orders.max() == pinners * each
    latest = int(orders.idxmax())
    assert compare(card, db)["baseline"]["id"] == latest
