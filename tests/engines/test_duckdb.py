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


@pytest.mark.parametrize("kind", ["parquet"])
def test_tool_contracts_join_pre_scored_tool_call_rows_as_in_the_pandas_engine(tmp_path, kind):
    """The policy's tool contracts are answer keys of every tool_call row (the suite hash)."""
    (tmp_path / "tools.json").write_text(json.dumps([{"type": "function", "name": "get_weather", "parameters": {
        "type": "object", "properties": {"location": {"type": "string"}}}}]))
    (tmp_path / "policy.yml").write_text("tool_contracts: tools.json\n")
    rows = [{"id": f"r{i}", "case_id": "c", "dimension": "tool_call" if i % 2 else "graded", "trial": i,
             "status": "PASS", "evaluator": "h"} for i in range(4)]
    path = tmp_path / f"rows.{kind}"
    pd.DataFrame(rows).to_parquet(path)
    policy = tmp_path / "policy.yml"
    assert comparable(sk.evaluate(path, policy=policy, engine="duckdb")) == comparable(
        sk.evaluate(path, policy=policy))
