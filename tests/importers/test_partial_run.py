"""A run's partiality travels with its rows (SPEC §2 ``partial_run``, §8, §15; issue 25 a).

A run cut short with ``--limit`` (the Inspect log of 10 of the dataset's 100 samples), imported
with ``scorekit import`` and evaluated from the rows it wrote, is TRIAGE in every engine and by
every route: ``run --results`` of the written file, ``sk.evaluate(run.rows)``, a DataFrame built
from those rows, their Parquet copy through ``--engine duckdb``, and ``--engine dask``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from import_logs import POPULARITY

import scorekit as sk

# The log's accuracy is 0.8: with this threshold a whole run would PASS.
POLICY = {"purpose": "release", "gate": {"required_dimensions": ["match"], "thresholds": {"match": 0.5}}}
PRESCORED = ["id", "dimension", "case_id", "trial", "status", "evaluator", "agent", "partial_run"]


@pytest.fixture
def imported(run_cli, tmp_path) -> Path:
    """The folder `scorekit import` wrote for the limited log (results.jsonl, source.json)."""
    code, _out, err = run_cli("import", "--from", "inspect", POPULARITY, "--out-dir", tmp_path / "import")
    assert code == 0, err
    (folder,) = [p for p in (tmp_path / "import").iterdir() if p.is_dir()]
    (tmp_path / "policy.json").write_text(json.dumps(POLICY))
    return folder


def _assert_partial(card: sk.Scorecard) -> None:
    assert card.decision == "TRIAGE" and not card.overall_pass and card.partial
    assert card.dimensions.loc["match", "verdict"] == "PASS"  # the measure alone would pass


def test_every_row_of_a_partial_run_says_so_and_a_whole_run_does_not():
    (run,) = sk.import_results(POPULARITY)
    assert run.partial and run.rows["partial_run"].tolist() == [True] * len(run.rows)
    whole = sk.import_results(POPULARITY.parent / "log_tool_call_error.json")[0]
    assert not whole.partial and "partial_run" not in whole.rows.columns


def test_run_gate_on_the_rows_scorekit_import_wrote_is_triage_exit_1(run_cli, imported, tmp_path):
    code, out, err = run_cli("run", "--results", imported / "results.jsonl", "--policy", tmp_path / "policy.json",
                             "--gate", "--out-dir", tmp_path / "out")
    assert code == 1, err
    assert "decision: TRIAGE" in out and "gate: not passed (decision TRIAGE)" in err
    data = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert data["decision"] == "TRIAGE" and data["partial"] is True
    assert data["source"]["format"] == "inspect" and data["source"]["limit"] == 10  # source.json read beside


def test_rows_edited_to_drop_partial_run_are_still_triage_by_their_source_json(run_cli, imported, tmp_path):
    rows = [json.loads(line) for line in (imported / "results.jsonl").read_text().splitlines()]
    (imported / "results.jsonl").write_text("".join(
        json.dumps({k: v for k, v in row.items() if k != "partial_run"}) + "\n" for row in rows))
    code, out, err = run_cli("run", "--results", imported / "results.jsonl", "--policy", tmp_path / "policy.json",
                             "--gate", "--out-dir", tmp_path / "out")
    assert code == 1 and "partial import (imported from Inspect AI" in out
    assert sk.evaluate(imported / "results.jsonl", policy=POLICY).decision == "PASS"  # the rows alone now pass
    data = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert data["source"] == json.loads((imported / "source.json").read_text())


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"agent": "a"}', None])
def test_a_malformed_source_json_is_exit_2_naming_it(run_cli, imported, tmp_path, text):
    path = imported / "source.json"
    if text is None:  # a source.json whose partial is not a boolean
        text = json.dumps({**json.loads(path.read_text()), "partial": "no"})
    path.write_text(text)
    code, _out, err = run_cli("run", "--results", imported / "results.jsonl", "--out-dir", tmp_path / "out")
    assert code == 2 and str(path) in err and len(err.strip().splitlines()) == 1


def test_evaluate_of_run_rows_and_of_a_frame_built_from_them_is_triage():
    (run,) = sk.import_results(POPULARITY)
    card = sk.evaluate(run.rows, policy=POLICY)
    _assert_partial(card)
    assert card.decision_reasons == ["the rows come from a partial run (10 rows say partial_run: true)"]
    _assert_partial(sk.evaluate(pd.DataFrame(run.rows.to_dict("records")), policy=POLICY))
    assert sk.evaluate(run.rows.drop(columns="partial_run"), policy=POLICY).decision == "PASS"


def test_partial_run_is_in_neither_the_suite_nor_the_results_hash():
    (run,) = sk.import_results(POPULARITY)
    flagged = sk.evaluate(run.rows, policy=POLICY)
    plain = sk.evaluate(run.rows.drop(columns="partial_run"), policy=POLICY)
    assert flagged.hashes["suite"] == plain.hashes["suite"]
    assert flagged.hashes["results"] == plain.hashes["results"]


def test_the_imported_rows_are_triage_through_the_duckdb_engine(run_cli, imported, tmp_path):
    pytest.importorskip("duckdb")
    rows = sk.read_rows(imported / "results.jsonl")[PRESCORED]
    path = tmp_path / "rows.parquet"
    rows.to_parquet(path, index=False)  # a status on each row: what the duckdb engine reads
    _assert_partial(sk.evaluate(path, policy=POLICY, engine="duckdb"))
    code, out, err = run_cli("run", "--results", path, "--engine", "duckdb", "--policy", tmp_path / "policy.json",
                             "--gate", "--out-dir", tmp_path / "out")
    assert code == 1 and "decision: TRIAGE" in out, err


def test_the_imported_rows_are_triage_through_the_dask_engine(imported):
    pytest.importorskip("distributed")
    _assert_partial(sk.evaluate(imported / "results.jsonl", policy=POLICY, engine="dask"))
