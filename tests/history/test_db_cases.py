"""Per-(dimension, case) counts in the history and the migration of a schema-1 database (SPEC §10).

``tests/data/history/v1.sqlite`` was written by scorekit at history schema 1
(before per-case counts; see ``build_v1_fixture.py`` beside it). Tests work on
copies: opening a WAL database creates files beside it.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_db_concurrency import KILLED, WRITER, _spawn, race

import scorekit as sk
from scorekit import history
from scorekit._counts import case_table
from scorekit.history import compare, read_history, record, with_comparison

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "history" / "v1.sqlite"
DIM = "task_completion"


@pytest.fixture
def old_db(tmp_path):
    """A private copy of the schema-1 database: 2 records, 2 dimensions each."""
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FIXTURE, path)
    return path


def _schema(path) -> tuple[str, set[str], set[str]]:
    """(meta schema_version, table names, columns of `records`), read with plain sqlite3."""
    conn = sqlite3.connect(path)
    try:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = {r[1] for r in conn.execute("PRAGMA table_info(records)")}
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    return version, tables, columns


def _card(version: str = "2.0", fails: int = 1, dimension: str = DIM) -> sk.Scorecard:
    """Eight cases of three trials; ``fails`` cases fail their first trial."""
    rows = [{"id": f"{dimension}-{c}-{t}", "dimension": dimension, "case_id": f"case-{c}", "trial": t,
             "status": "FAIL" if c < fails and t == 0 else "PASS", "evaluator": "h",
             "agent_output": f"output of {version} #{c}/{t}"} for c in range(8) for t in range(3)]
    return sk.evaluate(rows, policy={"gate": {"thresholds": {dimension: 0.5}}},
                       agent_name="fixture-agent", agent_version=version)


# --------------------------------------------------------------------------- per-case counts
def test_record_stores_per_case_counts_of_the_agent_rows(tmp_path):
    db = tmp_path / "history.sqlite"
    rows = []
    for case, statuses in {"a": "PPF", "b": "PPP", "c": "FEA", "d": "EE"}.items():
        for t, s in enumerate(statuses):
            rows.append({"id": f"{case}{t}", "dimension": DIM, "case_id": case, "trial": t, "evaluator": "h",
                         "status": {"P": "PASS", "F": "FAIL", "E": "ERROR", "A": "ABSTAIN"}[s]})
    rows += [{"id": "t0", "dimension": "tool_call", "case_id": "a", "status": "PASS", "evaluator": "h"},
             # an evaluator control: checks the detector, never an agent case
             {"id": "kb", "dimension": "pii", "case_id": "kb-case", "agent_output": "SSN 123-45-6789",
              "tags": ["known-bad"]},
             # unlabeled (no completion criteria): an exploratory scan drops it
             {"id": "u", "dimension": DIM, "case_id": "u-case", "must_include": [], "agent_output": "x"}]
    card = sk.evaluate(rows, policy={"purpose": "exploratory"})
    assert card.controls and not card.evidence["included"].all()
    rid = record(card, db, label="x")

    stored = read_history(db, cases=True)
    got = {(d, c): (p, n) for d, c, p, n in stored[["dimension", "case_id", "passes", "n"]].itertuples(index=False)}
    assert got == {(DIM, "a"): (2, 3), (DIM, "b"): (3, 3), (DIM, "c"): (0, 1), (DIM, "d"): (0, 0),
                   ("tool_call", "a"): (1, 1)}
    # The one counting path: exactly case_table over the card's evidence.
    counts = case_table(card.evidence).reset_index()
    assert stored["passes"].tolist() == counts["passes"].tolist() and stored["n"].tolist() == counts["n"].tolist()
    assert stored["case_id"].tolist() == [str(c) for c in counts["case_id"]]
    assert (stored["record_id"] == rid).all() and (stored["label"] == "x").all()
    assert stored.loc[stored["case_id"] == "a", "rate"].tolist() == [2 / 3, 1.0]
    assert np.isnan(stored.loc[stored["case_id"] == "d", "rate"].iloc[0])  # no measured trial: no rate
    # Per case they add up to the per-dimension counts the record stores.
    dims = read_history(db, dimensions=True).set_index("dimension")
    assert stored.groupby("dimension")["passes"].sum().to_dict() == dims["passes"].to_dict()
    assert stored.groupby("dimension")["n"].sum().to_dict() == dims["n"].to_dict()
    assert bool(read_history(db).loc[rid, "has_case_counts"])


def test_read_history_cases_is_exclusive_with_dimensions(tmp_path):
    db = tmp_path / "h.sqlite"
    record(_card(), db)
    with pytest.raises(ValueError, match="not both"):
        read_history(db, dimensions=True, cases=True)


def test_new_database_is_created_at_the_current_schema(tmp_path):
    db = tmp_path / "h.sqlite"
    record(_card(), db)
    version, tables, columns = _schema(db)
    assert version == str(history.SCHEMA_VERSION) == "3"
    assert "cases" in tables and {"has_case_counts", "pinned_at", "pin_order"} <= columns


# --------------------------------------------------------------------------- the old database
def test_fixture_is_a_schema_1_database(old_db):
    version, tables, columns = _schema(old_db)
    assert version == "1" and tables == {"meta", "records", "dimensions", "sqlite_sequence"}
    assert "has_case_counts" not in columns


def test_schema_1_database_is_read_as_it_is_and_never_changed_by_a_read(old_db):
    frame = read_history(old_db)
    assert frame["label"].tolist() == ["release-1.0", "release-1.1"]
    assert frame["decision"].tolist() == ["INCOMPLETE", "PASS"] and frame["eligible"].tolist() == [True, True]
    assert frame["has_case_counts"].tolist() == [False, False]
    long = read_history(old_db, dimensions=True)
    assert len(long) == 4 and set(long["dimension"]) == {DIM, "tool_call"}
    assert long.loc[(long["record_id"] == 2) & (long["dimension"] == DIM), ["passes", "n"]].iloc[0].tolist() == [22, 24]
    cases = read_history(old_db, cases=True)
    assert cases.empty and {"record_id", "dimension", "case_id", "passes", "n", "rate"} <= set(cases.columns)
    compare(_card(), old_db)
    assert _schema(old_db)[0] == "1"  # reads do not migrate


def test_schema_1_database_is_migrated_on_first_write(old_db):
    before = read_history(old_db)
    before_dims = read_history(old_db, dimensions=True)
    rid = record(_card(), old_db, label="after-upgrade")
    version, tables, columns = _schema(old_db)
    assert version == "3" and "cases" in tables and {"has_case_counts", "pinned_at", "pin_order"} <= columns

    after = read_history(old_db)
    assert list(after.index) == [1, 2, rid] and rid == 3
    old = after.loc[before.index]
    pd.testing.assert_frame_equal(old, before)  # the old records read exactly as before
    assert after["has_case_counts"].tolist() == [False, False, True]
    pd.testing.assert_frame_equal(read_history(old_db, dimensions=True).iloc[: len(before_dims)], before_dims)
    cases = read_history(old_db, cases=True)
    assert set(cases["record_id"]) == {rid} and len(cases) == 8
    # A second write finds the new schema and just writes.
    assert record(_card("2.1"), old_db) == rid + 1
    assert _schema(old_db)[0] == "3"


def _as_schema_1(old_db, tmp_path, cards) -> list[int]:
    """Empty ``old_db`` (schema 1) and fill it with ``cards`` as schema-1 scorekit recorded them.

    The cards are recorded (compare, decision, record) into a current database,
    and the columns schema 1 has are copied over: real records of this suite
    and policy, in the old schema, whatever the hashes of this scorekit are.
    """
    new = tmp_path / "current.sqlite"
    ids = [record(with_comparison(card, compare(card, new)), new) for card in cards]
    conn = sqlite3.connect(old_db)
    try:
        conn.execute("ATTACH DATABASE ? AS current", (str(new),))
        for table in ("dimensions", "records"):
            conn.execute(f"DELETE FROM main.{table}")
        for table in ("records", "dimensions"):
            columns = ", ".join(r[1] for r in conn.execute(f"PRAGMA main.table_info({table})"))
            conn.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM current.{table}")
        conn.commit()
        conn.execute("DETACH DATABASE current")
    finally:
        conn.close()
    assert _schema(old_db)[0] == "1"
    return ids


def test_old_records_compare_with_the_unpaired_methods(old_db, tmp_path):
    (baseline,) = _as_schema_1(old_db, tmp_path, [_card("1.0", fails=2)])
    card = _card("2.0", fails=3)
    for method in ("newcombe", "point"):
        comp = compare(card, old_db, regression={"required": False, "method": method, "max_drop": 0.1})
        assert comp["status"] == "passed" and comp["baseline"]["id"] == baseline, method
        (entry,) = comp["regressions"]
        assert entry["method"] == method and entry["shared_cases"] is None  # no per-case counts there
        assert entry["difference"] == pytest.approx(-1 / 24)
        assert entry["ci_low"] < entry["difference"] < entry["ci_high"]
    assert _schema(old_db)[0] == "1"


def test_paired_against_an_old_record_falls_back_to_newcombe(old_db, tmp_path):
    """SPEC §18: a record without per-case counts is compared with newcombe, and the entry says so."""
    (baseline,) = _as_schema_1(old_db, tmp_path, [_card("1.0")])
    card = _card("2.0")
    comp = compare(card, old_db, regression={"required": True, "method": "paired"})
    assert comp["baseline"]["id"] == baseline
    assert comp["status"] == "passed" and comp["comparisons"] == 1
    assert "paired fell back to newcombe" in comp["detail"] and f"record {baseline}" in comp["detail"]
    (entry,) = comp["regressions"]
    assert entry["method"] == "paired" and entry["method_used"] == "newcombe" and entry["controlled"]
    assert entry["shared_cases"] is None and entry["regressed_cases"] is None
    assert "baseline has none: fell back to newcombe" in entry["rule"]
    assert entry["p_value"] == 1.0  # no drop observed
    assert with_comparison(card, comp).decision == "PASS"


def test_a_failed_write_leaves_the_old_schema(old_db, monkeypatch):
    def broken(*_args):
        raise sqlite3.OperationalError("disk I/O error (simulated)")

    monkeypatch.setattr(history._db, "_insert_cases", broken)
    with pytest.raises(sk.HistoryError, match="simulated"):
        record(_card(), old_db, label="lost")
    version, tables, columns = _schema(old_db)
    assert version == "1" and "cases" not in tables and "has_case_counts" not in columns
    assert read_history(old_db)["label"].tolist() == ["release-1.0", "release-1.1"]


@pytest.mark.timeout(120)
def test_a_writer_killed_while_migrating_leaves_the_old_schema(old_db):
    proc = _spawn(KILLED, str(old_db))  # stops inside record()'s transaction, after the migration
    try:
        line = proc.stdout.readline().split()
        assert line[:1] == ["ready"], proc.stderr.read()
        # Meanwhile readers see the old database whole.
        assert read_history(old_db)["has_case_counts"].tolist() == [False, False]
        assert read_history(old_db, cases=True).empty
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    version, tables, columns = _schema(old_db)
    assert version == "1" and "cases" not in tables and "has_case_counts" not in columns
    assert len(read_history(old_db)) == 2
    rid = record(_card(), old_db)  # the next write migrates
    assert _schema(old_db)[0] == "3" and read_history(old_db)["has_case_counts"].tolist() == [False, False, True]
    assert rid == 3


@pytest.mark.timeout(180)
def test_concurrent_writers_migrate_an_old_database_once(old_db):
    writers, each = 4, 5
    procs = [_spawn(WRITER, str(old_db), str(w), str(each)) for w in range(writers)]

    def read() -> None:  # a reader during the migration never fails
        frame = read_history(old_db)
        assert len(frame) >= 2 and frame.loc[[1, 2], "label"].tolist() == ["release-1.0", "release-1.1"]

    race(procs, read)
    version, tables, _ = _schema(old_db)
    assert version == "3" and "cases" in tables
    frame = read_history(old_db)
    assert len(frame) == 2 + writers * each
    assert frame["has_case_counts"].tolist() == [False, False] + [True] * (writers * each)
    cases = read_history(old_db, cases=True)
    assert sorted(set(cases["record_id"])) == sorted(frame.index[2:])
    assert (cases.groupby("record_id").size() == 5).all()  # each writer's card has 5 cases
