"""Spooled columns and shrunk partials (SPEC §16, issue 15).

A partial is reduced as it arrives: the columns counting never reads go into a
Spool (memory, then disk) and the rows keep compact columns. Putting the two
back together must give exactly the rows scored, whatever the spool's budget,
the partitioning and the order the partials arrive in.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit import _spool
from scorekit._partial import COLUMNS, COMPACT, SPOOLED, combine, score_lines, shrink
from scorekit._rows._formats import FileLines
from scorekit._spool import Spool


def _batch(start: int, rows: int) -> pa.RecordBatch:
    lines = list(range(start, start + rows))
    return pa.RecordBatch.from_arrays([pa.array(lines, pa.int64()), pa.array([f"out {i}" for i in lines])],
                                      names=["line", "agent_output"])


def test_segments_stay_in_memory_up_to_the_budget_then_go_to_disk() -> None:
    spool = Spool(budget=_batch(1, 10).nbytes + 1)
    spool.add(("s", 1), _batch(1, 10))
    assert spool.on_disk == 0
    spool.add(("s", 21), _batch(21, 5))  # beyond the budget: on disk
    spool.add(("s", 11), _batch(11, 10))
    assert spool.on_disk == 2
    assert spool.segments() == [(("s", 1), 10), (("s", 11), 10), (("s", 21), 5)]  # key order, not arrival
    assert len(spool) == 25
    lines = [line for batch in spool.batches() for line in batch.column("line").to_pylist()]
    assert lines == list(range(1, 26))
    assert spool.batch(("s", 21)).equals(_batch(21, 5))
    assert spool.value("agent_output", 0) == "out 1"
    assert spool.value("agent_output", 24) == "out 25"
    with pytest.raises(IndexError):
        spool.value("agent_output", 25)


def test_a_range_scored_twice_is_held_once() -> None:
    spool = Spool()
    spool.add(("s", 1), _batch(1, 3))
    spool.add(("s", 1), _batch(1, 3))
    assert spool.segments() == [(("s", 1), 3)]


def test_the_spool_directory_goes_with_the_spool() -> None:
    spool = Spool(budget=0)
    spool.add(("s", 1), _batch(1, 3))
    folder = spool._folder()
    assert any(folder.iterdir())
    del spool
    gc.collect()
    assert not folder.exists()


def _line(i: int, dimension: str, status: str | None) -> bytes:
    row = {"id": f"r{i}", "dimension": dimension, "case_id": f"c{i % 5}", "trial": i // 5,
           "evaluator": f"ev{i % 3}", "agent_output": "x" * (i % 7), "cost_usd": i / 10 if i % 2 else None}
    if status is not None:
        row["status"] = status
    return json.dumps(row).encode()


@settings(max_examples=40, deadline=None)
@given(
    statuses=st.lists(st.sampled_from(["PASS", "FAIL", "ERROR", None]), min_size=0, max_size=30),
    cuts=st.lists(st.integers(0, 30), max_size=5),
    budget=st.sampled_from([0, 200, 1 << 30]),
    reverse=st.booleans(),
)
def test_shrunk_partials_and_their_spool_give_back_the_rows(statuses, cuts, budget, reverse) -> None:
    lines = [_line(i, "cost" if i % 2 else "task_completion", s) for i, s in enumerate(statuses)]
    bounds = sorted({0, len(lines), *(c for c in cuts if c <= len(lines))})
    assume(len(bounds) >= 2)

    def parts() -> list:
        return [score_lines(FileLines(b"\n".join(lines[a:b]) + b"\n"), a + 1, "s", {}, True)
                for a, b in zip(bounds, bounds[1:], strict=False)]

    whole = combine(parts()).table()
    spool = Spool(budget=budget)
    arrived = [shrink(p, spool) for p in (reversed(parts()) if reverse else parts())]
    shrunk = combine(arrived)
    compact = shrunk.table()
    assert compact.column_names == list(COMPACT)
    for name in COMPACT:
        assert compact.column(name).cast(whole.schema.field(name).type).to_pylist() == whole.column(name).to_pylist()
    spooled = pa.Table.from_batches(list(spool.batches())) if spool.segments() else None
    for name in ("line", *SPOOLED):
        got = spooled.column(name).to_pylist() if spooled is not None else []
        assert got == whole.column(name).to_pylist()
    assert shrunk.evaluators == {e for e in whole.column("evaluator").to_pylist() if e is not None}
    assert set(COLUMNS) == set(COMPACT) | set(SPOOLED)


def _rows_file(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "rows.jsonl"
    with path.open("w") as fh:
        for i in range(n):
            fh.write(_line(i, ("cost", "latency", "task_completion")[i % 3], ("PASS", "FAIL", None)[i % 4 % 3])
                     .decode() + "\n")
    return path


def test_a_spool_on_disk_changes_nothing_in_the_card_or_the_evidence(tmp_path, monkeypatch) -> None:
    path = _rows_file(tmp_path, 3000)
    held = sk.evaluate(path)
    monkeypatch.setattr(_spool, "SPOOL_BYTES", 0)  # every segment on disk
    spilled = sk.evaluate(path)
    assert {**held.to_dict(), "generated_at": None} == {**spilled.to_dict(), "generated_at": None}
    assert held.evidence.equals(spilled.evidence)


def test_the_evidence_is_written_without_building_the_frame(tmp_path) -> None:
    import pandas as pd

    path = _rows_file(tmp_path, 500)
    card = sk.evaluate(path)
    card.write(tmp_path / "out")
    assert card.evidence_store._frame is None  # written from the spool, segment by segment
    written = pd.read_parquet(tmp_path / "out" / "evidence.parquet")
    pd.testing.assert_frame_equal(written, card.evidence)
    assert card.evidence_dataset().to_table().to_pandas().equals(card.evidence)


def test_partials_shrunk_apart_must_not_interleave() -> None:
    """Spool segments follow their partials' keys; two partials whose lines interleave
    (duckdb's plain and other lines of one file) are combined first, then shrunk."""
    lines = [_line(i, "cost", "PASS") for i in range(6)]
    odd = score_lines(FileLines(b"\n".join(lines[1::2]) + b"\n"), 1, "s", {}, True)
    even = score_lines(FileLines(b"\n".join(lines[0::2]) + b"\n"), 1, "s", {}, True)
    for part, first in ((odd, 2), (even, 1)):  # give each row its own line number
        table = part.table()
        part.batches = table.set_column(0, "line", pa.array(range(first, 7, 2), pa.int64())).to_batches()
    spool = Spool()
    with pytest.raises(AssertionError, match="interleave"):
        combine([shrink(odd, spool), shrink(even, spool)])


def test_a_segment_whose_write_fails_leaves_no_trace(monkeypatch) -> None:
    """A failed write (a full disk) raises and lists nothing, so the range scored again is
    held: a key is listed only once its segment exists."""
    import errno

    spool = Spool(budget=0)
    real = pa.OSFile

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pa, "OSFile", full)
    with pytest.raises(OSError):
        spool.add(("s", 1), _batch(1, 2))
    assert spool.segments() == [] and spool.on_disk == 0
    assert not any(spool._folder().iterdir())
    monkeypatch.setattr(pa, "OSFile", real)
    spool.add(("s", 1), _batch(1, 2))
    assert spool.batch(("s", 1)).equals(_batch(1, 2))
    assert spool.value("agent_output", 1) == "out 2"
