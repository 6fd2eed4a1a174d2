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
    # SPEC §18: the mock evaluator's PASS counts as given, with reason mock_judge, in both engines.
    row = got.evidence.set_index("id").loc["m1"]
    assert (row["status"], row["reason"]) == ("PASS", "mock_judge")
    counted = sk.evaluate(prescored, engine="duckdb", evidence_rows_in_memory=0)  # counted in SQL
    pd.testing.assert_frame_equal(counted.dimensions, want.dimensions)
    pd.testing.assert_frame_equal(counted.evidence_dataset().to_table().to_pandas(), want.evidence)
    assert counted.dimensions["judge_agreement"].isna().all()  # pre-scored rows carry no votes here


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
@given(values=st.lists(st.text(max_size=5), max_size=30), batch=st.integers(1, 4),
       extra=st.lists(st.text(max_size=5), max_size=5))
def test_list_hashes_streamed_from_duckdb_in_batches_are_list_hash(values, batch, extra):
    """Two digest columns arrive batch by batch in one pass (NULL: no digest), with digests from Python;
    each list is hashed as :func:`list_hash` hashes it."""
    from scorekit._hashing import list_hash, sha256_hex, sql_row_digest
    from scorekit.engines import _counted
    from scorekit.engines.duckdb import connect

    tx = "t || 'x'"
    con = connect()
    try:
        con.register("v", pa.table({"t": pa.array(values, pa.string())}))
        original = _counted.BATCH_ROWS
        _counted.BATCH_ROWS = batch
        try:
            got = _counted._sorted_hashes(
                con, f"SELECT {sql_row_digest('t')} AS a, CASE WHEN length(t) % 2 = 0 THEN {sql_row_digest(tx)} "
                "END AS b FROM v", ["a", "b"], {"a": [sha256_hex(v.encode()) for v in extra]})
        finally:
            _counted.BATCH_ROWS = original
    finally:
        con.close()
    assert got["a"] == list_hash([sha256_hex(v.encode()) for v in values + extra], sort=True)
    assert got["b"] == list_hash([sha256_hex((v + "x").encode()) for v in values if len(v) % 2 == 0], sort=True)


def test_duckdb_spills_into_a_directory_of_its_own_not_the_working_directory(tmp_path, monkeypatch):
    """DuckDB's default spill directory is ``.tmp`` in the working directory; the engine's connection
    spills into a temporary directory it owns, removed with the connection."""
    import gc

    from scorekit.engines._sql import arrow_batches, work_directory
    from scorekit.engines.duckdb import connect

    monkeypatch.chdir(tmp_path)
    con = connect(memory_limit="30MB")
    work = work_directory(con)
    spilled = []
    con.execute("SET threads = 1")
    for _batch in arrow_batches(con, "SELECT md5(CAST(i AS VARCHAR)) AS d FROM range(2000000) t(i) ORDER BY d"):
        if not spilled:  # the first batch of a sorted result comes after the whole input was sorted
            spilled = [p for p in (work / "spill").rglob("*") if p.is_file()]
    assert spilled, "the sort did not spill: the test checks nothing"
    assert not (tmp_path / ".tmp").exists() and list(tmp_path.iterdir()) == []
    con.close()
    del con
    gc.collect()
    assert not work.exists()


# --------------------------------------------------------------------------- CSV and JSON Lines (SPEC §16)
_TEXT_COLUMNS = (*PRESCORED, "reason", "agent")


def _irregular_rows() -> list[dict]:
    """Pre-scored rows, valid and not, for every check of the screen (text formats)."""
    rows = _prescored_subset()
    rows += [
        {"id": "", "case_id": "y", "dimension": "graded", "trial": 0, "status": "PASS", "evaluator": "h"},
        {"id": "s1", "case_id": "s", "dimension": "graded", "trial": "3", "status": "PASS", "evaluator": "h"},
        {"id": "s2", "case_id": "s", "dimension": "graded", "trial": 1, "status": "PASS", "evaluator": "h",
         "run": 7},
        {"id": "s3", "case_id": "s", "dimension": "graded", "trial": 2, "status": "FAIL", "evaluator": "h",
         "run": "nightly-3", "reason": "off by one"},
        {"id": "s4", "case_id": "s", "dimension": "graded", "trial": 3, "status": "pass", "evaluator": "h"},
        {"id": "s5", "case_id": "s", "dimension": "graded", "trial": 4, "status": "PASS", "evaluator": "MOCKllm/x"},
        {"id": "s6", "case_id": "s", "dimension": "graded", "trial": 5, "status": "PASS", "evaluator": "h",
         "agent": " "},
        {"id": "s7", "dimension": "graded", "status": "ABSTAIN", "evaluator": "h", "reason": ""},
        {"id": "s8", "case_id": "s", "dimension": "graded", "trial": 5, "status": "PASS", "evaluator": "h"},
        {"case_id": "s", "dimension": "graded", "trial": 9, "status": "PASS", "evaluator": "h"},
        {"id": "s9", "case_id": "s", "trial": 10, "status": "PASS", "evaluator": "h"},
    ]
    return rows


def _cell(value: object) -> str:
    return "" if value is None else str(value)


def _write_csv(rows: list[dict], path: Path, extra_lines: tuple[str, ...] = ()) -> Path:
    lines = [",".join(_TEXT_COLUMNS)]
    lines += [",".join(_cell(r.get(n)) for n in _TEXT_COLUMNS) for r in rows]
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path


def _write_jsonl(rows: list[dict], path: Path, extra_lines: tuple[str, ...] = ()) -> Path:
    lines = [json.dumps(r, ensure_ascii=False) for r in rows]
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path


_CSV_ODD = (  # columns: id, case_id, dimension, trial, status, evaluator, run, reason, agent
    "x1,x,graded,+2,PASS,h,,,",  # a signed trial: the csv reader's integer
    "x2,x,graded,2,PASS,h,01,,",  # a run that is not valid JSON
    "x3,x,graded,3,PASS,h,true,,",  # a run that is JSON true
    "x4,x,graded,4,PASS,h, 7 ,,",  # a run that is JSON 7
    "x5,x,graded,5,PASS,h,,,,extra",  # more cells than header columns
    "x6,x,graded,6,PASS,h",  # fewer cells: the rest are absent
    "   ",  # a row of one white-space cell
    "x7,x,graded,-1,PASS,h,,,",
    "x8,x,graded,7,PASS,h,null,,",  # a run that is JSON null: absent
    "x9,x,graded,8,PASS,h,r-9,,",  # a run that is a word
    "x10,x,graded,9,FAIL,h,12,late,",  # a run that is an integer
)
_JSONL_ODD = (
    "",
    "{not json",
    "   ",
    '{"id": "z1", "dimension": "graded", "status": "PASS", "evaluator": "h", "trial": 1e3}',
    '{"id": "z2", "dimension": "graded", "status": "PASS", "evaluator": "h", "status": "FAIL"}',
    '{"id": "z3", "dimension": "graded", "status": "PASS", "evaluator": "h", "trial": NaN}',
    '{"id": "z4", "dimension": "graded", "status": "PASS", "evaluator": "h\\u0041", "trial": 99999999999999999999}',
    '{"id": "z5", "dimension": "graded", "status": "PASS", "evaluator": "h", "trial": 9007199254740993}',
    '{"id": "z6", "dimension": "graded", "status": "PASS", "evaluator": "h", "case_id": null, "run": null}',
    '["id", "z7"]',
    '{"id": "z8", "dimension": "graded", "status": "FAIL", "evaluator": "h", "reason": "\\ud800"}',
    '  {"id":"z9","dimension":"graded","status":"PASS","evaluator":"h","trial":0}\t',
    '{"id": 10, "dimension": "graded", "status": "PASS", "evaluator": "h"}',
    '{"id": "z11", "dimension": "graded", "status": "PASS", "evaluator": "h", "run": 1.5}',
)


def _text_file(tmp_path: Path, kind: str, rows: list[dict] | None = None, name: str = "rows") -> Path:
    rows = _irregular_rows() if rows is None else rows
    if kind == "csv":
        return _write_csv(rows, tmp_path / f"{name}.csv", _CSV_ODD)
    return _write_jsonl(rows, tmp_path / f"{name}.jsonl", _JSONL_ODD)


def _problems(card: sk.Scorecard) -> list[tuple]:
    return [(p["line"], p["field"], p["message"], p.get("id")) for p in card.to_dict()["validation"]["problems"]]


def _assert_same(got: sk.Scorecard, want: sk.Scorecard) -> None:
    assert comparable(got) == comparable(want)
    assert got.evidence.equals(want.evidence)
    assert got.hashes == want.hashes
    assert _problems(got) == _problems(want)


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_csv_and_json_lines_give_the_pandas_engine_scorecard_evidence_and_problems(tmp_path, kind):
    path = _text_file(tmp_path, kind)
    want = sk.evaluate(path)
    got = sk.evaluate(path, engine="duckdb")
    _assert_same(got, want)
    fields = {p[1] for p in _problems(got)}
    assert {"status", "evaluator", "id", "dimension"} <= fields  # the irregular rows were checked, fail closed
    assert got.decision == "SELF_TEST"  # the mock evaluators were seen although SQL did not score their rows
    assert sk.evaluate(path, engine="duckdb", limit=9).hashes == sk.evaluate(path, limit=9).hashes


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_the_sql_screen_passes_plain_pre_scored_lines_and_nothing_else(tmp_path, kind):
    """The screen is used (plain rows are scored in SQL), and every row it passes is one the pandas
    reader and row check accept, with the same status and an evaluator that is no mock."""
    from scorekit._rows import open_source
    from scorekit._rows._normalise import check_row
    from scorekit.engines import duckdb as engine
    from scorekit.scorers.judges import is_mock

    path = _text_file(tmp_path, kind)
    con = engine.connect()
    try:
        read = engine.literal_files(con, [str(path)]).read[0]
        assert engine._text_source(con, str(path), read, kind, str(path), {}, 0, None) is not None
        passed = con.execute("SELECT line, status, evaluator FROM fields WHERE ok").fetchall()
    finally:
        con.close()
    checked = {line: check_row(value, deep)[0] if error is None else None
               for line, value, error, deep, _raw in open_source(path).items()}
    assert len(passed) >= 10 and len(passed) < len(checked)
    for line, status, evaluator in passed:
        row = checked[line]
        assert row is not None and (row["status"], row["evaluator"]) == (status, evaluator)
        assert not is_mock(evaluator)


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_text_files_of_several_agents_like_the_pandas_engine(tmp_path, kind):
    rows = [dict(r, agent="agent-a" if i % 3 else "agent-b") for i, r in enumerate(_irregular_rows())]
    path = _text_file(tmp_path, kind, rows)
    with pytest.raises(sk.InputError, match="agent"):
        sk.evaluate(path, engine="duckdb")
    _assert_same(sk.evaluate(path, engine="duckdb", agent="agent-b"), sk.evaluate(path, agent="agent-b"))


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_a_directory_of_text_files_reads_as_their_concatenation(tmp_path, kind):
    """A directory reads as each member file read alone, in name order, its lines numbered on from the
    previous member (CSV: one header), one not plain (read by the pandas reader): no member here is one
    JSON array line, so the same scorecard, evidence and problems as the one file they make."""
    rows = _irregular_rows()
    whole = _text_file(tmp_path, kind, rows)
    folder = tmp_path / "parts"
    folder.mkdir()
    text = whole.read_text(encoding="utf-8").splitlines(keepends=True)
    head, body = (text[:1], text[1:]) if kind == "csv" else ([], text)
    cuts = [0, 5, 6, 17, len(body)]
    for i, (start, stop) in enumerate(zip(cuts, cuts[1:], strict=False)):
        part = "".join(head + body[start:stop])
        if i == 1:  # a byte-order mark: this file is read whole by the pandas reader
            part = "\ufeff" + part
        (folder / f"part-{i:02d}.{kind}").write_text(part, encoding="utf-8")
    got, want = sk.evaluate(folder, engine="duckdb"), sk.evaluate(whole)
    assert got.evidence.equals(want.evidence)
    assert got.hashes == want.hashes and _problems(got) == _problems(want)
    data, expected = json.loads(comparable(got)), json.loads(comparable(want))
    assert data["dimensions"] == expected["dimensions"] and data["decision"] == expected["decision"]


_AWKWARD = st.one_of(
    st.sampled_from(["", " ", "\t", "3", "07", "-1", "1e3", "true", "null", "PASS", "FAIL", "mock", "Mock-x",
                     "a,b", 'say "hi"', "back\\slash", "ünïcödé", "\u3000", "x\u2028y", "[1]", "{}", "NaN"]),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x00\x01"), max_size=6),
)
_ROW = st.fixed_dictionaries(
    {"id": _AWKWARD, "dimension": st.sampled_from(["graded", "helpfulness", " ", ""])},
    optional={"case_id": _AWKWARD, "trial": st.one_of(st.integers(-2, 2**54), _AWKWARD),
              "status": st.sampled_from(["PASS", "FAIL", "ERROR", "ABSTAIN", "pass", " PASS", ""]),
              "evaluator": st.sampled_from(["harness-x", "h", "mock", "", " ", "ｍock", "caf\u00e9"]),
              "reason": _AWKWARD, "run": st.one_of(st.integers(-1, 2**54), _AWKWARD), "agent": _AWKWARD},
)


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(_ROW, min_size=1, max_size=12), kind=st.sampled_from(["csv", "jsonl"]),
       ascii_only=st.booleans())
def test_generated_pre_scored_rows_duckdb_equals_pandas(tmp_path_factory, rows, kind, ascii_only):
    import csv

    path = tmp_path_factory.mktemp("gen") / f"rows.{kind}"
    if kind == "csv":
        with path.open("w", encoding="utf-8", newline="") as fh:  # quotes only where a cell needs them
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(_TEXT_COLUMNS)
            writer.writerows([_cell(r.get(n)) for n in _TEXT_COLUMNS] for r in rows)
    else:
        path.write_text("".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in rows), encoding="utf-8")
    try:
        want = sk.evaluate(path)
    except sk.InputError as exc:
        with pytest.raises(sk.InputError) as got:
            sk.evaluate(path, engine="duckdb")
        assert str(got.value) == str(exc)
        return
    _assert_same(sk.evaluate(path, engine="duckdb"), want)


@pytest.mark.parametrize(("name", "content", "expected"), [
    ("rows.txt", '{"id": "a"}\n', "rows.txt: the duckdb engine reads Parquet, CSV or JSON Lines"),
    ("rows.csv", "id,dimension,status,evaluator,agent_output\na,graded,PASS,h,x\n", "agent_output need a scorer"),
    ("rows.jsonl", '{"id": "a", "dimension": "graded", "status": "PASS", "evaluator": "h", "score": 1}\n',
     "score need a scorer"),
    ("rows.jsonl", '{"id": "a", "dimension": "graded", "status": "PASS", "evaluator": "h", "tags": NaN}\n',
     "tags need a scorer"),
    ("rows.csv", '"id","dimension","status","evaluator","tags"\na,graded,PASS,h,x\n', "tags need a scorer"),
    ("rows.csv", "", "rows.csv: empty file, no rows"),
    ("rows.csv", "id,dimension,status,evaluator\n", "rows.csv: CSV file has a header but no rows"),
    ("rows.jsonl", "\n\n", "rows.jsonl: empty file, no rows"),
    ("rows.jsonl", b'{"id": "caf\xe9"}\n', "rows.jsonl: not UTF-8"),
    ("rows.json", '{\n  "eval": {},\n  "samples": []\n}\n', "rows.json: an Inspect AI eval log"),
    ("rows.json", "[]", "rows.json: an empty JSON array, no rows"),
])
def test_odd_files_stop_in_one_line_naming_the_file(tmp_path, capsys, name, content, expected):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(sk.InputError) as caught:
        sk.evaluate(path, engine="duckdb")
    message = str(caught.value)
    assert expected in message and str(path) in message and "\n" not in message
    if name != "rows.txt":  # a file the pandas engine reads stops there with the same message, or is scored
        try:
            sk.evaluate(path)
        except sk.InputError as exc:
            assert str(exc) == message
    code = cli.main(["run", "--results", str(path), "--engine", "duckdb", "--out-dir", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and str(path) in err


def test_a_directory_of_two_kinds_is_refused_in_one_line(tmp_path):
    """Every engine reads a directory through the one walk (``_rows._members.members``): one message."""
    _write_csv(_irregular_rows()[:3], tmp_path / "a.csv")
    _write_jsonl(_irregular_rows()[:3], tmp_path / "b.jsonl")
    with pytest.raises(sk.InputError, match="CSV and JSON Lines files; a directory is read as one file of one kind"):
        sk.evaluate(tmp_path, engine="duckdb")


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_plain_forms_the_pandas_reader_reads_its_own_way(tmp_path, kind):
    """A byte-order mark, \\r\\n line ends, quoted cells, a JSON array: read whole by the pandas
    reader, so the result is the pandas engine's."""
    rows = _irregular_rows()
    base = _text_file(tmp_path, kind, rows).read_text(encoding="utf-8")
    variants = ["\ufeff" + base, base.replace("\n", "\r\n"), "\n" + base if kind == "jsonl" else base + "\n\n"]
    if kind == "csv":
        variants.append(base.replace(",graded,", ',"graded",', 3))
    else:
        variants.append("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")
    for i, text in enumerate(variants):
        path = tmp_path / f"v{i}.{kind}"
        path.write_bytes(text.encode("utf-8"))
        _assert_same(sk.evaluate(path, engine="duckdb"), sk.evaluate(path))


def test_a_white_space_agent_is_checked_by_the_pandas_code(tmp_path):
    """Parquet too: an agent of white space is an invalid row, never scored by SQL."""
    rows = [dict(r, agent="agent-a") for r in _prescored_subset()]
    rows[0]["agent"] = "  "
    names = [*PRESCORED, "reason", "agent"]
    path = tmp_path / "agents.parquet"
    pq.write_table(pa.table({n: [r.get(n) for r in rows] for n in names},
                            schema=pa.schema([(n, pa.int64() if n == "trial" else pa.string()) for n in names])), path)
    want = sk.evaluate(path)
    assert want.to_dict()["validation"]["invalid"] >= 1
    assert comparable(sk.evaluate(path, engine="duckdb")) == comparable(want)


@pytest.mark.parametrize("kind", ["parquet", "jsonl"])
def test_tool_contracts_join_pre_scored_tool_call_rows_as_in_the_pandas_engine(tmp_path, kind):
    """The policy's tool contracts are answer keys of every tool_call row (the suite hash)."""
    (tmp_path / "tools.json").write_text(json.dumps([{"type": "function", "name": "get_weather", "parameters": {
        "type": "object", "properties": {"location": {"type": "string"}}}}]))
    (tmp_path / "policy.yml").write_text("tool_contracts: tools.json\n")
    rows = [{"id": f"r{i}", "case_id": "c", "dimension": "tool_call" if i % 2 else "graded", "trial": i,
             "status": "PASS", "evaluator": "h"} for i in range(4)]
    path = tmp_path / f"rows.{kind}"
    if kind == "parquet":
        pd.DataFrame(rows).to_parquet(path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    policy = tmp_path / "policy.yml"
    assert comparable(sk.evaluate(path, policy=policy, engine="duckdb")) == comparable(
        sk.evaluate(path, policy=policy))


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_text_files_are_counted_inside_duckdb_like_parquet(tmp_path, kind, monkeypatch):
    """A plain CSV or JSON Lines file is counted where its rows are (a Counted, no partial of its
    screened rows); above the threshold the evidence is the dataset, the same rows as the pandas
    engine's."""
    from scorekit._tally import Counted
    from scorekit.engines import duckdb as engine

    path = _text_file(tmp_path, kind)
    counted = engine.score(str(path), {"agent": None}, True)
    assert isinstance(counted, Counted)
    scored_in_python = counted.tally.labels["labeled"] + counted.tally.labels["unlabeled"]
    assert counted.store.rows > 0 and scored_in_python > 0
    want = sk.evaluate(path, evidence_rows_in_memory=3)
    got = sk.evaluate(path, engine="duckdb", evidence_rows_in_memory=3)
    assert comparable(got) == comparable(want)
    frame = got.evidence_dataset().to_table().to_pandas()
    pd.testing.assert_frame_equal(frame, want.evidence_dataset().to_table().to_pandas())


# --------------------------------------------------------------------------- partial_run (SPEC §2, issue 25 a)
def _flagged_rows(flag: object) -> list[dict]:
    rows = [{"id": f"p{i}", "case_id": f"c{i % 4}", "dimension": "graded", "trial": i // 4, "status": "PASS",
             "evaluator": "h"} for i in range(12)]
    rows[5]["partial_run"] = flag
    if isinstance(flag, bool):
        rows[6]["partial_run"] = not flag  # false: no effect
    return rows


def _flagged_file(tmp_path: Path, kind: str, flag: object) -> Path:
    rows = _flagged_rows(flag)
    if kind == "jsonl":
        return _write_jsonl(rows, tmp_path / "rows.jsonl")
    if kind == "csv":
        columns = ["id", "case_id", "dimension", "trial", "status", "evaluator", "partial_run"]
        text = "\n".join([",".join(columns), *(",".join(_cell(r.get(c)) for c in columns) for r in rows)])
        path = tmp_path / "rows.csv"
        path.write_text(text.replace("True", "true") + "\n", encoding="utf-8")  # and False: any case reads
        return path
    path = tmp_path / "rows.parquet"
    kind_of = pa.bool_() if isinstance(flag, bool) else pa.string() if isinstance(flag, str) else pa.int64()
    table = pa.Table.from_pylist(rows, schema=pa.schema(
        [(n, pa.int64() if n == "trial" else pa.string()) for n in ("id", "case_id", "dimension", "trial", "status",
                                                                     "evaluator")] + [("partial_run", kind_of)]))
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize("kind", ["parquet", "csv", "jsonl"])
def test_a_partial_run_row_makes_the_duckdb_evaluation_triage_like_pandas(tmp_path, kind):
    policy = {"gate": {"thresholds": {"graded": 0.5}}}
    path = _flagged_file(tmp_path, kind, True)
    got, want = sk.evaluate(path, policy=policy, engine="duckdb"), sk.evaluate(path, policy=policy)
    _assert_same(got, want)
    assert got.decision == "TRIAGE" and got.decision_reasons == [
        "the rows come from a partial run (1 row says partial_run: true)"]
    assert sk.evaluate(path, policy=policy, engine="duckdb", limit=5).decision_reasons == ["partial scan (limit)"]


@pytest.mark.parametrize(("kind", "flag"), [("parquet", "true"), ("parquet", 1), ("csv", "yes"), ("jsonl", "true"),
                                            ("jsonl", 1)])
def test_a_partial_run_of_another_type_is_refused_in_duckdb_like_pandas(tmp_path, kind, flag):
    path = _flagged_file(tmp_path, kind, flag)
    got, want = sk.evaluate(path, engine="duckdb"), sk.evaluate(path)
    _assert_same(got, want)
    assert [p[1] for p in _problems(got)] == ["partial_run"] and got.validation.invalid == 1


def test_case_counts_counted_when_asked_survive_a_copy_of_the_card(prescored):
    """Above the threshold the per-case table is counted from the card's own temporary evidence files
    when first read (not by evaluate itself); a pickle or deep copy counts it first, so it outlives
    the original card."""
    import copy
    import gc
    import pickle

    want = sk.evaluate(prescored).case_counts
    card = sk.evaluate(prescored, engine="duckdb", evidence_rows_in_memory=0)
    assert callable(card.per_case)  # not counted yet
    copies = [pickle.loads(pickle.dumps(card)), copy.deepcopy(card)]
    del card
    gc.collect()
    for other in copies:
        pd.testing.assert_frame_equal(other.case_counts, want)


def test_case_counts_can_be_given_replaced_and_set(prescored):
    import dataclasses

    card = sk.evaluate(prescored)
    table = card.case_counts
    assert dataclasses.replace(card, per_case=None).case_counts is None
    assert dataclasses.replace(card).case_counts is table
    given = sk.Scorecard(**{f.name: getattr(card, f.name) for f in dataclasses.fields(card) if f.name != "per_case"})
    assert given.case_counts is None  # the default
    given.case_counts = table
    assert given.case_counts is table
    later = dataclasses.replace(given, per_case=lambda: table)  # counted when first read
    assert later.case_counts is table and later.per_case is table
