"""evidence.parquet: every scored row, with the scorecard's evidence hash in its metadata."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

import scorekit as sk
from scorekit.reports import read_evidence_metadata, write_parquet, write_reports
from scorekit.reports.parquet import METADATA_KEY


@pytest.fixture(scope="module")
def card() -> sk.Scorecard:
    return sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))


@pytest.fixture(scope="module")
def paths(card, tmp_path_factory):
    return write_reports(card, tmp_path_factory.mktemp("reports"))


def test_parquet_round_trip_gives_the_same_rows(card, paths):
    back = pd.read_parquet(paths["parquet"])
    pd.testing.assert_frame_equal(back, card.evidence)


def test_parquet_holds_every_row_including_controls_and_failing_rows(card, paths):
    back = pd.read_parquet(paths["parquet"])
    assert len(back) == len(card.evidence) == 525
    assert back["control"].sum() == 2
    assert set(back["status"].astype(str)) == {"PASS", "FAIL", "ERROR", "ABSTAIN"}


def test_parquet_metadata_carries_the_scorecard_evidence_hash(card, paths):
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    meta = read_evidence_metadata(paths["parquet"])
    assert meta["hashes"]["evidence"] == data["hashes"]["evidence"] == card.hashes["evidence"]
    assert meta["rows"] == len(card.evidence)
    raw = pq.read_schema(paths["parquet"]).metadata
    assert raw[b"scorekit.hashes.evidence"].decode() == data["hashes"]["evidence"]
    assert METADATA_KEY in raw and b"pandas" in raw


def test_parquet_keeps_invalid_and_unlabeled_rows(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(
        '{"id": "a", "dimension": "task_completion", "must_include": ["x"], "agent_output": "x"}\n'
        '{"id": "b", "dimension": "task_completion", "agent_output": "x"}\n'
        '{"id": "c", "dimension": "task_completion", "trial": "one"}\n',
        encoding="utf-8",
    )
    card = sk.evaluate(path)
    paths = write_reports(card, tmp_path / "out")
    back = pd.read_parquet(paths["parquet"])
    pd.testing.assert_frame_equal(back, card.evidence)
    assert set(back["label"].astype(str)) >= {"labeled", "unlabeled"}


def test_parquet_json_encodes_columns_arrow_cannot_type(tmp_path):
    frame = pd.DataFrame({"id": ["a", "b", "c"], "observed_state": [{"x": 1}, [1, 2], "text"]})
    path = write_parquet(frame, tmp_path / "evidence.parquet", evidence_hash="0" * 64)
    back = pd.read_parquet(path)
    assert list(back["id"]) == ["a", "b", "c"]
    assert [json.loads(v) for v in back["observed_state"]] == [{"x": 1}, [1, 2], "text"]
    meta = read_evidence_metadata(path)
    assert meta["json_encoded_columns"] == ["observed_state"]
    assert meta["hashes"]["evidence"] == "0" * 64


def test_parquet_from_frames_in_order_equals_one_frame(tmp_path):
    """Frames written one after another give the rows of their concatenation (the JSON text
    of a column the first frame needed encoded included); a later frame that does not fit
    the first one's types is an error naming it, and nothing is left behind."""
    frames = [pd.DataFrame({"id": ["a", "b"], "state": [{"x": 1}, [1]], "cost": [1.0, None]}),
              pd.DataFrame({"id": ["c"], "state": ["text"], "cost": [2.5]})]
    path = write_parquet(iter(frames), tmp_path / "evidence.parquet", rows=3, evidence_hash="0" * 64)
    one = write_parquet(pd.concat(frames, ignore_index=True), tmp_path / "one.parquet", evidence_hash="0" * 64)
    pd.testing.assert_frame_equal(pd.read_parquet(path), pd.read_parquet(one))
    assert read_evidence_metadata(path)["rows"] == 3
    wrong = [pd.DataFrame({"id": ["a"], "n": [1]}), pd.DataFrame({"id": ["b"], "n": [{"x": 1}]})]
    with pytest.raises(ValueError, match="evidence frame 2 does not have the first frame's columns and types"):
        write_parquet(wrong, tmp_path / "wrong.parquet", rows=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evidence.parquet", "one.parquet"]
    with pytest.raises(TypeError, match="rows is required"):
        write_parquet(iter(frames), tmp_path / "x.parquet")


def test_parquet_is_written_atomically_without_leftovers(card, tmp_path):
    target = tmp_path / "evidence.parquet"
    target.write_bytes(b"old")
    write_parquet(card.evidence, target, data=card.to_dict())
    assert [p.name for p in tmp_path.iterdir()] == ["evidence.parquet"]
    assert len(pd.read_parquet(target)) == len(card.evidence)


def test_read_evidence_metadata_rejects_a_foreign_file(tmp_path):
    path = tmp_path / "other.parquet"
    pd.DataFrame({"a": [1]}).to_parquet(path)
    with pytest.raises(ValueError, match="not an evidence.parquet"):
        read_evidence_metadata(path)


@pytest.mark.parametrize("meta", [b"[1, 2]", b'"text"', b"null"])
def test_read_evidence_metadata_refuses_metadata_that_is_not_an_object(tmp_path, meta):
    import pyarrow as pa

    path = tmp_path / "forged.parquet"
    table = pa.table({"a": [1]}).replace_schema_metadata({METADATA_KEY: meta})
    pq.write_table(table, path)
    with pytest.raises(ValueError, match="not an evidence.parquet written by scorekit .* is not an object"):
        read_evidence_metadata(path)
