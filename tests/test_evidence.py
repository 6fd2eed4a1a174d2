"""The evidence rows in memory or as an ``evidence/`` dataset (SPEC §16, issue 15).

Above ``evidence_rows_in_memory`` rows the rows are written as a partitioned
Parquet dataset and not kept: ``card.evidence`` raises one line pointing to
``card.evidence_dataset()``, and every number of the scorecard, the reports,
the history and the comparison are the same as with the rows in memory.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pandas as pd
import pyarrow.dataset as ds
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit import history
from scorekit._evidence import EVIDENCE_ROWS_IN_MEMORY, EvidenceStore
from scorekit.reports import parquet as parquet_report
from scorekit.reports import read_evidence_metadata, validate_scorecard_json

POLICY = {"purpose": "exploratory", "gate": {"thresholds": {"task_completion": 0.8, "tool_call": 0.8}}}


def _rows(fail_from: int, cases: int = 40, trials: int = 3) -> list[dict]:
    rows = []
    for dim in ("task_completion", "tool_call"):
        for c in range(cases):
            for t in range(trials):
                rows.append({"id": f"{dim}-{c}-{t}", "dimension": dim, "case_id": f"case{c}", "trial": t,
                             "run": f"r{t}", "status": "PASS" if c < fail_from else "FAIL", "evaluator": "harness"})
    rows.append({"id": "bad", "dimension": "tool_call"})  # an invalid row: evidence, never PASS
    return rows


def _without(data: dict, *keys: str) -> dict:
    return {k: v for k, v in data.items() if k not in keys}


@pytest.fixture(scope="module")
def in_memory() -> sk.Scorecard:
    return sk.evaluate(_rows(36), policy=POLICY)


@pytest.fixture(scope="module")
def on_disk() -> sk.Scorecard:
    return sk.evaluate(_rows(36), policy=POLICY, evidence_rows_in_memory=10)


def test_the_default_threshold_is_ten_million_rows():
    assert EVIDENCE_ROWS_IN_MEMORY == 10_000_000


def test_below_the_threshold_the_rows_are_in_memory_and_named_evidence_parquet(in_memory):
    assert isinstance(in_memory.evidence, pd.DataFrame) and len(in_memory.evidence) == in_memory.evidence_rows == 241
    assert in_memory.to_dict()["evidence"] == {"rows": 241, "file": "evidence.parquet"}


def test_above_the_threshold_card_evidence_is_one_line_pointing_to_the_dataset(on_disk):
    with pytest.raises(sk.EvidenceNotInMemoryError) as caught:
        on_disk.evidence  # noqa: B018 - the property is the test
    message = str(caught.value)
    assert "\n" not in message and "card.evidence_dataset()" in message and "241" in message
    assert isinstance(caught.value, sk.ScorekitError)
    assert on_disk.evidence_rows == 241 and "241 rows" in repr(on_disk)


def test_the_scorecard_is_the_same_but_for_where_the_rows_are(in_memory, on_disk):
    a, b = in_memory.to_dict(), on_disk.to_dict()
    assert b["evidence"] == {"rows": 241, "file": "evidence/"}
    assert _without(a, "generated_at", "evidence") == _without(b, "generated_at", "evidence")
    validate_scorecard_json(b)  # the schema knows both forms
    pd.testing.assert_frame_equal(in_memory.case_counts, on_disk.case_counts)


def test_the_dataset_holds_the_rows_in_order(in_memory, on_disk):
    dataset = on_disk.evidence_dataset()
    assert dataset.count_rows() == 241
    pd.testing.assert_frame_equal(dataset.to_table().to_pandas(), in_memory.evidence)
    failing = dataset.to_table(columns=["id"], filter=ds.field("status") != "PASS")
    assert sorted(failing.column("id").to_pylist()) == sorted(
        in_memory.evidence.loc[in_memory.evidence["status"] != "PASS", "id"].tolist())


def test_below_the_threshold_the_dataset_is_written_on_first_use(in_memory):
    dataset = in_memory.evidence_dataset()
    pd.testing.assert_frame_equal(dataset.to_table().to_pandas(), in_memory.evidence)
    assert read_evidence_metadata(dataset.files[0])["hashes"]["evidence"] == in_memory.hashes["evidence"]


@settings(max_examples=15, deadline=None)
@given(rows=st.integers(0, 30), part_rows=st.integers(1, 7))
def test_parts_read_in_name_order_give_the_rows_back(tmp_path_factory, rows, part_rows):
    frame = pd.DataFrame({"id": [f"r{i}" for i in range(rows)], "line": list(range(1, rows + 1))})
    frame["id"] = frame["id"].astype("str")
    out = parquet_report.write_dataset(frame, tmp_path_factory.mktemp("d") / "evidence", part_rows=part_rows,
                                       evidence_hash="ab" * 32)
    names = sorted(p.name for p in out.iterdir())
    assert names == [parquet_report.part_name(i) for i in range(max(1, -(-rows // part_rows)))]
    back = pd.read_parquet(out)
    pd.testing.assert_frame_equal(back.reset_index(drop=True), frame)
    meta = read_evidence_metadata(out / names[-1])
    assert meta["rows"] == rows and meta["parts"] == len(names) and meta["hashes"]["evidence"] == "ab" * 32


def test_write_links_the_dataset_beside_scorecard_json(on_disk, in_memory, tmp_path):
    (tmp_path / "evidence.parquet").write_bytes(b"stale")  # an earlier, smaller evaluation's file
    paths = on_disk.write(tmp_path)
    assert paths["parquet"] == tmp_path / "evidence" and not (tmp_path / "evidence.parquet").exists()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "evidence"), in_memory.evidence)
    meta = read_evidence_metadata(next((tmp_path / "evidence").iterdir()))
    assert meta["hashes"]["evidence"] == on_disk.hashes["evidence"] and meta["rows"] == 241
    data = json.loads((tmp_path / "scorecard.json").read_text())
    assert data["evidence"]["file"] == "evidence/"
    markdown = (tmp_path / "scorecard.md").read_text()
    assert "evidence/ holds every scored row" in markdown and "evidence.parquet" not in markdown
    # A later evaluation below the threshold replaces the dataset with one file.
    in_memory.write(tmp_path)
    assert (tmp_path / "evidence.parquet").is_file() and not (tmp_path / "evidence").exists()


def test_a_directory_that_scorekit_did_not_write_is_not_removed(in_memory, tmp_path):
    (tmp_path / "evidence").mkdir()
    (tmp_path / "evidence" / "notes.txt").write_text("mine")
    in_memory.write(tmp_path)
    assert (tmp_path / "evidence" / "notes.txt").read_text() == "mine"


def test_history_and_compare_read_the_per_case_counts_not_the_rows(in_memory, on_disk, tmp_path):
    worse = sk.evaluate(_rows(20), policy=POLICY, evidence_rows_in_memory=0)
    pd.testing.assert_frame_equal(sk.compare(on_disk, worse), sk.compare(in_memory, worse))
    assert set(sk.compare(on_disk, worse)["method_used"]) == {"paired"}
    db = tmp_path / "h.sqlite"
    history.record(on_disk, db, label="disk")
    history.record(in_memory, db, label="memory")
    cases = history.read_history(db, cases=True)
    by_label = {label: part[["dimension", "case_id", "passes", "n"]].reset_index(drop=True)
                for label, part in cases.groupby("label")}
    pd.testing.assert_frame_equal(by_label["disk"], by_label["memory"])


def test_the_release_payload_counts_cases_from_the_dataset(in_memory, on_disk):
    a = in_memory.to_release_payload("agent", "1.0.0", require_pass=False)
    b = on_disk.to_release_payload("agent", "1.0.0", require_pass=False)
    # 40 cases measured; the invalid row is its own case ("bad"), in the dataset but not counted.
    assert (a.test_cases_run, a.dataset_size) == (b.test_cases_run, b.dataset_size) == (40, 41)


def test_the_temporary_dataset_goes_with_the_last_card():
    card = sk.evaluate(_rows(36), policy=POLICY, evidence_rows_in_memory=0)
    folder = Path(card.evidence_dataset().files[0]).parent
    assert folder.is_dir()
    del card
    gc.collect()
    assert not folder.exists()


def test_a_bad_threshold_names_the_parameter():
    with pytest.raises(sk.ScorekitError, match="evidence_rows_in_memory must be an integer >= 0; got -1"):
        sk.evaluate(_rows(36), evidence_rows_in_memory=-1)
    with pytest.raises(sk.ScorekitError, match="got True"):
        sk.evaluate(_rows(36), evidence_rows_in_memory=True)


def test_run_evidence_rows_in_memory_writes_the_dataset(run_cli, tmp_path):
    results = tmp_path / "rows.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in _rows(36)))
    code, out, err = run_cli("run", "--results", results, "--out-dir", tmp_path / "out",
                             "--evidence-rows-in-memory", "100")
    assert code == 0, err
    assert (tmp_path / "out" / "evidence").is_dir() and not (tmp_path / "out" / "evidence.parquet").exists()
    assert f"wrote {tmp_path / 'out' / 'evidence'}" in out
    code, out, err = run_cli("run", "--results", results, "--out-dir", tmp_path / "out",
                             "--evidence-rows-in-memory", "-3")
    assert code == 2 and "--evidence-rows-in-memory" in err and "-3" in err


def test_a_store_above_the_threshold_writes_at_once_and_lets_the_rows_go():
    frame = pd.DataFrame({"id": ["a", "b"], "evaluator": ["x", None]})
    built = []
    store = EvidenceStore.deferred(lambda: built.append(1) or [frame], rows=2, evaluators=["x"],
                                   evidence_hash="0" * 64, threshold=1)
    assert built == [1] and store.rows == 2 and store.evaluators == ["x"] and store.file_name == "evidence/"
    assert not store.in_memory
    assert [part["id"].tolist() for part in store.frames(["id", "missing"])] == [["a", "b"]]
    assert built == [1]  # read back from the files, not put together again


def test_a_card_below_the_threshold_pickles_and_deep_copies_with_its_rows(tmp_path):
    """The evidence put together on first use is built for a pickle or a copy; the copy
    does not share the original's temporary files."""
    import copy
    import pickle

    card = sk.evaluate(_rows(36), policy=POLICY)
    card.evidence_dataset()  # the original now owns a temporary evidence/ directory
    for twin in (pickle.loads(pickle.dumps(card)), copy.deepcopy(card)):
        pd.testing.assert_frame_equal(twin.evidence, card.evidence)
        assert twin.evidence_dataset().to_table().num_rows == card.evidence_rows
        assert twin.evidence_store._directory != card.evidence_store._directory
