"""The history database: schema, WAL, reading, foreign and corrupt files (history/_db, SPEC §10)."""

from __future__ import annotations

import os
import sqlite3

import numpy as np
import pandas as pd
import pytest
from history_cards import DIM, make_card, run

import scorekit as sk
from scorekit import HistoryError, history
from scorekit.history import (
    compare,
    read_history,
    record,
)


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


def test_the_record_frame_holds_each_dimensions_rate_and_interval_side_by_side(tmp_path):
    import scorekit as sk
    from scorekit.history import read_history, record

    db = tmp_path / "history.sqlite"
    for version, passes in (("1.0", 45), ("1.1", 40)):
        rows = [{"id": f"r{i}", "dimension": "task_completion", "evaluator": "h",
                 "status": "PASS" if i < passes else "FAIL"} for i in range(50)]
        record(sk.evaluate(rows, agent_name="a", agent_version=version), db, label=f"v{version}")
    frame = read_history(db)
    long = read_history(db, dimensions=True).set_index("record_id")
    assert list(frame.index) == list(long.index)  # one row per record
    for field in ("rate", "ci_low", "ci_high", "n", "verdict"):
        assert frame[f"task_completion.{field}"].tolist() == long[field].tolist(), field
    assert frame["task_completion.rate"].tolist() == [0.9, 0.8]


def test_dimension_rows_reads_the_wide_columns_back_as_the_dimension_frame(db):
    run(make_card(8, 2, "1"), db, label="v1")
    rows = [{"id": f"r{i}", "dimension": "a.b.rate", "evaluator": "e", "status": "PASS" if i else "FAIL"}
            for i in range(4)] + [{"id": "e1", "dimension": "only.errors", "evaluator": "e", "status": "ERROR"}]
    history.record(sk.evaluate(rows, policy={"purpose": "exploratory"}), db, label="v2")
    records = history.read_history(db)
    rows = history.dimension_rows(records)
    expected = history.read_history(db, dimensions=True)
    expected = expected[["record_id", "dimension", "rate", "ci_low", "ci_high", "n", "verdict"]]
    assert list(rows.columns) == list(expected.columns)
    assert rows["record_id"].tolist() == expected["record_id"].tolist()
    assert rows["dimension"].tolist() == expected["dimension"].tolist()
    assert rows["verdict"].tolist() == expected["verdict"].tolist()
    assert rows["n"].astype("int64").tolist() == expected["n"].tolist()
    for column in ("rate", "ci_low", "ci_high"):
        np.testing.assert_array_equal(rows[column].to_numpy(dtype=float), expected[column].to_numpy(dtype=float))
    with pytest.raises(ValueError, match="not a history frame"):
        history.dimension_rows(pd.DataFrame({"x": [1]}))
