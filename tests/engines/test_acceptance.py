"""The engines' acceptance (issue 15, SPEC §16) on one mixed raw-row corpus.

The pandas engine in one process is the reference. On the same rows, cut into
any partitions, the pandas engine with two local processes, the dask engine on
a LocalCluster of two worker processes and the duckdb engine (on the corpus's
pre-scored rows) give byte-identical scorecard.json (but ``generated_at``),
equal evidence and equal hashes.

Not repeated here: killed, hanging and refused local workers (test_local.py),
the CLI flags and the dask extra missing (test_dask.py, test_duckdb.py), the
duckdb screen against the pandas engine on the same Parquet file
(test_duckdb.py).
"""

from __future__ import annotations

import contextlib
import json
import random
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from _corpus import comparable, raw_rows, write
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit.engines import local

pytest.importorskip("distributed")
pytest.importorskip("duckdb")

# 1200 lines: enough for three byte ranges by default (local.line_ranges), small enough to score in a blink.
N_CASES = 400
# Where to cut rows into partitions: per-mille positions, up to eight parts.
CUTS = st.lists(st.integers(1, 999), max_size=7, unique=True)
# The same, with empty partitions (a cut at 0 or 1000, two equal cuts).
CUTS_WITH_EMPTY = st.lists(st.integers(0, 1000), max_size=7)
FEW = settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
PRESCORED = ("id", "case_id", "dimension", "trial", "run", "status", "evaluator", "reason")
CONTRACTS = Path(__file__).resolve().parents[1] / "data" / "imports" / "tools" / "openai-chat-tools.json"
# The default policy, and one that sets every option a partition is scored with (its context).
POLICIES: dict[str, dict[str, Any] | None] = {
    "default": None,
    "every scoring option": {"judges": {"panel": ["judge-a", "judge-b", "judge-c"], "pass_score": 3},
                             "budgets": {"cost_usd": 0.05, "latency_ms": 3000}, "partial": {"min": 0.5},
                             "tool_contracts": str(CONTRACTS)},
}


@dataclass(frozen=True, repr=False)
class Result:
    text: str  # scorecard.json but generated_at
    evidence: pd.DataFrame
    hashes: dict[str, str]

    def __repr__(self) -> str:  # hypothesis shows the fixtures of a failing example
        return f"<scorecard of {len(self.evidence)} rows>"


def _result(card: Any) -> Result:
    return Result(comparable(card), card.evidence, dict(card.hashes))


def _assert_same(card: Any, want: Result) -> None:
    got = _result(card)
    assert got.text == want.text
    pd.testing.assert_frame_equal(got.evidence, want.evidence, check_exact=True)
    assert got.hashes == want.hashes


def _bounds(n: int, cuts: list[int]) -> list[tuple[int, int]]:
    """[start, stop) of the parts of ``n`` rows cut at the per-mille positions ``cuts``."""
    edges = [0, *sorted(n * c // 1000 for c in cuts), n]
    return list(zip(edges, edges[1:], strict=False))


def _nonempty(n: int, cuts: list[int]) -> list[tuple[int, int]]:
    return [(a, b) for a, b in _bounds(n, cuts) if a < b]


def _rows(lines: list[str]) -> list[dict[str, Any]]:
    """The corpus's lines that are JSON objects (the others cannot be a row of a frame or a Parquet file)."""
    rows = []
    for line in lines:
        with contextlib.suppress(ValueError):
            rows.append(json.loads(line))
    return rows


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("acceptance") / "rows.jsonl", raw_rows(N_CASES))


@pytest.fixture(scope="module")
def references(corpus: Path) -> dict[str, Result]:
    """The pandas engine in this one process, under each policy."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCOREKIT_WORKERS", "1")
        return {name: _result(sk.evaluate(corpus, policy=policy)) for name, policy in POLICIES.items()}


@pytest.fixture(scope="module")
def reference(references: dict[str, Result]) -> Result:
    return references["default"]


@contextlib.contextmanager
def _two_local_processes(bounds: list[tuple[int, int]] | None = None) -> Iterator[list[int]]:
    """The pandas engine on two processes, this one and a worker, whatever the
    file's size, its lines cut into ``bounds`` (else the engine's own ranges).

    Yields the first lines of the ranges the worker delivered. With two ranges
    or more, this process scores its first range only once the worker has
    delivered one (or failed), so both processes score rows.
    """
    delivered: list[int] = []
    answered = threading.Event()
    n_ranges = [0]
    real_ranges, real_lines, real_file = local.line_ranges, local.score_lines, local.score_file

    def line_ranges(n_rows: int, n_workers: int) -> list[tuple[int, int]]:
        ranges = real_ranges(n_rows, n_workers) if bounds is None else bounds
        n_ranges[0] = len(ranges)
        return ranges

    def score_lines(*args: Any, **kwargs: Any) -> Any:
        if n_ranges[0] >= 2:
            answered.wait(120)
        return real_lines(*args, **kwargs)

    def pool(n: int) -> Executor:
        executor = local._pool(n)
        submit = executor.submit

        def watched(fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
            future = submit(fn, *args, **kwargs)

            def done(f: Future[Any]) -> None:
                if not f.cancelled() and f.exception() is None:
                    delivered.append(args[4])  # checked_range's first line
                answered.set()

            future.add_done_callback(done)
            return future

        executor.submit = watched  # type: ignore[method-assign]
        return executor

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCOREKIT_WORKERS", "2")
        mp.setattr(local, "MIN_ROWS", 1)  # workers for a file of any size
        mp.setattr(local, "line_ranges", line_ranges)
        mp.setattr(local, "score_lines", score_lines)
        mp.setattr(local, "score_file", lambda *a, **k: real_file(*a, **{**k, "executor": pool}))
        yield delivered
    assert n_ranges[0] >= 1  # the worker path was taken


# 1. Each engine with its own partitioning gives the reference.

@pytest.mark.parametrize("policy", POLICIES)
def test_two_local_processes_give_the_one_process_scorecard(corpus, references, policy):
    with _two_local_processes() as delivered:
        card = sk.evaluate(corpus, policy=POLICIES[policy])
    assert delivered  # the worker scored rows
    _assert_same(card, references[policy])


@pytest.mark.parametrize("policy", POLICIES)
def test_dask_on_a_two_process_cluster_gives_the_one_process_scorecard(corpus, references, cluster, policy):
    _assert_same(sk.evaluate(corpus, policy=POLICIES[policy], engine="dask", scheduler=cluster), references[policy])


# 2. Any partitioning gives the same.

@FEW
@given(cuts=CUTS)
@example(cuts=list(range(125, 1000, 125)))  # eight ranges
def test_any_byte_ranges_on_two_local_processes(corpus, reference, cuts):
    bounds = _nonempty(len(corpus.read_text().splitlines()), cuts)
    with _two_local_processes(bounds) as delivered:
        card = sk.evaluate(corpus)
    assert delivered or len(bounds) == 1
    _assert_same(card, reference)


@FEW
@given(cuts=CUTS)
def test_any_byte_ranges_on_dask(corpus, reference, cluster, cuts):
    bounds = _nonempty(len(corpus.read_text().splitlines()), cuts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local, "line_ranges", lambda n_rows, n_workers: bounds)
        card = sk.evaluate(corpus, engine="dask", scheduler=cluster)
    _assert_same(card, reference)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.DataFrame(_rows(raw_rows(N_CASES)))


@pytest.fixture(scope="module")
def frame_reference(frame: pd.DataFrame) -> Result:
    return _result(sk.evaluate(frame))


@FEW
@given(cuts=CUTS_WITH_EMPTY)
def test_any_partitions_of_a_dask_dataframe(frame, frame_reference, cluster, cuts):
    import dask
    import dask.dataframe as dd

    # dask would turn the lists and dicts of object columns into their str().
    with dask.config.set({"dataframe.convert-string": False}):
        parts = [dd.from_pandas(frame.iloc[a:b], npartitions=1) for a, b in _bounds(len(frame), cuts)]
        rows = dd.concat(parts) if len(parts) > 1 else parts[0]
        assert rows.npartitions == len(parts)
        card = sk.evaluate(rows, engine="dask", scheduler=cluster)
    _assert_same(card, frame_reference)


@dataclass(frozen=True, repr=False)
class Written:
    """Rows as a table, and the pandas engine's result on them written at ``path``."""

    table: pa.Table
    path: Path
    want: Result

    def __repr__(self) -> str:
        return f"<{self.table.num_rows} rows at {self.path}>"


@pytest.fixture(scope="module")
def parquet(tmp_path_factory: pytest.TempPathFactory, frame: pd.DataFrame) -> Written:
    table = pa.Table.from_pandas(frame, preserve_index=False)
    path = tmp_path_factory.mktemp("parquet") / "rows.parquet"
    pq.write_table(table, path)
    return Written(table, path, _result(sk.evaluate(path)))


@FEW
@given(cuts=CUTS_WITH_EMPTY)
def test_any_parquet_row_groups_on_dask(parquet, cluster, cuts):
    bounds = _bounds(parquet.table.num_rows, cuts)
    with pq.ParquetWriter(parquet.path, parquet.table.schema) as writer:
        for a, b in bounds:
            writer.write_table(parquet.table.slice(a, b - a))  # one row group each, empty ones too
    assert pq.ParquetFile(parquet.path).metadata.num_row_groups == len(bounds)
    _assert_same(sk.evaluate(parquet.path, engine="dask", scheduler=cluster), parquet.want)


# 3. The duckdb engine on the pre-scored rows (Parquet) and the dask engine on their JSON Lines give the pandas
#    engine on the same rows (JSON Lines).

@pytest.fixture(scope="module")
def prescored(tmp_path_factory: pytest.TempPathFactory) -> Written:
    """The corpus's rows with a status, and the pandas engine on them as JSON
    Lines file ``subset``. The duckdb engine reads a directory also named
    ``subset`` (in another folder), so problems name the same source."""
    lines = [line for line in raw_rows(N_CASES) if '"status"' in line]
    rows = _rows(lines)
    assert len(rows) == len(lines) and all("status" in r for r in rows)
    schema = pa.schema([(n, pa.int64() if n == "trial" else pa.string()) for n in PRESCORED])
    table = pa.table({n: [r.get(n) for r in rows] for n in PRESCORED}, schema=schema)
    path = write(tmp_path_factory.mktemp("prescored") / "subset", lines)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(path.parent)
        return Written(table, path, _result(sk.evaluate(path.name)))


def _duckdb_on_files(data: Written, bounds: list[tuple[int, int]], order: random.Random) -> Any:
    """The duckdb engine on a directory named ``subset`` holding one Parquet
    file per part, named in row order, written in any order."""
    folder = Path(tempfile.mkdtemp(dir=data.path.parent)) / data.path.name
    folder.mkdir()
    parts = list(enumerate(bounds))
    order.shuffle(parts)
    for i, (a, b) in parts:
        pq.write_table(data.table.slice(a, b - a), folder / f"part-{i:03d}.parquet")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder.parent)
        return sk.evaluate(folder.name, engine="duckdb")


def test_duckdb_on_the_prescored_parquet_gives_the_pandas_engine_on_its_json_lines(prescored):
    from scorekit.engines import _counted

    counts: dict[str, int] = {}
    real_rows = _counted._evidence_rows

    def evidence_rows(base: str, strict: bool) -> str:
        if base == "base":  # the first time: the rows SQL scored and the rows the pandas code scored
            counts["sql"] = _con[0].execute("SELECT count(*) FROM fast").fetchall()[0][0]
            counts["pandas"] = _con[0].execute("SELECT count(*) FROM slow_rows").fetchall()[0][0]
        return real_rows(base, strict)

    _con: list[Any] = []
    real_duplicates = _counted._duplicates

    def duplicates(con: Any, *args: Any) -> Any:
        _con.append(con)
        return real_duplicates(con, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_counted, "_evidence_rows", evidence_rows)
        mp.setattr(_counted, "_duplicates", duplicates)
        card = _duckdb_on_files(prescored, [(0, prescored.table.num_rows)], random.Random(0))
    # Both ways were taken: rows scored in SQL, irregular rows by the pandas engine's code.
    assert counts["sql"] > 0 and counts["pandas"] > 0
    assert counts["sql"] + counts["pandas"] == prescored.table.num_rows
    _assert_same(card, prescored.want)


@pytest.mark.parametrize("ranges", [None, [(0, 1), (1, 40), (40, 41), (41, 10**9)]])
def test_dask_on_the_prescored_json_lines_gives_the_pandas_engine(prescored, cluster, ranges):
    """The third engine on the same pre-scored rows: the dask engine on the JSON Lines file the
    pandas engine read (its own line ranges, or cut anywhere)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(prescored.path.parent)
        if ranges is not None:
            mp.setattr(local, "line_ranges", lambda n_rows, n_workers: [(a, min(b, n_rows)) for a, b in ranges])
        card = sk.evaluate(prescored.path.name, engine="dask", scheduler=cluster)
    _assert_same(card, prescored.want)


@FEW
@given(cuts=CUTS_WITH_EMPTY, order=st.randoms(use_true_random=False))
def test_any_parquet_files_on_duckdb(prescored, cuts, order):
    card = _duckdb_on_files(prescored, _bounds(prescored.table.num_rows, cuts), order)
    _assert_same(card, prescored.want)


# 4. The other engine tests' inputs on every engine that reads them (issue 27): pandas, dask (JSON Lines and
#    Parquet) and duckdb (pre-scored rows only) give byte-identical scorecard.json but generated_at, the same
#    evidence (rows, order, dtypes, values) and the same hashes. Those tests compare fewer engines or fewer fields.

def _parquet_of(rows: list[dict[str, Any]], path: Path, row_group_size: int = 7) -> Path:
    pq.write_table(pa.Table.from_pylist(rows), path, row_group_size=row_group_size)
    return path


def _jsonl_of(rows: list[dict[str, Any]], path: Path) -> Path:
    return write(path, [json.dumps(row) for row in rows])


def _dask_parquet_rows(folder: Path, suffix: str) -> Path:
    """test_dask.py's Parquet read by row group: the corpus's rows, every one given a status."""
    rows = [json.loads(line) for line in raw_rows(120) if line.startswith('{"')]
    rows = [{"id": r["id"], "case_id": r["case_id"], "dimension": r["dimension"], "trial": r["trial"],
             "status": r.get("status", "PASS"), "evaluator": "harness-x"} for r in rows]
    return _parquet_of(rows, folder / "rows.parquet", 37) if suffix == ".parquet" else _jsonl_of(
        rows, folder / "rows.jsonl")


def _duckdb_subset(folder: Path, suffix: str) -> Path:
    """test_duckdb.py's pre-scored subset (irregular rows for every screen)."""
    from test_duckdb import PRESCORED as COLUMNS
    from test_duckdb import _prescored_subset, _write

    if suffix == ".parquet":
        return _write(_prescored_subset(), folder / "rows.parquet", row_group_size=50)
    return _jsonl_of([{k: r[k] for k in (*COLUMNS, "reason") if k in r} for r in _prescored_subset()],
                     folder / "rows.jsonl")


def _duckdb_text(folder: Path, suffix: str) -> Path:
    """test_duckdb.py's JSON Lines of irregular rows and odd lines."""
    from test_duckdb import _text_file

    return _text_file(folder, "jsonl")


def _duckdb_partial_run(folder: Path, suffix: str) -> Path:
    from test_duckdb import _flagged_file

    return _flagged_file(folder, suffix.lstrip("."), True)


def _imported_partial_run(folder: Path, suffix: str) -> Path:
    """test_partial_run.py's rows of an Inspect log cut short (``partial_run`` on every row)."""
    from import_logs import POPULARITY

    (run,) = sk.import_results(POPULARITY)
    frame = run.rows[["id", "dimension", "case_id", "trial", "status", "evaluator", "agent", "partial_run"]]
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    return _parquet_of(rows, folder / "rows.parquet") if suffix == ".parquet" else _jsonl_of(
        rows, folder / "rows.jsonl")


def _pii_prescored(folder: Path, suffix: str) -> Path:
    """test_hostile_pii.py's pre-scored rows whose reasons carry personal data and secrets."""
    from test_hostile_pii import prescored_rows

    rows = [{k: v for k, v in r.items() if k != "detail"} for r in prescored_rows()]
    return _parquet_of(rows, folder / "rows.parquet") if suffix == ".parquet" else _jsonl_of(
        rows, folder / "rows.jsonl")


def _pii_scored(folder: Path, suffix: str) -> Path:
    """test_hostile_pii.py's raw rows (every dimension kind holding the values)."""
    from test_hostile_pii import scored_rows

    return _jsonl_of(scored_rows(), folder / "rows.jsonl")


def _hostile_deep(folder: Path, suffix: str) -> Path:
    """test_hostile_engines.py's row nested 999 arrays deep."""
    from test_hostile_engines import _deep_file

    return _deep_file(folder, 999, "jsonl")


def _hostile_crlf_bom(folder: Path, suffix: str) -> Path:
    """test_hostile_engines.py's CRLF line ends and byte-order mark, under a bracketed name beside its decoy."""
    from test_hostile_engines import FAILING, PASSING
    from test_hostile_engines import _write as write_kind

    write_kind(folder / "res1.jsonl", PASSING)
    return write_kind(folder / "res[1].jsonl", FAILING, crlf=True, bom=True)


# name -> (the file's writer, its suffixes, engines beside pandas; duckdb: pre-scored rows only)
EXISTING: dict[str, tuple[Any, tuple[str, ...], tuple[str, ...]]] = {
    "test_dask parquet by row group": (_dask_parquet_rows, (".parquet", ".jsonl"), ("dask", "duckdb")),
    "test_duckdb pre-scored subset": (_duckdb_subset, (".parquet", ".jsonl"), ("dask", "duckdb")),
    "test_duckdb text file": (_duckdb_text, (".jsonl",), ("dask", "duckdb")),
    "test_duckdb partial_run": (_duckdb_partial_run, (".parquet", ".jsonl"), ("dask", "duckdb")),
    "test_partial_run imported": (_imported_partial_run, (".parquet", ".jsonl"), ("dask", "duckdb")),
    "test_hostile_pii pre-scored": (_pii_prescored, (".parquet", ".jsonl"), ("dask", "duckdb")),
    "test_hostile_pii raw": (_pii_scored, (".jsonl",), ("dask",)),
    "test_hostile_engines deep": (_hostile_deep, (".jsonl",), ("dask", "duckdb")),
    "test_hostile_engines crlf bom": (_hostile_crlf_bom, (".jsonl",), ("dask", "duckdb")),
}
EXISTING_CASES = [(name, suffix) for name, (_, suffixes, _) in EXISTING.items() for suffix in suffixes]


@pytest.mark.parametrize(("name", "suffix"), EXISTING_CASES, ids=[f"{n} {s}" for n, s in EXISTING_CASES])
def test_the_other_engine_tests_inputs_give_one_scorecard_on_every_engine(tmp_path, cluster, name, suffix):
    build, _, engines = EXISTING[name]
    path = build(tmp_path, suffix)
    policy = {"gate": {"thresholds": {"task": 0.9, "graded": 0.5, "match": 0.5}}}
    want = _result(sk.evaluate(path, policy=policy))
    for engine in engines:
        options = {"scheduler": cluster} if engine == "dask" else {}
        got = sk.evaluate(path, policy=policy, engine=engine, **options)
        try:
            _assert_same(got, want)
        except AssertionError as exc:
            raise AssertionError(f"{engine}: {exc}") from None


# 5. The duckdb extra missing (the dask one: test_dask.py).

def test_a_missing_duckdb_extra_is_one_line_naming_the_pip_command(monkeypatch, prescored, capsys):
    import importlib.util

    from scorekit import cli

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "duckdb" else real(name, *a))
    code = cli.main(["run", "--results", str(prescored.path), "--engine", "duckdb", "--out-dir", "unused"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "pip install scorekit[duckdb]" in err


# 6. Found on the way (fixed).

def test_the_dask_engine_s_own_cluster_does_not_warn_of_a_busy_dashboard_port(corpus, reference):
    """With no scheduler, a LocalCluster of its own: no warning when port 8787
    (dask's dashboard default, often taken by a running cluster) is busy."""
    import socket
    import warnings

    with socket.socket() as held:
        with contextlib.suppress(OSError):  # already taken by another process: as good
            held.bind(("", 8787))
            held.listen()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            card = sk.evaluate(corpus, engine="dask")
    assert not [w for w in caught if "8787" in str(w.message)]
    _assert_same(card, reference)


# 7. Found on the way: combine puts problems back in line order, as it does the rows.

def test_combined_partials_keep_their_problems_in_line_order():
    from scorekit._partial import combine, score_lines
    from scorekit._rows._formats import FileLines

    ctx = {"budgets": {}, "judge_panel": (), "pass_score": 4, "partial": "fail", "agent": None}
    lines = FileLines(b"{1\n{2\n{3\n{4\n")  # four invalid rows: one problem each
    parts = [score_lines(lines[i:i + 1], i + 1, "rows.jsonl", ctx, True) for i in range(4)]
    combined = combine([combine([parts[0], parts[2]]), combine([parts[1], parts[3]])])
    assert combined.table().column("line").to_pylist() == [1, 2, 3, 4]
    assert [p.line for p in combined.problems] == [1, 2, 3, 4]

