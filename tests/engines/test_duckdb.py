"""The duckdb engine (SPEC §16, issue 15): pre-scored rows read and screened
inside DuckDB give exactly the pandas engine's scorecard and evidence; rows the
SQL screen cannot vouch for are checked by the pandas engine's code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _corpus import comparable, raw_rows
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit import cli

pytest.importorskip("duckdb")

PRESCORED = ("id", "case_id", "dimension", "trial", "status", "evaluator", "run")


def _prescored_subset() -> list[dict]:
    """The corpus's pre-scored rows, plus irregular ones for every screen."""
    rows = [json.loads(line) for line in raw_rows(300) if line.startswith('{"')]
    rows = [{k: r[k] for k in PRESCORED if k in r} for r in rows if "status" in r]
    rows += [
        {"id": "m1", "case_id": "m", "dimension": "graded", "trial": 0, "status": "PASS", "evaluator": "mock-judge"},
        {"id": "b1", "case_id": "b", "dimension": "graded", "trial": 0, "status": "MAYBE", "evaluator": "harness-x"},
        {"id": "e1", "case_id": "e", "dimension": "graded", "trial": 0, "status": "PASS", "evaluator": " "},
        {"id": "n1", "case_id": "n", "dimension": "graded", "trial": 0, "status": "FAIL"},
        {"id": rows[0]["id"], "case_id": "dup", "dimension": "graded", "trial": 5, "status": "PASS",
         "evaluator": "harness-x"},
        {"id": "u1", "case_id": "\u3000", "dimension": "graded", "trial": 1, "status": "PASS", "evaluator": "h"},
        {"id": "r1", "case_id": "r", "dimension": "graded", "trial": 0, "status": "ERROR", "evaluator": "h",
         "reason": "harness_timeout"},
    ]
    return rows


def _write(rows: list[dict], path: Path, row_group_size: int = 50) -> Path:
    names = [*PRESCORED, "reason"]
    table = pa.table({n: [r.get(n) for r in rows] for n in names},
                     schema=pa.schema([(n, pa.int64() if n == "trial" else pa.string()) for n in names]))
    pq.write_table(table, path, row_group_size=row_group_size)
    return path


@pytest.fixture(scope="module")
def prescored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(_prescored_subset(), tmp_path_factory.mktemp("duckdb") / "rows.parquet")


def test_duckdb_engine_gives_the_pandas_engine_scorecard_and_evidence(prescored):
    want = sk.evaluate(prescored)
    got = sk.evaluate(prescored, engine="duckdb")
    assert comparable(got) == comparable(want)
    assert got.evidence.equals(want.evidence)
    reasons = {p["field"] for p in got.to_dict()["validation"]["problems"]}
    assert {"status", "evaluator", "id"} <= reasons  # the irregular rows were checked, fail closed
    assert got.decision == "SELF_TEST"  # the mock evaluator was seen although SQL did not score its row


@settings(max_examples=8, deadline=None)
@given(split=st.integers(1, 6), seed=st.randoms(use_true_random=False))
def test_duckdb_engine_reads_a_directory_of_files_in_name_order(tmp_path_factory, split, seed):
    """Any number of files, written in any order: the same hashes and counts as one file."""
    rows = _prescored_subset()
    folder = tmp_path_factory.mktemp("parts")
    size = -(-len(rows) // split)
    parts = list(enumerate(rows[i:i + size] for i in range(0, len(rows), size)))
    seed.shuffle(parts)
    for i, part in parts:
        _write(part, folder / f"part-{i:03d}.parquet", row_group_size=17)
    whole = _write(rows, folder.parent / f"{folder.name}-whole.parquet")
    got, want = sk.evaluate(folder, engine="duckdb"), sk.evaluate(whole)
    data, expected = json.loads(comparable(got)), json.loads(comparable(want))
    assert data["hashes"] == expected["hashes"] and data["dimensions"] == expected["dimensions"]
    assert data["decision"] == expected["decision"]


def test_columns_that_need_a_scorer_are_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "raw.parquet"
    pd.DataFrame({"id": ["a"], "dimension": ["task_completion"], "agent_output": ["x"], "status": ["PASS"],
                  "evaluator": ["h"]}).to_parquet(path)
    code = cli.main(["run", "--results", str(path), "--engine", "duckdb", "--out-dir", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "agent_output" in err and "--engine pandas" in err


def test_run_engine_duckdb(prescored, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "run", "--results", str(prescored), "--engine", "duckdb",
                           "--out-dir", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads((out / "scorecard.json").read_text())
    data.pop("generated_at")
    assert json.dumps(data, sort_keys=True) == json.dumps(json.loads(comparable(sk.evaluate(prescored))),
                                                          sort_keys=True)


def test_duckdb_engine_evaluates_one_agent_of_several_like_the_pandas_engine(tmp_path):
    rows = [dict(r, agent="agent-a" if i % 3 else "agent-b") for i, r in enumerate(_prescored_subset())]
    names = [*PRESCORED, "reason", "agent"]
    path = tmp_path / "agents.parquet"
    pq.write_table(pa.table({n: [r.get(n) for r in rows] for n in names},
                            schema=pa.schema([(n, pa.int64() if n == "trial" else pa.string()) for n in names])), path)
    with pytest.raises(sk.InputError, match="agent"):
        sk.evaluate(path, engine="duckdb")
    assert comparable(sk.evaluate(path, engine="duckdb", agent="agent-b")) == comparable(
        sk.evaluate(path, agent="agent-b"))


# --------------------------------------------------------------------------- counted inside DuckDB
_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=6)
_AWKWARD = st.one_of(st.sampled_from(["a", "b", "c", 'q"uote', "back\\slash", "tab\there", "nl\nx", "é", "😀",
                                      " ", "", "mock"]), _TEXT)


@st.composite
def _prescored_rows(draw: st.DrawFn) -> tuple[list[dict], bool]:
    """Pre-scored rows with awkward strings, repeated ids and trials, runs as text or as numbers."""
    numeric_run = draw(st.booleans())
    rows = []
    for i in range(draw(st.integers(1, 40))):
        row = {
            "id": draw(st.one_of(st.just(f"r{i}"), _AWKWARD, st.none())),
            "dimension": draw(st.one_of(st.sampled_from(["task", "tone", 'd"q', "d\\b"]), _AWKWARD, st.none())),
            "case_id": draw(st.one_of(st.sampled_from(["c1", "c2", "c3", 'c"4', "c\t5"]), _AWKWARD, st.none())),
            "trial": draw(st.one_of(st.integers(0, 3), st.none(), st.just(-1))),
            "status": draw(st.sampled_from(["PASS", "PASS", "FAIL", "ERROR", "ABSTAIN", "pass", None])),
            "evaluator": draw(st.sampled_from(["harness", "harness", "mock-grader", "", None])),
            "reason": draw(st.one_of(st.none(), st.sampled_from(["timeout", 'r"q', ""]))),
            "run": draw(st.one_of(st.none(), st.integers(0, 2))) if numeric_run
            else draw(st.one_of(st.none(), st.sampled_from(["r0", "r1", 'r"2', " "]))),
        }
        rows.append(row)
    return rows, numeric_run


def _write_typed(rows: list[dict], path: Path, numeric_run: bool) -> Path:
    names = [*PRESCORED, "reason"]
    kinds = {"trial": pa.int64(), "run": pa.int64() if numeric_run else pa.string()}
    pq.write_table(pa.table({n: [r.get(n) for r in rows] for n in names},
                            schema=pa.schema([(n, kinds.get(n, pa.string())) for n in names])), path,
                   row_group_size=7)
    return path


@settings(max_examples=60, deadline=None)
@given(drawn=_prescored_rows(), purpose=st.sampled_from(["release", "exploratory"]),
       threshold=st.sampled_from([0, 10**7]))
def test_counting_inside_duckdb_gives_the_pandas_engine_card(tmp_path_factory, drawn, purpose, threshold):
    """Scores, duplicates, statistics, findings, hashes and evidence rows: all the pandas engine's."""
    rows, numeric_run = drawn
    path = _write_typed(rows, tmp_path_factory.mktemp("counted") / "rows.parquet", numeric_run)
    policy = {"purpose": purpose}
    want = sk.evaluate(path, policy=policy)
    got = sk.evaluate(path, policy=policy, engine="duckdb", evidence_rows_in_memory=threshold)
    data = json.loads(comparable(got))
    if threshold == 0:
        assert data.pop("evidence")["file"] == "evidence/"
        rows_back = got.evidence_dataset().to_table().to_pandas()
    else:
        rows_back = got.evidence
    expected = json.loads(comparable(want))
    expected.pop("evidence") if threshold == 0 else None
    assert data == expected
    pd.testing.assert_frame_equal(rows_back, want.evidence)
    pd.testing.assert_frame_equal(got.case_counts, want.case_counts)


def test_a_dataset_of_many_parts_holds_the_rows_in_order(prescored, monkeypatch):
    from scorekit.reports import parquet as parquet_report

    monkeypatch.setattr(parquet_report, "PART_ROWS", 37)
    got = sk.evaluate(prescored, engine="duckdb", evidence_rows_in_memory=0)
    want = sk.evaluate(prescored)
    files = sorted(Path(f).name for f in got.evidence_dataset().files)
    assert files == [parquet_report.part_name(i) for i in range(-(-len(want.evidence) // 37))]
    pd.testing.assert_frame_equal(got.evidence_dataset().to_table().to_pandas(), want.evidence)
    meta = sk.reports.read_evidence_metadata(got.evidence_dataset().files[-1])
    assert meta["hashes"]["evidence"] == want.hashes["evidence"] and meta["rows"] == len(want.evidence)


@pytest.mark.parametrize("layout", ["balanced", "unbalanced", "runs", "a trial missing"])
def test_run_to_run_variance_counted_inside_duckdb(tmp_path, layout):
    """Trials stand in for runs only when every case has the same trial numbers (SPEC §6)."""
    rows = []
    for case in range(6):
        trials = range(3) if layout != "unbalanced" or case else range(2)
        for trial in trials:
            row = {"id": f"{case}-{trial}", "case_id": f"c{case}", "dimension": "task", "trial": trial,
                   "status": "PASS" if (case + trial) % 3 else "FAIL", "evaluator": "harness"}
            if layout == "runs":
                row["run"] = f"run{trial}"
            if layout == "a trial missing" and case == 2 and trial == 1:
                row.pop("trial")
            rows.append(row)
    path = _write_typed(rows, tmp_path / "rows.parquet", numeric_run=False)
    want, got = sk.evaluate(path), sk.evaluate(path, engine="duckdb", evidence_rows_in_memory=0)
    variance = got.to_dict()["dimensions"][0]["variance"]
    assert variance == want.to_dict()["dimensions"][0]["variance"]
    assert (variance is None) == (layout in ("unbalanced", "a trial missing"))  # no run structure: no variance


@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.text(max_size=5), max_size=30), batch=st.integers(1, 4))
def test_a_list_hash_streamed_from_duckdb_in_batches_is_list_hash(values, batch):
    """The sorted digests arrive batch by batch; the separators between batches are the list's own."""
    from scorekit._hashing import list_hash, sha256_hex
    from scorekit.engines import _counted
    from scorekit.engines.duckdb import connect

    con = connect()
    try:
        con.register("v", pa.table({"t": pa.array(values, pa.string())}))
        original = _counted.BATCH_ROWS
        _counted.BATCH_ROWS = batch
        try:
            got = _counted._sorted_hash(con, "SELECT sha256(t) AS d FROM v")
        finally:
            _counted.BATCH_ROWS = original
    finally:
        con.close()
    assert got == list_hash([sha256_hex(v.encode()) for v in values], sort=True)
