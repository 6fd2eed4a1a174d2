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


def _jsonl_tasks(path: Path, workers: int) -> list[tuple[object, ...]]:
    """The dask engine's tasks for the JSON Lines file ``path`` on ``workers`` workers."""
    from scorekit.engines import dask as engine

    src = engine.open_rows(str(path))
    assert src is not None
    return list(engine._tasks(str(path), src, {}, True, workers))


def test_a_file_is_cut_into_partitions_of_at_most_partition_rows(corpus, pandas_card, cluster, monkeypatch):
    """However few the workers, no task scores more than PARTITION_ROWS lines (a task's peak grows with its
    rows); the byte ranges are of whole lines, contiguous and in order, their first lines numbered as the
    file's; the cuts still give the pandas engine's scorecard and evidence."""
    from scorekit.engines import dask as engine

    text = corpus.read_bytes()
    monkeypatch.setattr(engine, "PARTITION_ROWS", 37)
    for least, workers in ((1 << 20, 2), (1, 2), (1, 1), (1, 4), (5000, 2)):
        monkeypatch.setattr(engine, "MIN_PARTITION_BYTES", least)
        tasks = _jsonl_tasks(corpus, workers)
        lines = [text[start:stop].split(b"\n") for _, _, start, stop, *_ in tasks]
        assert all(0 < len(part) <= 37 for part in lines)
        assert [t[2] for t in tasks] == [0, *(t[3] + 1 for t in tasks)][:len(tasks)]  # contiguous, in order
        assert tasks[-1][3] in (len(text), len(text) - 1)
        assert [t[5] for t in tasks] == [1 + sum(map(len, lines[:i])) for i in range(len(tasks))]
        if least == 1:
            assert len(tasks) > len(lines[0]) // 37 + 1  # the byte targets cut too, not only PARTITION_ROWS
    card = sk.evaluate(corpus, engine="dask", scheduler=cluster)
    assert comparable(card) == pandas_card[0]
    assert card.evidence.equals(pandas_card[1])


def test_the_client_keeps_nothing_per_line_of_a_jsonl_file(tmp_path, corpus, monkeypatch):
    """Issue 27: a JSON Lines file (held or streamed, alone or a directory's member) is opened for the dask
    engine without its lines' offsets, and its tasks carry a byte range each, never a per-line array."""
    from scorekit._rows import _formats
    from scorekit.engines import dask as engine
    from scorekit.engines import local

    folder = tmp_path / "dir"
    folder.mkdir()
    write(folder / "a.jsonl", raw_rows(30))
    write(folder / "b.jsonl", raw_rows(20))
    for streamed in (False, True):
        monkeypatch.setattr(_formats, "STREAM_BYTES", 1 if streamed else 16 << 20)
        monkeypatch.setattr(engine, "MIN_PARTITION_BYTES", 4096)
        src = engine.open_rows(str(corpus))
        assert src is not None and src.lines is None and src.file is not None
        directory = engine.open_rows(str(folder))
        assert isinstance(directory, engine.Directory)
        assert all(member.lines is None and member.file is not None for member in directory.files)
        for rows, source in ((str(corpus), src), (str(folder), directory)):
            tasks = list(engine._tasks(rows, source, {}, True, 2))
            assert len(tasks) > 2
            for task in tasks:
                assert task[0] is local.checked_range
                assert all(isinstance(arg, (str, int, bool, dict)) for arg in task[1:]), task


def _tricky_lines(n: int) -> bytes:
    """JSON Lines text of ``n`` rows' lines with a byte order mark, blank and white lines, CRLF line ends,
    a damaged line far from the front and no newline after the last line."""
    lines = raw_rows(n)
    lines[len(lines) * 3 // 4] = '{"id": "broken", "case_id": '  # damaged, in a later range
    text = b"\xef\xbb\xbf"
    for i, line in enumerate(lines):
        end = "\r\n" if i % 3 == 0 else "\n"
        text += (line + end).encode()
        if i % 11 == 0:
            text += b"\n   \n" if i % 2 else b"\r\n"
    return text.rstrip(b"\r\n")


@pytest.mark.parametrize("policy", [None, {"purpose": "exploratory"}])
def test_byte_ranges_give_the_pandas_engine_s_card_on_odd_jsonl(tmp_path, cluster, monkeypatch, policy):
    """Blank lines, CRLF, a byte order mark, no final newline and a damaged line in a later range: the
    dask engine's byte ranges (many of them: tiny ranges, few lines each) give the pandas engine's
    scorecard and evidence, or its very error (naming the file and the line)."""
    from scorekit.engines import dask as engine

    path = tmp_path / "odd.jsonl"
    path.write_bytes(_tricky_lines(60))

    def run(name: str) -> tuple[str, object]:
        try:
            card = sk.evaluate(path, policy=policy, engine=name, **({"scheduler": cluster} if name == "dask" else {}))
        except sk.InputError as exc:
            return str(exc), None
        return comparable(card), card.evidence

    want = run("pandas")
    monkeypatch.setattr(engine, "MIN_PARTITION_BYTES", 1)
    monkeypatch.setattr(engine, "PARTITION_ROWS", 7)
    assert len(_jsonl_tasks(path, 2)) > 20
    got = run("dask")
    assert got[0] == want[0]
    if want[1] is not None:
        assert got[1].equals(want[1])


def test_a_range_changed_under_the_run_is_refused(tmp_path, monkeypatch):
    """The client reads each range's CRC-32 as it cuts the ranges: a worker refuses a range whose bytes
    differ (the file rewritten in place, its stamp put back), and a file whose size, time or inode
    changed after it was checked is refused as the ranges are cut."""
    import os

    from scorekit.engines import dask as engine
    from scorekit.engines import local

    path = write(tmp_path / "rows.jsonl", raw_rows(40))
    monkeypatch.setattr(engine, "MIN_PARTITION_BYTES", 1)
    tasks = _jsonl_tasks(path, 2)
    assert local.checked_range(*tasks[-1][1:]).source == str(path)
    st = os.stat(path)
    text = path.read_bytes()
    _, _, start, stop, *_ = tasks[-1]
    changed = text[:start] + text[start:stop].replace(b"c", b"d") + text[stop:]
    path.write_bytes(changed)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(OSError, match="the file changed while it was being scored"):
        local.checked_range(*tasks[-1][1:])
    src = engine.open_rows(str(path))
    path.write_bytes(changed + b"\n")
    with pytest.raises(sk.InputError, match="rows.jsonl: the file changed while it was being scored"):
        list(engine._tasks(str(path), src, {}, True, 2))


def test_a_compacted_shard_is_the_shard_it_was_copied_from(corpus):
    from scorekit.engines import local
    from scorekit.engines.dask import compacted
    from scorekit.kernel import open_shard
    from scorekit.kernel._shard import digests, keys

    (_, *args), = _jsonl_tasks(corpus, 1)  # one range: the whole file

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
    from scorekit.engines.dask import spooled_to_disk
    from scorekit.kernel import open_shard
    from scorekit.kernel._shard import row_texts, segment

    (_, *args), = _jsonl_tasks(corpus, 1)  # one range: the whole file

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
