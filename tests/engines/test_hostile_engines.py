"""Hostile input to the engines and the rows reader's limits (issue 25, items 2, 9 and 10; SPEC §20).

* A results path is a literal path in every engine: ``res[1].jsonl`` beside ``res1.jsonl`` reads
  ``res[1].jsonl`` (DuckDB's readers glob every path they are given), and so do paths holding ``*``,
  ``?``, ``{``, quotes and spaces, in a file's name or a directory's.
* A bad or unreachable dask scheduler is exit 2, one line naming it, within 10 s.
* A row nesting arrays deeper than the reader's limit (64 levels) is an invalid row naming its file
  and line, on every engine and in every format, whatever the depth (999, 5000, 100000): never a
  ``RecursionError``.
* An empty file, a directory with an empty member, CRLF line ends and a byte-order mark, each on
  every engine that reads the file.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import scorekit as sk

pytest.importorskip("distributed")
pytest.importorskip("duckdb")

POLICY = {"gate": {"thresholds": {"task": 0.9}}}
FAILING = [{"id": f"r{i}", "dimension": "task", "case_id": f"c{i}", "status": "FAIL" if i < 5 else "PASS",
            "evaluator": "harness"} for i in range(20)]
PASSING = [dict(row, status="PASS") for row in FAILING]
# Which engines read which kinds of file (the dask engine: JSON Lines or Parquet).
ENGINES = {"jsonl": ("pandas", "dask", "duckdb"), "csv": ("pandas", "duckdb"), "parquet": ("pandas", "dask", "duckdb")}


def _write(path: Path, rows: list[dict[str, Any]], *, crlf: bool = False, bom: bool = False) -> Path:
    """``rows`` in the file kind ``path``'s suffix says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    kind = path.suffix.lstrip(".")
    if kind == "parquet":
        pd.DataFrame(rows).to_parquet(path)
        return path
    if kind == "csv":
        text = pd.DataFrame(rows).to_csv(index=False, lineterminator="\n")
    else:
        text = "".join(json.dumps(row) + "\n" for row in rows)
    if crlf:
        text = text.replace("\n", "\r\n")
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def _options(engine: str, cluster: str) -> dict[str, Any]:
    return {"engine": engine, "scheduler": cluster} if engine == "dask" else {"engine": engine}


def _text(card: Any) -> str:
    data = card.to_dict()
    data.pop("generated_at", None)
    return json.dumps(data, sort_keys=True)


def _assert_same(got: Any, want: Any) -> None:
    assert _text(got) == _text(want)
    pd.testing.assert_frame_equal(got.evidence, want.evidence)


# --------------------------------------------------------------------------- a path is a path
CASES = [(kind, engine) for kind, engines in ENGINES.items() for engine in engines]


@pytest.mark.parametrize(("kind", "engine"), CASES)
def test_a_bracketed_results_path_reads_that_file_not_its_neighbour(tmp_path, cluster, kind, engine):
    """``res[1].jsonl`` FAILs at 0.9 (5 of 20 rows fail); ``res1.jsonl`` beside it, which a glob of the
    name matches, PASSes. Every engine reads the named file: the pandas engine's scorecard."""
    named = _write(tmp_path / f"res[1].{kind}", FAILING)
    _write(tmp_path / f"res1.{kind}", PASSING)
    got = sk.evaluate(named, policy=POLICY, **_options(engine, cluster))
    assert got.decision == "FAIL"
    _assert_same(got, sk.evaluate(named, policy=POLICY))


def test_the_cli_gate_fails_on_a_bracketed_path_with_the_duckdb_engine(tmp_path, run_cli):
    """The issue's reproduction: exit 1 and FAIL, not exit 0 and PASS from the neighbouring file."""
    _write(tmp_path / "res[1].jsonl", FAILING)
    _write(tmp_path / "res1.jsonl", PASSING)
    (tmp_path / "policy.json").write_text(json.dumps(POLICY), encoding="utf-8")
    code, out, err = run_cli("run", "--engine", "duckdb", "--results", tmp_path / "res[1].jsonl", "--policy",
                             tmp_path / "policy.json", "--out-dir", tmp_path / "out", "--gate")
    assert code == 1, (out, err)
    assert out.startswith("decision: FAIL"), out


# Odd names, each beside the decoy a glob of it would also match (or None: the name just has to work).
ODD_NAMES = [("r*1", "rX1"), ("r?1", "rA1"), ("r[ab]1", "ra1"), ("r{1,2}", "r1"), ("it's", None),
             ('say "hi"', None), ("with space", None), ("[", None), ("~home", None)]


@pytest.mark.parametrize(("name", "decoy"), ODD_NAMES, ids=[n for n, _ in ODD_NAMES])
@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_odd_characters_in_a_file_name_read_exactly_that_file_with_duckdb(tmp_path, kind, name, decoy):
    named = _write(tmp_path / f"{name}.{kind}", FAILING)
    if decoy is not None:
        _write(tmp_path / f"{decoy}.{kind}", PASSING)
    _assert_same(sk.evaluate(named, policy=POLICY, engine="duckdb"), sk.evaluate(named, policy=POLICY))


@pytest.mark.parametrize("kind", ["jsonl", "csv", "parquet"])
def test_a_bracketed_directory_reads_its_own_files(tmp_path, kind):
    """A directory ``runs[1]`` beside ``runs1`` (its glob): its two files, as the one file they make."""
    _write(tmp_path / "runs[1]" / f"a.{kind}", FAILING[:10])
    _write(tmp_path / "runs[1]" / f"b*.{kind}", FAILING[10:])
    _write(tmp_path / "runs1" / f"a.{kind}", PASSING[:10])
    want = sk.evaluate(_write(tmp_path / f"whole.{kind}", FAILING), policy=POLICY)
    got = sk.evaluate(tmp_path / "runs[1]", policy=POLICY, engine="duckdb")
    assert got.decision == "FAIL"
    pd.testing.assert_frame_equal(got.evidence, want.evidence)
    assert got.hashes == want.hashes


def test_a_name_duckdb_cannot_escape_is_refused_in_one_line(tmp_path):
    r"""A backslash beside a glob character (``r\[1].jsonl`` on POSIX): DuckDB splits paths at ``\``, so
    no escaping names the file; refused, never read as another file."""
    if Path("a\\b").name != "a\\b":
        pytest.skip("a backslash separates path parts here")
    named = _write(tmp_path / "r\\[1].jsonl", FAILING)
    _write(tmp_path / "r\\1.jsonl", PASSING)
    try:
        got = sk.evaluate(named, policy=POLICY, engine="duckdb")
    except sk.InputError as exc:
        assert str(named) in str(exc) and "\n" not in str(exc)
    else:
        _assert_same(got, sk.evaluate(named, policy=POLICY))


# --------------------------------------------------------------------------- schedulers
def _refused_port() -> int:
    """A loopback port nothing listens on: bound, then closed."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("address", ["", "not-an-address", "tcp://127.0.0.1", "127.0.0.1:99999", "refused",
                                     "refused-no-scheme"])
def test_a_bad_or_unreachable_scheduler_is_one_line_exit_2_within_10_s(tmp_path, run_cli, address):
    if address.startswith("refused"):
        port = _refused_port()
        address = f"127.0.0.1:{port}" if address.endswith("no-scheme") else f"tcp://127.0.0.1:{port}"
    rows = _write(tmp_path / "rows.jsonl", PASSING)
    started = time.monotonic()
    code, out, err = run_cli("run", "--engine", "dask", "--scheduler", address, "--results", rows,
                             "--out-dir", tmp_path / "out")
    elapsed = time.monotonic() - started
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and repr(address) in lines[0] and "Traceback" not in err, err
    assert elapsed < 10, elapsed  # the bound (dask's own connect timeout is 30 s)


def test_the_library_refuses_a_bad_scheduler_before_reading_the_rows(tmp_path):
    with pytest.raises(sk.InputError, match="not a dask scheduler address"):
        sk.evaluate(tmp_path / "no-such-file.jsonl", engine="dask", scheduler="not-an-address")


# --------------------------------------------------------------------------- nesting
def _deep_row(depth: int, field: str = "run") -> str:
    """A pre-scored row whose ``field`` nests ``depth`` arrays (``run``: a column every engine reads, JSON
    in a CSV cell)."""
    return ('{"id": "deep", "dimension": "task", "case_id": "deep", "status": "PASS", "evaluator": "harness", '
            f'"{field}": ' + "[" * depth + "]" * depth + "}")


def _deep_file(tmp_path: Path, depth: int, kind: str, field: str = "run") -> Path:
    regular = [json.dumps(row) for row in PASSING[:4]]
    if kind == "csv":
        path = tmp_path / "deep.csv"
        cells = "[" * depth + "]" * depth
        body = "".join(f"{r['id']},task,{r['case_id']},PASS,harness,\n" for r in PASSING[:4])
        path.write_text(f"id,dimension,case_id,status,evaluator,{field}\n{body}deep,task,deep,PASS,harness,"
                        f"\"{cells}\"\n", encoding="utf-8")
        return path
    if kind == "parquet":  # the nested value as JSON text (a Parquet schema itself nests at most ~100 levels)
        rows = [*PASSING[:4], {**json.loads(_deep_row(1, field)), field: "[" * depth + "]" * depth}]
        return _write(tmp_path / "deep.parquet", rows)
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join([*regular, _deep_row(depth, field)]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("depth", [65, 500, 999, 5000, 100000])
@pytest.mark.parametrize(("kind", "engine"), [("jsonl", "pandas"), ("jsonl", "dask"), ("jsonl", "duckdb"),
                                              ("csv", "pandas"), ("csv", "duckdb")])
def test_a_row_nested_too_deeply_is_an_invalid_row_on_every_engine(tmp_path, cluster, run_cli, depth, kind, engine):
    """``run`` on every engine and ``validate``: the row is invalid, named by file and line (JSON Lines line
    5, CSV line 6), the same scorecard on every engine; no traceback whatever the depth."""
    path = _deep_file(tmp_path, depth, kind)
    line = 6 if kind == "csv" else 5
    argv = ["run", "--results", path, "--out-dir", tmp_path / "out", "--engine", engine]
    code, out, err = run_cli(*argv, *(["--scheduler", cluster] if engine == "dask" else []))
    assert code == 0 and "Traceback" not in err, err
    problems = json.loads((tmp_path / "out" / "scorecard.json").read_text(encoding="utf-8"))["validation"]["problems"]
    assert [(p["line"], p["message"]) for p in problems] == [(line, "not valid JSON (nested too deeply)")]
    _assert_same(sk.evaluate(path, **_options(engine, cluster)), sk.evaluate(path))
    code, out, err = run_cli("validate", path)
    assert code == 1 and "Traceback" not in err, err
    assert f"{path}:{line}: " in out and "nested too deeply" in out


@pytest.mark.parametrize("depth", [65, 500, 999, 5000])
@pytest.mark.parametrize("field", ["input", "observed_state", "run"])
def test_a_json_text_cell_of_a_parquet_file_nested_too_deeply_is_read_without_recursion(tmp_path, cluster, depth,
                                                                                         field):
    """A Parquet text cell holding JSON (structured fields are read from it, as in CSV): never a
    ``RecursionError`` (500 deep used to be read, then walked recursively)."""
    path = _deep_file(tmp_path, depth, "parquet", field)
    want = sk.evaluate(path)
    assert want.to_dict()["validation"]
    _assert_same(sk.evaluate(path, engine="dask", scheduler=cluster), want)


@pytest.mark.parametrize("depth", [65, 999, 5000, 100000])
@pytest.mark.parametrize("source", ["list", "frame"])
def test_rows_given_as_values_nested_too_deeply_are_invalid_rows(depth, source):
    value: Any = []
    for _ in range(depth - 1):  # built without recursion
        value = [value]
    rows = [*PASSING[:4], {**PASSING[4], "input": value}]
    card = sk.evaluate(rows if source == "list" else pd.DataFrame(rows))
    problems = card.to_dict()["validation"]["problems"]
    assert [(p["line"], p["field"], p["id"]) for p in problems] == [(5, "row", "r4")]
    assert "nested too deeply" in problems[0]["message"]


def test_a_row_at_the_nesting_limit_is_read(tmp_path):
    """63 arrays inside the row object: 64 levels, the limit, read as a valid row."""
    path = tmp_path / "rows.jsonl"
    path.write_text(_deep_row(63, "input") + "\n", encoding="utf-8")
    assert sk.evaluate(path).to_dict()["validation"]["problems"] == []


# --------------------------------------------------------------------------- empty files, CRLF, BOM
@pytest.mark.parametrize(("kind", "engine"), CASES)
def test_an_empty_file_is_one_line_exit_2_on_every_engine(tmp_path, cluster, run_cli, kind, engine):
    path = tmp_path / f"res[1].{kind}"
    path.write_bytes(b"")
    _write(tmp_path / f"res1.{kind}", PASSING)
    argv = ["run", "--results", path, "--out-dir", tmp_path / "out", "--engine", engine]
    code, out, err = run_cli(*argv, *(["--scheduler", cluster] if engine == "dask" else []))
    assert code == 2, (out, err)
    assert err.strip().count("\n") == 0 and str(path) in err and "Traceback" not in err, err


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
@pytest.mark.parametrize("empty", [b"", b"\n\n"])
def test_an_empty_member_of_a_directory_adds_no_row_with_duckdb(tmp_path, kind, empty):
    """As in the one file the directory's files make (and as a Parquet member of no rows): the empty
    member adds its lines and no row; it used to stop the engine ("empty file, no rows")."""
    _write(tmp_path / "runs" / f"a.{kind}", FAILING[:10])
    (tmp_path / "runs" / f"b.{kind}").write_bytes(empty)
    _write(tmp_path / "runs" / f"c.{kind}", FAILING[10:])
    got = sk.evaluate(tmp_path / "runs", policy=POLICY, engine="duckdb")
    assert got.decision == "FAIL" and len(got.evidence) == len(FAILING)
    assert got.to_dict()["validation"]["problems"] == []


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_directory_of_empty_members_is_one_line_with_duckdb(tmp_path, kind):
    (tmp_path / "runs").mkdir()
    for name in ("a", "b"):
        (tmp_path / "runs" / f"{name}.{kind}").write_bytes(b"")
    with pytest.raises(sk.InputError, match="no rows"):
        sk.evaluate(tmp_path / "runs", engine="duckdb")


@pytest.mark.parametrize("form", ["crlf", "bom", "crlf+bom"])
@pytest.mark.parametrize(("kind", "engine"), [c for c in CASES if c[0] != "parquet"])
def test_crlf_and_a_byte_order_mark_read_alike_on_every_engine(tmp_path, cluster, form, kind, engine):
    """Read as the pandas engine reads them, also under a bracketed name beside its decoy."""
    named = _write(tmp_path / f"res[1].{kind}", FAILING, crlf="crlf" in form, bom="bom" in form)
    _write(tmp_path / f"res1.{kind}", PASSING)
    want = sk.evaluate(named, policy=POLICY)
    assert want.decision == "FAIL" and len(want.evidence) == len(FAILING)
    _assert_same(sk.evaluate(named, policy=POLICY, **_options(engine, cluster)), want)


@pytest.mark.parametrize("kind", ["jsonl", "csv"])
def test_a_crlf_member_beside_a_plain_one_in_a_bracketed_directory(tmp_path, kind):
    """A member the pandas reader reads whole (CRLF) and one DuckDB reads (plain), in ``runs[1]`` beside
    ``runs1``: the rows of the named directory's files."""
    _write(tmp_path / "runs[1]" / f"a.{kind}", FAILING[:10], crlf=True)
    _write(tmp_path / "runs[1]" / f"b.{kind}", FAILING[10:])
    _write(tmp_path / "runs1" / f"b.{kind}", [dict(row, status="FAIL") for row in FAILING[10:]])
    got = sk.evaluate(tmp_path / "runs[1]", policy=POLICY, engine="duckdb")
    assert got.decision == "FAIL"
    status = got.evidence.set_index("id")["status"].astype(str).to_dict()
    assert status == {row["id"]: row["status"] for row in FAILING}
