"""The dask engine (SPEC §16, issue 15): partitions scored on a LocalCluster of
worker processes give exactly the pandas engine's scorecard and evidence."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from _corpus import comparable, raw_rows, write

import scorekit as sk
from scorekit import cli

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("dask") / "rows.jsonl", raw_rows(400))


@pytest.fixture(scope="module")
def pandas_card(corpus: Path) -> tuple[str, pd.DataFrame]:
    card = sk.evaluate(corpus)
    return comparable(card), card.evidence


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as local:
        yield local.scheduler_address


def test_dask_engine_on_a_local_cluster_matches_the_pandas_engine(corpus, pandas_card):
    card = sk.evaluate(corpus, engine="dask")  # no address: a LocalCluster of its own
    assert comparable(card) == pandas_card[0]
    assert card.evidence.equals(pandas_card[1])


def test_dask_engine_reads_parquet_by_row_group(tmp_path, cluster):
    rows = [json.loads(line) for line in raw_rows(120) if line.startswith("{\"")]
    frame = pd.DataFrame({"id": [r["id"] for r in rows], "case_id": [r["case_id"] for r in rows],
                          "dimension": [r["dimension"] for r in rows], "trial": [r["trial"] for r in rows],
                          "status": [r.get("status", "PASS") for r in rows], "evaluator": "harness-x"})
    path = tmp_path / "rows.parquet"
    frame.to_parquet(path, row_group_size=37)
    assert comparable(sk.evaluate(path, engine="dask", scheduler=cluster)) == comparable(sk.evaluate(path))


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_engine_scores_a_dask_dataframe_like_the_frame(npartitions, cluster):
    import dask.dataframe as dd

    rows = [json.loads(line) for line in raw_rows(60) if line.startswith("{\"")]
    frame = pd.DataFrame([{k: v for k, v in r.items() if not isinstance(v, (list, dict))} for r in rows])
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    assert comparable(sk.evaluate(ddf, engine="dask", scheduler=cluster)) == comparable(sk.evaluate(frame))


def test_run_engine_dask_with_a_scheduler_address(corpus, cluster, pandas_card, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "scorekit", "run", "--results", str(corpus), "--engine", "dask",
                           "--scheduler", cluster, "--out-dir", str(out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    data = json.loads((out / "scorecard.json").read_text())
    data.pop("generated_at")
    want = json.loads(pandas_card[0])
    assert json.dumps(data, sort_keys=True) == json.dumps(want, sort_keys=True)


def test_a_missing_extra_is_one_line_naming_the_pip_command(monkeypatch, corpus, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name.split(".")[0] in ("dask", "distributed") else real(name, *a))
    code = cli.main(["run", "--results", str(corpus), "--engine", "dask", "--out-dir", "unused"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "pip install scorekit[dask]" in err


def test_scheduler_without_the_dask_engine_is_refused(corpus):
    with pytest.raises(sk.InputError, match="scheduler"):
        sk.evaluate(corpus, scheduler="tcp://127.0.0.1:1")


def test_dask_engine_reports_the_pandas_engines_judge_agreement(tmp_path, cluster):
    """Judge agreement (SPEC §18) from unit counts summed over partitions: the same floats."""
    import random

    rng = random.Random(26)
    rows = []
    for i in range(300):
        truth = rng.random() < 0.7
        votes = [{"judge": j, "verdict": "PASS" if (rng.random() < 0.8) == truth else "FAIL"}
                 for j in ("a", "b", "c", "d") if rng.random() < 0.85]
        rows.append({"id": f"r{i}", "case_id": f"c{i // 3}", "trial": i % 3, "dimension": f"tone{i % 2}",
                     "judge_criteria": "polite", "judge_votes": votes})
    path = write(tmp_path / "judged.jsonl", [json.dumps(row) for row in rows])
    want = sk.evaluate(path).dimensions["judge_agreement"]
    assert want.notna().all()
    # Two partitions (one per worker thread) counted on the cluster; any cut: tests/engines/test_shards.py.
    got = sk.evaluate(path, engine="dask", scheduler=cluster).dimensions["judge_agreement"]
    assert got.tolist() == want.tolist()


def test_dask_engine_reads_a_directory_as_the_one_file_its_files_make(tmp_path, cluster):
    """A directory of JSON Lines files, read in file-name order, its rows numbered as one file's: the
    scorecard and evidence of the file they make (the rows' source named by the directory)."""
    lines = raw_rows(300)
    folder = tmp_path / "parts"
    folder.mkdir()
    for k, (a, b) in enumerate(((0, 90), (90, 200), (200, len(lines)))):
        write(folder / f"part-{k}.jsonl", lines[a:b])
    whole = write(tmp_path / "parts.jsonl", lines)
    got = sk.evaluate(folder, engine="dask", scheduler=cluster)
    want = sk.evaluate(whole)
    assert comparable(got).replace(str(folder), str(whole)) == comparable(want)
    pd.testing.assert_frame_equal(got.evidence, want.evidence)


def test_dask_engine_reads_a_directory_of_parquet_files_as_duckdb_does(tmp_path, cluster):
    pytest.importorskip("duckdb")
    folder = tmp_path / "scored"
    folder.mkdir()
    for k in range(3):
        pd.DataFrame({"id": [f"{k}-{i}" for i in range(20)], "case_id": [f"c{i}" for i in range(20)],
                      "dimension": "x", "trial": k, "status": ["PASS", "FAIL"] * 10, "evaluator": "h"}
                     ).to_parquet(folder / f"p{k}.parquet", row_group_size=7)
    got = sk.evaluate(folder, engine="dask", scheduler=cluster)
    assert got.dimensions.loc["x", "n"] == 60
    assert comparable(got) == comparable(sk.evaluate(folder, engine="duckdb"))


def test_a_directory_of_two_kinds_is_one_line(tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    write(folder / "a.jsonl", raw_rows(5))
    pd.DataFrame({"id": ["x"]}).to_parquet(folder / "b.parquet")
    with pytest.raises(sk.InputError, match="JSON Lines and Parquet files"):
        sk.evaluate(folder, engine="dask")


def test_a_file_is_cut_into_partitions_of_at_most_partition_rows(corpus, pandas_card, cluster, monkeypatch):
    """However few the workers, no task scores more than PARTITION_ROWS lines (a task's peak grows with its
    rows); the cuts still give the pandas engine's scorecard and evidence."""
    from scorekit.engines import dask as engine

    monkeypatch.setattr(engine, "PARTITION_ROWS", 37)
    for n_rows, workers in ((1000, 2), (400, 2), (37, 1), (1, 4), (0, 2)):
        ranges = engine.line_ranges(n_rows, workers)
        assert all(0 < b - a <= 37 for a, b in ranges)
        assert [a for a, _ in ranges] == [0, *(b for _, b in ranges)][:len(ranges)]  # contiguous, in order
        assert (ranges[-1][1] if ranges else 0) == n_rows
    card = sk.evaluate(corpus, engine="dask", scheduler=cluster)
    assert comparable(card) == pandas_card[0]
    assert card.evidence.equals(pandas_card[1])


def test_a_compacted_shard_is_the_shard_it_was_copied_from(corpus):
    from scorekit.engines import local
    from scorekit.engines.dask import compacted, open_rows
    from scorekit.kernel import open_shard
    from scorekit.kernel._shard import digests, keys

    src = open_rows(str(corpus))
    args = local.range_task(src.name, src.lines, {}, True)(0, len(src.lines))

    def scored():
        return open_shard(local.checked_range(*args), True, (args[0], args[1], args[2], args[4]))

    want, got = scored(), compacted(scored())
    assert got.partial is not None and got.partial.spool is got.spool
    pd.testing.assert_frame_equal(got.counting, want.counting)
    assert got.definitions.equals(want.definitions) and got.lines == want.lines
    for name in ("result_digests", "evidence_digests"):
        assert (digests(got, name) == digests(want, name)).all()
    assert [got.spool.batch(key).equals(want.spool.batch(key)) for key in want.spool._rows] == [True]
    assert keys(got) == keys(want)


def test_a_shard_spooled_to_disk_reads_as_the_one_in_memory(corpus):
    """The spooled columns in a file of the shard's own: the same evidence and row texts, and a pickled
    copy (a shard dask moves) carries them."""
    import pickle

    from scorekit.engines import local
    from scorekit.engines.dask import open_rows, spooled_to_disk
    from scorekit.kernel import open_shard
    from scorekit.kernel._shard import row_texts, segment

    src = open_rows(str(corpus))
    args = local.range_task(src.name, src.lines, {}, True)(0, len(src.lines))

    def scored():
        return open_shard(local.checked_range(*args), True, (args[0], args[1], args[2], args[4]))

    want, got = scored(), spooled_to_disk(scored())
    assert got.spool.on_disk == 1 and want.spool.on_disk == 0
    assert got.partial is not None and got.partial.spool is got.spool
    positions = list(range(0, len(want.counting), 7))
    assert row_texts(got, positions) == row_texts(want, positions)
    assert segment(got).equals(segment(want))
    moved = pickle.loads(pickle.dumps(got))
    del got
    assert segment(moved).equals(segment(want))
