"""The three engines are executors of one count (issue 27 acceptance, SPEC §16): on irregular rows
they give byte-identical scorecard.json (but ``generated_at``) and identical evidence.

* Pre-scored rows (the duckdb engine's input): duplicate ids and (case, dimension, trial),
  ERROR/ABSTAIN with and without reasons, invalid statuses, missing and mock evaluators, rows
  without a trial, ``run`` on some rows, ``partial_run``, odd case ids, an ``agent`` on some rows,
  lines that are no JSON object; in Parquet and frames, a column of another type (a double trial, an
  integer agent, an integer id or status, a double reason). Written as one JSON Lines or Parquet file
  (several row groups; the dask engine cuts JSON Lines into line ranges anywhere) and as a directory of part files
  (the duckdb engine; the pandas and dask engines refuse a directory: the xfail test at the end).
  pandas, dask and duckdb agree.
* Raw rows (scored by scorekit; the duckdb engine refuses them): unlabeled rows, two definitions
  of one case, judge panels with errors, invalid values and duplicate judges, NaN and missing
  scores, controls, pre-scored rows among them. pandas and dask agree.
* Either set as a pandas DataFrame and as a dask DataFrame cut anywhere: pandas and dask agree.
* Either set with ``evidence_rows_in_memory=1``: the evidence is the ``evidence/`` dataset, and
  the scorecard.json ``card.write`` writes is compared byte for byte.

The differences found are strict xfail tests at the end (issue 27: the final tests pass without
them); the hypothesis tests keep their inputs out of the draws until they are fixed.
A row set the format cannot hold (a column of mixed types in Parquet) is not drawn for it
(``assume``). The dask engine runs on the module's LocalCluster of two worker processes (the
``cluster`` fixture of tests/conftest.py), started once for the module.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from _irregular import (
    Kinds,
    Row,
    Seen,
    assert_same,
    bounds,
    lone_array,
    observe,
    parquet_table,
    prescored_sets,
    raw_sets,
    write_file,
    write_parts,
    written,
)
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit.engines import dask as dask_engine

pytest.importorskip("distributed")
pytest.importorskip("duckdb")

EXAMPLES = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# A pre-scored column of another type than the usual one (Parquet and frames): (column, values).
TYPED_ODDITIES: tuple[tuple[str, tuple[Any, ...]], ...] = (
    ("trial", (0.0, 1.0, 2.5, float("nan"), None)), ("run", (0.0, 1.5, float("nan"))), ("evaluator", (1, None)),
    ("partial_run", ("true", "false", None)), ("agent", (1, None)),
    # A column that must be text, of another type: its rows are invalid, the problem named.
    ("id", (1, 2, 3, 1)), ("case_id", (1, 2, None)), ("status", (1, 0)), ("dimension", (1, 2)),
    ("reason", (1.5, None)),
)
NOT_TEXT = ("id", "case_id", "status", "dimension", "reason")
FRAME = "frame"  # raw rows as a pandas DataFrame (pandas) and a dask DataFrame (dask)
# Where to cut the rows into partitions and files: per-mille positions (0 and 1000: empty parts).
CUTS = st.lists(st.integers(0, 1000), max_size=4)
PRESCORED_POLICIES: tuple[dict[str, Any] | None, ...] = (
    None,
    {"purpose": "exploratory"},
    {"gate": {"thresholds": {"d1": 0.5, "graded": 0.8}, "min_samples": 1, "min_coverage": 0.5}},
)
RAW_POLICIES: tuple[dict[str, Any] | None, ...] = (
    None,
    {"judges": {"panel": ["a", "b", "c"], "pass_score": 3}, "budgets": {"cost_usd": 0.05}, "partial": {"min": 0.5}},
    {"partial": "abstain", "judges": {"panel": ["a", "mock-b", "c", "d"]}},
)


@dataclass(frozen=True)
class Drawn:
    """A row set, how it is written and cut, and how it is evaluated."""

    rows: list[Row]
    suffix: str  # .jsonl or .parquet
    cuts: list[int]  # per mille: dask's line ranges (JSON Lines) and the duckdb directory's files
    row_group_size: int  # Parquet
    policy: dict[str, Any] | None
    in_memory: int | None  # evidence_rows_in_memory (None: the default)
    agent: str | None = None  # evaluate only this agent's rows


@st.composite
def drawn(draw: st.DrawFn, raw: bool) -> Drawn:
    suffix = draw(st.sampled_from([".jsonl", ".jsonl", ".parquet", ".parquet", FRAME]))
    if raw:
        rows = draw(raw_sets(json_only=suffix == ".jsonl"))
    else:
        rows = draw(prescored_sets(Kinds(json=suffix == ".jsonl", int_run=draw(st.booleans()))))
    if suffix != ".jsonl" and not raw and not draw(st.integers(0, 2)):  # a column of another Arrow type
        column, values = draw(st.sampled_from(TYPED_ODDITIES))
        rows = [{**row, column: draw(st.sampled_from(values))} if isinstance(row, dict) else row for row in rows]
    assume(suffix == ".jsonl" or parquet_table(rows) is not None)  # Parquet or a frame: a type per column
    policies = RAW_POLICIES if raw else PRESCORED_POLICIES
    agents = {row.get("agent") for row in rows if isinstance(row, dict)}
    agent = "agent-a" if len(agents) > 1 and draw(st.integers(0, 3)) else None  # else refused: two agents
    return Drawn(rows, suffix, draw(CUTS), draw(st.integers(1, 5)), draw(st.sampled_from(policies)),
                 draw(st.sampled_from([None, None, None, 1])), agent)


@contextlib.contextmanager
def _line_ranges(cuts: list[int]) -> Iterator[None]:
    """The dask engine cuts a JSON Lines file into byte ranges at the line ends from the per-mille
    byte positions ``cuts`` (ranges of whole lines: issue 27)."""
    def byte_targets(size: int, n_workers: int) -> list[int]:
        return sorted({b for _, b in bounds(size, cuts) if 0 < b < size})

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dask_engine, "byte_targets", byte_targets)
        yield


def _evaluate(name: Any, folder: Path, data: Drawn, engine: str, options: dict[str, Any],
              out: Path | None = None) -> tuple[Seen, bytes | None]:
    """``engine`` on the file or directory ``name`` in ``folder`` (its working directory, so that every
    engine's problems name the same source), or on rows in memory; the written scorecard.json when
    ``out`` is given."""
    given: dict[str, Any] = {} if data.in_memory is None else {"evidence_rows_in_memory": data.in_memory}
    if data.agent is not None:
        given["agent"] = data.agent
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        try:
            card = sk.evaluate(name, policy=data.policy, engine=engine, **options, **given)
        except sk.InputError as exc:
            return Seen("", None, str(exc)), None
        seen = observe(card, dataset=data.in_memory is not None)
        return seen, (written(card, out) if out is not None else None)


def _check_frame(base: Path, data: Drawn, cluster: str) -> None:
    """The dask engine on the rows as a dask DataFrame cut at ``data.cuts`` (empty partitions too)
    gives the pandas engine's scorecard and evidence of the pandas frame."""
    import dask
    import dask.dataframe as dd

    frame = pd.DataFrame(data.rows)
    write_out = data.in_memory is not None
    want, want_bytes = _evaluate(frame, base, data, "pandas", {}, base / "out-pandas" if write_out else None)
    event("refused in one line" if want.error else "scored")
    # dask would turn the lists and dicts of object columns into their str().
    with dask.config.set({"dataframe.convert-string": False}):
        parts = [dd.from_pandas(frame.iloc[a:b], npartitions=1) for a, b in bounds(len(frame), data.cuts)]
        rows = dd.concat(parts) if len(parts) > 1 else parts[0]
        got, got_bytes = _evaluate(rows, base, data, "dask", {"scheduler": cluster},
                                   base / "out-dask" if write_out else None)
    assert_same(got, want, "dask")
    assert got_bytes == want_bytes, "dask"


def _check(base: Path, data: Drawn, engines: list[tuple[str, dict[str, Any]]], directory: bool) -> None:
    """The engines on ``data`` written as one file, and the duckdb engine (with ``directory``) on the
    same rows as a directory of part files, each give the pandas engine's scorecard and evidence."""
    name = f"rows{data.suffix}"
    one = base / "one"
    one.mkdir()
    write_file(one / name, data.rows, data.row_group_size)
    write_out = data.in_memory is not None  # the written scorecard.json too (once per engine)
    want, want_bytes = _evaluate(name, one, data, "pandas", {}, base / "out-pandas" if write_out else None)
    event("refused in one line" if want.error else "scored")
    for engine, options in engines:
        with _line_ranges(data.cuts):
            got, got_bytes = _evaluate(name, one, data, engine, options,
                                       base / f"out-{engine}" if write_out else None)
        assert_same(got, want, engine)
        assert got_bytes == want_bytes, engine
    parts = bounds(len(data.rows), data.cuts)
    if directory and any(lone_array(data.rows[a:b]) for a, b in parts):
        # A member reads as that file alone (a JSON array of rows), not as lines of the one file:
        # test_a_directory_reads_as_its_members_read_alone_with_lines_numbered_on.
        event("no directory: a part is one JSON array line")
    elif directory:
        many = base / "many"
        many.mkdir()
        write_parts(many / name, data.rows, parts, data.suffix)
        got, _ = _evaluate(name, many, data, "duckdb", {})
        if want.error is not None:  # a directory's message may say "files" where the one file's says "file"
            assert got.error is not None, f"duckdb on a directory read what pandas refuses: {want.error}"
        else:
            assert_same(got, want, "duckdb on a directory")


# A fixed irregular set, evidence as a dataset: each path of the evidence store is compared at least once.
IRREGULAR: list[Row] = [
    {"id": "a", "case_id": "c1", "dimension": "d1", "trial": 0, "status": "PASS", "evaluator": "harness-x"},
    {"id": "a", "case_id": "c1", "dimension": "d1", "trial": 1, "status": "FAIL", "evaluator": "harness-x"},
    {"id": "b", "case_id": "c1", "dimension": "d1", "trial": 1, "status": "ERROR", "evaluator": "harness-x",
     "reason": "harness_timeout"},
    {"id": "c", "case_id": "ü-ß", "dimension": "d1", "status": "ABSTAIN", "evaluator": "grader-y", "reason": ""},
    {"id": "d", "case_id": "\u3000", "dimension": "d2", "trial": 0, "status": "MAYBE", "evaluator": "harness-x"},
    {"id": "e", "case_id": "c2", "dimension": "d2", "trial": 0, "status": "PASS", "evaluator": "harness-x",
     "run": "r1"},
    {"id": "f", "case_id": "c2", "dimension": "d2", "trial": 1, "status": "PASS", "evaluator": "mock-judge",
     "partial_run": True},
    {"id": "g", "case_id": "c2", "dimension": "d2", "trial": 2, "status": "PASS", "evaluator": " "},
    {"id": "h", "dimension": "d2", "trial": 3, "status": "FAIL"},
]


@pytest.mark.timeout(600)
@EXAMPLES
@given(data=drawn(raw=False))
@example(data=Drawn(IRREGULAR, ".parquet", [300, 700], 2, None, 1))
@example(data=Drawn([*IRREGULAR[:4], "{not json", "", *IRREGULAR[4:]], ".jsonl", [500], 1, None, 1))
# A Parquet file without a dimension column (found by hypothesis): duckdb refused the file where the
# other engines call the field missing in each row.
@example(data=Drawn([{"id": "r0", "case_id": "c0", "status": "pass", "evaluator": None,
                      "reason": "harness_timeout"}], ".parquet", [], 1, None, None))
def test_irregular_pre_scored_rows_give_one_scorecard_on_every_engine(cluster, tmp_path_factory, data):
    event(f"as {data.suffix}")
    if data.suffix == FRAME:  # rows in memory: the duckdb engine reads files only
        _check_frame(tmp_path_factory.mktemp("equiv"), data, cluster)
    else:
        _check(tmp_path_factory.mktemp("equiv"), data, [("dask", {"scheduler": cluster}), ("duckdb", {})],
               directory=True)


RAW: list[Row] = [
    {"id": "t1", "case_id": "c1", "trial": 0, "dimension": "task_completion", "agent_output": "done",
     "must_include": ["done"]},
    {"id": "t2", "case_id": "c1", "trial": 1, "dimension": "task_completion", "agent_output": "done",
     "must_include": ["done", "sure"]},  # another definition of c1
    {"id": "t3", "case_id": "c2", "dimension": "task_completion", "agent_output": "done"},  # unlabeled
    {"id": "j1", "case_id": "ü", "trial": 0, "dimension": "tone", "judge_criteria": "polite", "agent_output": "x",
     "judge_votes": [{"judge": "a", "verdict": "PASS"}, {"judge": "b", "score": 99}, {"judge": "c", "error": "t"}]},
    {"id": "s1", "case_id": "g", "trial": 0, "dimension": "graded", "score": float("nan"), "evaluator": "grader-y"},
    {"id": "s2", "case_id": "g", "trial": 1, "dimension": "graded", "score": None, "evaluator": "grader-y"},
    {"id": "p1", "case_id": "g", "trial": 2, "dimension": "graded", "status": "ERROR", "evaluator": "harness-x",
     "reason": "harness_timeout", "run": "r0"},
    {"id": "k1", "case_id": "k", "dimension": "pii", "agent_output": "fine", "tags": ["known-bad"]},
    {"id": "t1", "case_id": "c3", "trial": 0, "dimension": "cost", "cost_usd": 0.01, "partial_run": True},
]


@pytest.mark.timeout(600)
@EXAMPLES
@given(data=drawn(raw=True))
@example(data=Drawn(RAW, ".jsonl", [400], 1, None, 1))
def test_irregular_raw_rows_give_one_scorecard_on_pandas_and_dask(cluster, tmp_path_factory, data):
    event(f"as {data.suffix}")
    if data.suffix == FRAME:
        _check_frame(tmp_path_factory.mktemp("equiv"), data, cluster)
    else:
        _check(tmp_path_factory.mktemp("equiv"), data, [("dask", {"scheduler": cluster})], directory=False)


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_every_engine_reads_a_directory_of_pre_scored_files_as_duckdb_does(cluster, tmp_path, engine, suffix):
    name = f"rows{suffix}"
    write_parts(tmp_path / name, IRREGULAR, [(0, 4), (4, 4), (4, 9)], suffix)
    data = Drawn(IRREGULAR, suffix, [], 1, None, None)
    want, _ = _evaluate(name, tmp_path, data, "duckdb", {})
    assert want.error is None
    got, _ = _evaluate(name, tmp_path, data, engine, {"scheduler": cluster} if engine == "dask" else {})
    assert_same(got, want, engine)


def test_a_json_array_in_a_json_lines_file_reads_alike_on_dask(cluster, tmp_path):
    name = "rows.jsonl"
    (tmp_path / name).write_text('[{"id": "a", "dimension": "d", "status": "PASS", "evaluator": "h"}, 2]\n',
                                 encoding="utf-8")
    data = Drawn([], ".jsonl", [], 1, None, None)
    want, _ = _evaluate(name, tmp_path, data, "pandas", {})
    assert want.error is None
    assert_same(_evaluate(name, tmp_path, data, "duckdb", {})[0], want, "duckdb")
    assert_same(_evaluate(name, tmp_path, data, "dask", {"scheduler": cluster})[0], want, "dask")


def test_a_directory_reads_as_its_members_read_alone_with_lines_numbered_on(tmp_path):
    """A directory of results files reads as each member file read alone, in name order, its lines
    numbered on from the previous member (the rule of issue 27): a member holding one JSON array line
    is a JSON array of rows, as that file alone is, not the invalid JSON Lines row it would be as a
    line of the one file the members make."""
    name = "rows.jsonl"
    members: list[list[Row]] = [["[1, 2]"], [IRREGULAR[0], IRREGULAR[4]], [IRREGULAR[5], "{not json"]]
    rows = [row for member in members for row in member]
    parts = _member_bounds(members)
    write_parts(tmp_path / name, rows, parts, ".jsonl")
    data = Drawn(rows, ".jsonl", [], 1, None, None)
    got, _ = _evaluate(name, tmp_path, data, "duckdb", {})
    assert got.error is None and got.evidence is not None
    card = json.loads(got.text)
    alone = [_evaluate(f"{name}/part-{i:03d}.jsonl", tmp_path, data, "pandas", {})[0] for i in range(len(parts))]
    evidence, problems, counts = [], [], Counter[str]()
    for seen, (first, _) in zip(alone, parts, strict=True):
        assert seen.error is None and seen.evidence is not None
        rows_alone = seen.evidence
        no_case = rows_alone["case_id"] == "<line " + rows_alone["line"].astype(str) + ">"  # named by its line
        line = rows_alone["line"] + first
        evidence.append(rows_alone.assign(line=line, case_id=rows_alone["case_id"].mask(
            no_case, "<line " + line.astype(str) + ">")))
        for problem in json.loads(seen.text)["validation"]["problems"]:
            problems.append({**problem, "line": problem["line"] + first})
        counts.update({k: json.loads(seen.text)["validation"][k] for k in ("labeled", "unlabeled", "invalid")})
    want = pd.concat(evidence, ignore_index=True)
    pd.testing.assert_frame_equal(got.evidence, want, check_exact=True, obj="duckdb on a directory: evidence")
    assert {k: card["validation"][k] for k in counts} == dict(counts)
    assert [(p["line"], p["field"], p["message"], p["id"]) for p in card["validation"]["problems"]] == \
        [(p["line"], p["field"], p["message"], p["id"]) for p in problems]
    # The array's two rows on its line (not one invalid JSON Lines row), the status MAYBE's two problems on
    # line 3, "{not json" on line 5.
    assert [p["line"] for p in problems] == [1, 1, 3, 3, 5]
    assert {p["message"] for p in problems[:2]} == {"expected a JSON object, got an integer"}


def _member_bounds(members: list[list[Row]]) -> list[tuple[int, int]]:
    """[start, stop) of each member's rows (one line each) in the rows of all the members."""
    edges = [0]
    for member in members:
        edges.append(edges[-1] + len(member))
    return list(zip(edges, edges[1:], strict=False))


@pytest.mark.parametrize("column", NOT_TEXT)
def test_a_parquet_column_of_another_type_is_read_alike_on_every_engine(cluster, tmp_path, column):
    """A Parquet column that must be text, of another type: its rows are invalid on every engine, each
    problem the pandas engine's (the duckdb engine stopped with a DuckDB BinderException)."""
    values = dict(TYPED_ODDITIES)[column]
    rows: list[Row] = [{**IRREGULAR[0], column: values[0]}]
    name = "rows.parquet"
    write_file(tmp_path / name, rows, 1)
    data = Drawn(rows, ".parquet", [], 1, None, None)
    want, _ = _evaluate(name, tmp_path, data, "pandas", {})
    assert want.error is None
    assert_same(_evaluate(name, tmp_path, data, "dask", {"scheduler": cluster})[0], want, "dask")
    try:
        got, _ = _evaluate(name, tmp_path, data, "duckdb", {})
    except Exception as exc:  # noqa: BLE001 - whatever the engine raises is the difference shown
        raise AssertionError(f"duckdb: {type(exc).__name__}: {exc}") from exc
    assert_same(got, want, "duckdb")
