"""Pre-scored Parquet rows counted, hashed and written where they are: inside DuckDB (SPEC §16).

Above ``evidence_rows_in_memory`` rows the duckdb engine does not hand
:func:`scorekit.evaluate` a partial of every row. It builds the
:class:`~scorekit._tally.Counted` evaluate decides from inside DuckDB, so no
screened row ever becomes a Python object:

* the rows the screen passed (``fast``) are scored in SQL as
  :func:`scorekit.scorers.external.prescored` scores them; the others were
  scored by the pandas engine's own code (``slow``, a small partial) and join
  them as a table;
* duplicate identities are found by SQL ``GROUP BY``; the few rows involved are
  judged by :func:`scorekit._validate.duplicate_identities` itself;
* the :class:`~scorekit._tally.Tally` (labels, controls, counts per
  (dimension, case), run totals, finding groups) comes from SQL aggregates,
  each sorted as the pandas code sorts, so every float is the same;
* the row digests (SPEC §10) of the screened rows are SHA-256 of the canonical
  text written in SQL by the SQL twin of each hash form
  (:func:`scorekit._hashing.evidence_sql` and its siblings), so no screened row is
  hashed in Python; the results and evidence digests of a row are computed in
  one pass, and each list hash sorts the digests as bytes, on disk past memory
  (:mod:`scorekit.engines._digests`), into one SHA-256;
* the evidence rows are streamed in line order, a range of lines at a time,
  into the ``evidence/`` dataset with the pandas engine's Arrow schema.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from .._counts import STATUSES, CaseCounts, RunTotals, histogram_case_counts, run_totals_from
from .._errors import Problem
from .._evidence import EvidenceStore
from .._findings import DETAIL_CASES, FindingGroups
from .._hashing import (
    digest_blobs,
    evidence_digest,
    evidence_sql,
    results_sql,
    sql_digest,
    sql_row_digest,
    sql_string,
    sql_text_or_int,
    suite_sql,
    text_digests,
)
from .._partial import Partial, add_counts, orphan_digests, undefined_pairs
from .._tally import LABELS, Counted, Tally, control_order
from .._validate import duplicate_identities
from ._digests import DigestSorter, from_hex

if TYPE_CHECKING:
    from ._sql import Files

__all__ = ["SCREENED_TABLE", "count_parquet", "count_screened", "scored_sql"]

BATCH_ROWS = 1 << 17


# --------------------------------------------------------------------------- the rows in SQL
class _Columns:
    """The pre-scored columns of the files and their (union) SQL types; SQL selecting the screened rows."""

    def __init__(self, present: dict[str, str], screen: str) -> None:
        from ._sql import COLUMNS, STRINGS

        self.present = set(present)
        self.screen = screen
        absent = {"trial": "BIGINT", "partial_run": "BOOLEAN"}
        self.types = {c: present.get(c, absent.get(c, "VARCHAR")) for c in COLUMNS}
        if self.types["partial_run"] != "BOOLEAN":  # the screen passes no row (the pandas code refuses them)
            self.present.discard("partial_run")
            self.types["partial_run"] = "BOOLEAN"
        for column in STRINGS:  # not text (an integer id...): the screen passes no row, the pandas code says why
            if self.types[column] != "VARCHAR":
                self.present.discard(column)
                self.types[column] = "VARCHAR"
        text_run = present.get("run") in (None, "VARCHAR")
        self.run_text = "run" if text_run else "NULL::VARCHAR"
        self.run_int = "NULL::BIGINT" if text_run else "CAST(run AS BIGINT)"

    def fast(self, source: str, line: str, where: str) -> str:
        """SQL of the rows of ``source`` (a ``read_parquet`` of the files) the screen passes, scored as
        pre-scored rows are: the evidence columns and the measured run (``run_text`` or ``run_int``)."""
        selected = ", ".join(f"CAST({c} AS {t}) AS {c}" if c in self.present else f"CAST(NULL AS {t}) AS {c}"
                             for c, t in self.types.items())
        rows = f"SELECT {line} AS line, {selected} FROM {source}"
        return scored_sql(rows, self.screen, run_text=self.run_text, run_int=self.run_int, where=where)


def scored_sql(rows: str, screen: str, *, run_text: str, run_int: str, where: str = "") -> str:
    """SQL: the rows of ``rows`` (a SELECT of the pre-scored columns and ``line``) that ``screen``
    passes, scored as :func:`scorekit.scorers.external.prescored` scores them: the evidence columns,
    the measured run as text (``run_text``) or as an integer (``run_int``) and ``partial_run`` (true or
    false)."""
    scored = (
        "SELECT line, id, dimension, coalesce(case_id, id) AS case_id, trial, status, "
        "CASE WHEN status = 'PASS' THEN NULL ELSE coalesce(nullif(reason, ''), 'prescored_' || lower(status)) "
        "END AS reason, CASE WHEN status = 'PASS' THEN NULL ELSE 'pre-scored ' || status || ' by ' || evaluator "
        f"END AS detail, evaluator, {run_text} AS run_text, {run_int} AS run_int, agent, "
        "coalesce(partial_run, false) AS partial_run "
        f"FROM ({rows}) WHERE ({screen}) IS TRUE"
    )
    return f"SELECT * FROM ({scored}){where}"


#: The table of screened rows (:func:`scored_sql`'s columns) a builder of :func:`count_screened` fills.
SCREENED_TABLE = (
    "(line BIGINT, id VARCHAR, dimension VARCHAR, case_id VARCHAR, trial BIGINT, status VARCHAR, reason VARCHAR, "
    "detail VARCHAR, evaluator VARCHAR, run_text VARCHAR, run_int BIGINT, agent VARCHAR, partial_run BOOLEAN)"
)


# The §10 row forms of a screened row, written by their SQL twins (scorekit/_hashing.py): what
# text_digests turns into 32-byte row digests (the canonical text, or its SHA-256 by DuckDB).
_EVIDENCE_DIGEST = sql_row_digest(evidence_sql(
    row_id="id", dimension="dimension", case_id="case_id", trial="trial", status="status", reason="reason",
    label="'labeled'", control="false", included="true"))
_RESULTS_DIGEST = sql_row_digest(results_sql(
    row_id="id", case_id="case_id", dimension="dimension", trial="trial",
    measured={"status": sql_string("status"), "run": sql_text_or_int("run_text", "run_int")}))
# The suite digests are made DISTINCT in DuckDB with the pandas-scored rows' ones: always 32 bytes.
_SUITE_DIGEST = f"unhex({sql_digest(suite_sql(case_id='case_id', dimension='dimension'))})"


def _batches(con: Any, query: str) -> Iterator[Any]:
    """``query``'s result as Arrow record batches of :data:`BATCH_ROWS` rows (DuckDB streams it)."""
    from ._sql import arrow_batches

    return arrow_batches(con, query, BATCH_ROWS)


# --------------------------------------------------------------------------- hashes
def _sorted_hashes(con: Any, query: str, names: list[str], extra: dict[str, list[str]], *,
                   texts: bool = True) -> dict[str, str]:
    """The list hash of each of the digest columns ``names`` that ``query`` selects (``sql_row_digest``
    values, :func:`text_digests`, or with ``texts`` false 32-byte digests; NULL for no digest), with the
    hex digests ``extra[name]``: one pass over the query's rows, each
    column sorted as bytes (on disk past memory) by its own :class:`DigestSorter` in the connection's
    work directory."""
    from ._sql import work_directory

    sorters = {name: DigestSorter(work_directory(con) / f"digests-{name}") for name in names}
    for name in names:
        if extra.get(name):
            sorters[name].add(from_hex("".join(extra[name]).encode("ascii")))
    for batch in _batches(con, query):
        for i, name in enumerate(names):
            sorters[name].add((text_digests if texts else digest_blobs)(batch.column(i)))
    return {name: sorter.list_hash() for name, sorter in sorters.items()}


# --------------------------------------------------------------------------- the slow rows
def _slow_table(slow: Partial) -> Any:
    """The rows the pandas code scored, as an Arrow table of the evidence columns (status and label as text)."""
    import pyarrow as pa

    from ..kernel import EVIDENCE_COLUMNS

    table = slow.table()
    names = {"status": STATUSES, "label": LABELS}
    columns = {}
    for name in EVIDENCE_COLUMNS:
        column = table.column(name)
        if name in names:
            column = pa.array(np.asarray(names[name], dtype=object)[column.to_numpy()], pa.string())
        elif pa.types.is_large_string(column.type):
            column = column.cast(pa.string())
        columns[name] = column
    return pa.table(columns)


# --------------------------------------------------------------------------- counting
def _base(fast: str) -> str:
    """SQL: the screened rows of view ``fast`` and the slow rows, as evidence columns."""
    return (
        "SELECT line, id, dimension, case_id, trial, status, reason, detail, 'labeled' AS label, false AS control, "
        "evaluator, NULL::VARCHAR AS agent_output, NULL::DOUBLE AS cost_usd, NULL::DOUBLE AS latency_ms, "
        f"coalesce(run_text, CAST(run_int AS VARCHAR)) AS run FROM {fast} UNION ALL "
        "SELECT line, id, dimension, case_id, trial, status, reason, detail, label, control, evaluator, agent_output, "
        "cost_usd, latency_ms, run FROM slow_rows"
    )


def _evidence_rows(base: str, strict: bool) -> str:
    """SQL: the evidence rows of ``base`` with the duplicates marked invalid, and ``included`` (SPEC §5)."""
    included = "b.dimension IS NOT NULL" + ("" if strict else " AND coalesce(m.label, b.label) = 'labeled'")
    return (
        "SELECT b.id, b.dimension, b.case_id, b.trial, coalesce(m.status, b.status) AS status, "
        "CASE WHEN m.line IS NULL THEN b.reason ELSE m.reason END AS reason, "
        "CASE WHEN m.line IS NULL THEN b.detail ELSE m.detail END AS detail, coalesce(m.label, b.label) AS label, "
        f"b.control, {included} AS included, b.line, b.evaluator, b.agent_output, b.cost_usd, b.latency_ms, b.run "
        f"FROM {base} b LEFT JOIN marked m ON b.line = m.line"
    )


def count_parquet(con: Any, files: Files, offsets: list[int], present: dict[str, str], screen: str,
                  slow: Callable[[int], Partial], *, source: str, agent: str | None, strict: bool,
                  limit: int | None, threshold: int) -> Counted:
    """The :class:`Counted` of pre-scored Parquet ``files`` (``offsets``: each file's first line less one):
    ``present`` are the columns and their (union) types, ``screen`` the SQL a row passes when the pandas
    checks certainly accept it, ``slow(screened)`` the rows that did not pass, scored by the pandas code
    (``screened``: how many rows passed; the screen is run once, over every row, as they are stored)."""
    from ._sql import line_sql

    columns = _Columns(present, screen)
    line = line_sql(files, offsets)
    everything = f"read_parquet({files.listed()}, filename = true, file_row_number = true, union_by_name = true)"
    where = f" WHERE line <= {int(limit)}" if limit is not None else ""

    def build(table: str) -> Partial:
        con.execute(f"CREATE TABLE {table} AS {columns.fast(everything, line, where)}")
        return slow(int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]))

    return count_screened(con, build, source=source, agent=agent, strict=strict, threshold=threshold)


def count_screened(con: Any, build: Callable[[str], Partial], *, source: str, agent: str | None, strict: bool,
                   threshold: int) -> Counted:
    """The :class:`Counted` of pre-scored rows: ``build(table)`` creates ``table`` (a table of
    :data:`SCREENED_TABLE`'s columns, :func:`scored_sql`) of the rows the screen passed and returns
    the partial of the rows it did not pass, scored by the pandas code."""
    from ..kernel import evidence_schema
    from ._sql import quoted, work_directory

    # Every query below that needs an order says ORDER BY; without keeping insertion order DuckDB's
    # aggregates over a billion rows stay within its memory limit (spilling to disk).
    con.execute("SET preserve_insertion_order = false")
    # The screened rows go into a table of a database on disk (DuckDB keeps in memory only what its
    # memory limit allows); every pass below reads that table, not the files.
    work = work_directory(con) / "rows.duckdb"
    con.execute(f"ATTACH {quoted(str(work))} AS work")
    try:
        slow = build("work.fast_all")
        # Rows per agent, and rows of a partial run (SPEC §2) per agent: the screened ones counted here in
        # one pass, the others by the pandas code.
        agents, partial_rows = {}, slow.partial_rows
        for value, n, partial in con.execute("SELECT agent, count(*), count(*) FILTER (partial_run) "
                                             "FROM work.fast_all GROUP BY agent").fetchall():
            agents[value] = int(n)
            if agent is None or value == agent:
                partial_rows += int(partial)
        add_counts(agents, slow.agents)
        keep = " WHERE agent = " + quoted(agent) if agent is not None else ""
        con.execute(f"CREATE OR REPLACE TEMP VIEW fast AS SELECT * FROM work.fast_all{keep}")
        con.register("slow_rows", _slow_table(slow))
        con.execute(f"CREATE OR REPLACE TEMP VIEW base AS {_base('fast')}")
        marked, problems, new_digests, unique_trials = _duplicates(con, source, strict)
        con.register("marked", marked)
        con.execute(f"CREATE OR REPLACE TEMP VIEW ev_in AS {_evidence_rows('base', strict)}")
        hashes = _hashes(con, slow, new_digests)
        summary = _summary(con)
        # No (case, dimension, trial) repeats among the valid rows, and no row is invalid: every agent row
        # is a (dimension, trial, case) group of its own (_run_totals groups nothing).
        summary["unique_trials"] = unique_trials and not summary["labels"]["invalid"]
        tally = _tally(con, summary)
        rows, last, evaluators = summary["rows"], summary["last"], summary["evaluators"]
        schema = evidence_schema()

        def fill(writer: Any) -> None:
            if int(rows) > threshold:  # an evidence/ dataset that stays on disk: DuckDB writes it
                _copy_rows(con, writer, schema, int(rows), int(last))
            else:  # read back into memory: written in line order by pyarrow, as the pandas engine's
                _write_rows(con, writer, schema, 0, int(last or 0))

        store = EvidenceStore.written(fill, schema=schema, rows=int(rows),
                                      evaluators=sorted(str(e) for e in evaluators or []),
                                      evidence_hash=hashes["evidence"], threshold=threshold)
        # Per case for a history record or a paired comparison: counted now below the threshold; above
        # it only when asked, from the evidence files (the statistics needed none of it).
        tally = dataclasses.replace(tally, per_case=per_case_counts(con) if store.in_memory
                                    else functools.partial(_stored_case_counts, store))
    finally:
        for view in ("ev_in", "base", "fast"):
            con.execute(f"DROP VIEW IF EXISTS {view}")
        con.execute("DETACH work")
        for path in (work, work.with_name(work.name + ".wal")):
            path.unlink(missing_ok=True)
    return Counted(source=source, tally=tally, hashes=hashes, store=store, problems=slow.problems + problems,
                   agents=agents, judges_seen=set(slow.judges_seen), mock_judges=set(slow.mock_judges),
                   partial_rows=partial_rows, agreement=slow.agreement)


def _duplicates(con: Any, source: str, strict: bool) -> tuple[Any, list[Problem], list[bytes], bool]:
    """Rows claiming one identity twice (:func:`duplicate_identities` over the candidates SQL finds):
    the table of marked rows (their new status, reason, label, detail), the problems, the marked
    rows' new evidence digests, and whether no (case, dimension, trial) of the valid rows repeats."""
    import pyarrow as pa

    candidates, unique_trials = _candidates(con)
    lines = [row[0] for row in candidates]
    positions, problems = duplicate_identities(
        [r[1] for r in candidates], [r[2] for r in candidates], [r[3] for r in candidates],
        [r[4] for r in candidates], [r[5] for r in candidates], lines, source)
    message = {p.line: f"{p.field}: {p.message}" for p in reversed(problems)}
    out: dict[str, list[Any]] = {"line": [], "status": [], "reason": [], "label": [], "detail": []}
    digests = []
    for pos in positions:
        line, rid, case, dimension, trial, valid, detail = candidates[pos]
        out["line"].append(line)
        out["status"].append("ERROR")
        out["reason"].append("invalid_row")
        out["label"].append("invalid")
        out["detail"].append(message.get(line) if valid else detail)
        digests.append(evidence_digest(rid, dimension, case, trial, "ERROR", "invalid_row", "invalid", False,
                                       strict and dimension is not None))
    table = pa.table({"line": pa.array(out["line"], pa.int64()), "status": pa.array(out["status"], pa.string()),
                      "reason": pa.array(out["reason"], pa.string()), "label": pa.array(out["label"], pa.string()),
                      "detail": pa.array(out["detail"], pa.string())})
    return table, problems, digests, unique_trials


def _repeated_hashes(key: str, rows: str) -> str:
    """SQL: the 64-bit hashes ``key`` (a ``hash(...)`` of an identity) that occur more than once
    among ``rows`` (``FROM`` and ``WHERE``). Grouping fixed-size hashes first keeps a ``GROUP BY``
    of a billion distinct identities within DuckDB's memory; only rows whose hash repeats are then
    grouped by the identity itself, exactly (a collision merely sends rows to that exact path)."""
    return f"SELECT h FROM (SELECT {key} AS h FROM {rows} GROUP BY h HAVING count(*) > 1)"


def _candidates(con: Any) -> tuple[list[tuple[Any, ...]], bool]:
    """Every row whose id, or (case, dimension, trial) among valid rows, is claimed twice, in line order,
    and whether no (case, dimension, trial) of the valid rows repeats.

    One streaming pass groups the 64-bit hashes of both identities at once (``GROUPING SETS``; grouping
    fixed-size hashes, not 1B distinct id strings, keeps DuckDB within 2 GB): in the usual case no hash
    repeats and that pass is all. Otherwise the identities of the repeated hashes are grouped exactly
    (:func:`_repeated_hashes`: a collision merely sends rows to that exact path), and only then are
    their rows fetched, so no pass holds the rows themselves."""
    valid = "label <> 'invalid' AND trial IS NOT NULL AND dimension IS NOT NULL"
    key = "hash(case_id, dimension, trial)"
    con.execute(
        "CREATE OR REPLACE TEMP TABLE repeated AS SELECT hi, ht FROM (SELECT CASE WHEN id IS NOT NULL THEN "
        f"hash(id) END AS hi, CASE WHEN {valid} THEN {key} END AS ht FROM base) GROUP BY GROUPING SETS ((hi), (ht)) "
        "HAVING count(*) > 1 AND ((GROUPING(ht) = 1 AND hi IS NOT NULL) OR (GROUPING(hi) = 1 AND ht IS NOT NULL))")
    try:
        if not con.execute("SELECT count(*) FROM repeated").fetchall()[0][0]:
            return [], True
        ids = _arrow_table(con, "SELECT id FROM base WHERE id IS NOT NULL AND hash(id) IN (SELECT hi FROM repeated) "
                                "GROUP BY id HAVING count(*) > 1")
        trials = _arrow_table(con, f"SELECT case_id, dimension, trial FROM base WHERE {valid} AND {key} IN "
                                   "(SELECT ht FROM repeated) GROUP BY case_id, dimension, trial HAVING count(*) > 1")
    finally:
        con.execute("DROP TABLE IF EXISTS repeated")
    if not ids.num_rows and not trials.num_rows:
        return [], True
    con.register("twice_ids", ids)
    con.register("twice_trials", trials)
    rows: list[tuple[Any, ...]] = con.execute(
        "SELECT line, id, case_id, dimension, trial, label <> 'invalid' AS valid, detail FROM base "
        "WHERE id IN (SELECT id FROM twice_ids) OR (label <> 'invalid' AND (case_id, dimension, trial) "
        "IN (SELECT (case_id, dimension, trial) FROM twice_trials)) ORDER BY line"
    ).fetchall()
    return rows, not trials.num_rows


def _hashes(con: Any, slow: Partial, new_digests: list[bytes]) -> dict[str, str]:
    """suite, results and evidence (SPEC §10) of every row: the screened rows' digests computed by DuckDB
    (the SQL twins of the hash forms), the pandas-scored rows' and the marked rows' new evidence digests
    given by Python; results and evidence in one pass over the screened rows."""
    import pyarrow as pa

    marked = set(con.execute("SELECT line FROM marked").fetchall())
    extra: dict[str, list[str]] = {"results": [], "evidence": [d.hex() for d in new_digests]}
    packed = slow.evidence_digests.hex()
    for i, line in enumerate(slow.table().column("line").to_pylist()):
        if (line,) not in marked:
            extra["evidence"].append(packed[64 * i: 64 * i + 64])
    results = slow.result_digests.hex()
    extra["results"].extend(results[i: i + 64] for i in range(0, len(results), 64))
    suite = list(slow.suite_digests)
    # Cases the pandas code saw only rows without a definition of (SPEC §2): the screened rows have none
    # either, so such a case's digest is the one any screened row of it gives.
    table = slow.table()
    keyed = table.column("definition").is_valid().to_numpy(zero_copy_only=False)
    suite.extend(orphan_digests(undefined_pairs(slow.orphans, table.column("case_id"),
                                                table.column("dimension"), keyed)))
    con.register("suite_digests", pa.table({"d": pa.array(suite, pa.string())}))
    evidence = (f"CASE WHEN line NOT IN (SELECT line FROM marked) THEN {_EVIDENCE_DIGEST} END" if marked
                else _EVIDENCE_DIGEST)
    hashes = _sorted_hashes(con, f"SELECT {_RESULTS_DIGEST} AS r, {evidence} AS e FROM fast",
                            ["results", "evidence"], extra)
    hashes.update(_sorted_hashes(con, f"SELECT DISTINCT d FROM (SELECT {_SUITE_DIGEST} AS d FROM "
                                      "(SELECT DISTINCT case_id, dimension FROM fast) "
                                      "UNION ALL SELECT unhex(d) FROM suite_digests)", ["suite"], {}, texts=False))
    return hashes


# --------------------------------------------------------------------------- the tally
_AGENT = "included AND NOT control"


def _summary(con: Any) -> dict[str, Any]:
    """What one pass over the evidence rows ``ev_in`` says: rows per label, the number of rows, the last
    line, the evaluators, how many are controls, and of the agent rows whether any has a run, which
    dimensions have a row without a trial, and whether a run or a trial is missing anywhere."""
    labels = ", ".join(f"count(*) FILTER (label = '{label}')" for label in LABELS)
    row = con.execute(
        f"SELECT {labels}, count(*), max(line), list(DISTINCT evaluator) FILTER (evaluator IS NOT NULL), "
        f"count(*) FILTER (control), coalesce(bool_or(run IS NOT NULL) FILTER ({_AGENT}), false), "
        f"list(DISTINCT dimension) FILTER ({_AGENT} AND trial IS NULL), "
        f"coalesce(bool_or(run IS NULL) FILTER ({_AGENT}), false), "
        f"coalesce(bool_or(trial IS NULL) FILTER ({_AGENT}), false) FROM ev_in").fetchall()[0]
    counts, (rows, last, evaluators, controls, use_run, untried, run_missing, trial_missing) = \
        row[:len(LABELS)], row[len(LABELS):]
    return {"labels": {label: int(n) for label, n in zip(LABELS, counts, strict=True)}, "rows": int(rows),
            "last": last, "evaluators": evaluators, "controls": int(controls), "use_run": bool(use_run),
            "untried": [d for d in untried or [] if d is not None], "run_missing": bool(run_missing),
            "trial_missing": bool(trial_missing)}


def _tally(con: Any, summary: dict[str, Any]) -> Tally:
    labels = summary["labels"]
    unlabeled = [] if not labels["unlabeled"] else [
        (int(line), rid, dim, reason, detail) for line, rid, dim, reason, detail in con.execute(
            "SELECT line, id, dimension, reason, detail FROM ev_in WHERE label = 'unlabeled' ORDER BY line"
        ).fetchall()]
    controls = [] if not summary["controls"] else sorted(
        ({"id": rid, "dimension": dim, "case_id": case, "passed": status == "FAIL", "status": str(status),
          "reason": reason}
         for rid, dim, case, status, reason in con.execute(
            "SELECT id, dimension, case_id, status, reason FROM ev_in WHERE control").fetchall()),
        key=control_order,
    )
    con.execute(f"CREATE OR REPLACE TEMP VIEW agent_rows AS SELECT * FROM ev_in WHERE {_AGENT}")
    cases = _case_counts(con)
    return Tally(labels=labels, unlabeled=unlabeled, controls=controls,
                 dimensions=[str(d) for d in cases.groups.index], cases=cases,
                 runs=_run_totals(con, cases, summary), findings=_finding_groups(con))


def _case_counts(con: Any) -> CaseCounts:
    """Status counts per (dimension, case) of the agent rows as the statistics read them: per dimension,
    each distinct count vector and how many cases have it, and the flaky cases' ids, each sorted as
    :func:`count_cases` sorts. Nothing per case leaves DuckDB but the flaky ids (a hundred million
    cases fetched as Arrow took 2 GB at 100M rows)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE case_counts AS {_PER_CASE}")
    try:
        frame = _arrow_table(con, "SELECT dimension, p, f, e, a, count(*) FROM case_counts GROUP BY ALL "
                                  "ORDER BY dimension, p, f, e, a")
        # Streamed as Arrow batches, one pass: 10M flaky ids (a billion rows) as Python tuples took GBs.
        flaky: dict[str, list[Any]] = {}
        for batch in _batches(con, "SELECT dimension, case_id FROM case_counts WHERE p > 0 AND f > 0 "  # flaky_mask
                                   "ORDER BY dimension, case_id"):
            dims, ids = batch.column(0), batch.column(1).to_pylist()
            for dimension, start, length in _runs(dims):
                flaky.setdefault(dimension, []).extend(ids[start:start + length])
    finally:
        con.execute("DROP TABLE IF EXISTS case_counts")
    counts = np.column_stack([frame.column(i).to_numpy() for i in range(1, 5)]) if frame.num_rows \
        else np.zeros((0, 4), dtype=np.int64)
    weights = frame.column(5).to_numpy() if frame.num_rows else np.zeros(0, dtype=np.int64)
    return histogram_case_counts(frame.column(0), counts, weights, flaky)


def _runs(values: Any) -> Iterator[tuple[Any, int, int]]:
    """(value, start, length) of each run of equal values of a sorted Arrow array."""
    array = values.to_numpy(zero_copy_only=False)
    if not len(array):
        return
    starts = [0, *(np.flatnonzero(array[1:] != array[:-1]) + 1).tolist()]
    for start, end in zip(starts, [*starts[1:], len(array)], strict=True):
        yield array[start], start, end - start


#: Per (dimension, case) of the agent rows: PASS, FAIL, ERROR and ABSTAIN rows (p, f, e, a).
_PER_CASE = ("SELECT dimension, case_id, " + ", ".join(
    f"count(*) FILTER (status = '{s}') AS {s[0].lower()}" for s in STATUSES)
    + " FROM agent_rows GROUP BY dimension, case_id")


def _stored_case_counts(store: EvidenceStore) -> Any:
    """:func:`per_case_counts` of the evidence rows ``store`` wrote to disk."""
    from ._sql import connect, literal_files

    con = connect()
    try:
        files = literal_files(con, sorted(store.dataset().files)).listed()
        con.execute(f"CREATE TEMP VIEW agent_rows AS SELECT * FROM read_parquet({files}) WHERE {_AGENT}")
        return per_case_counts(con)
    finally:
        con.close()


def per_case_counts(con: Any) -> Any:
    """``Scorecard.case_counts`` of the agent rows of the view ``agent_rows``: a DataFrame of
    ``dimension``, ``case_id``, ``passes``, ``n`` sorted by (dimension, case)."""
    from .._counts import flat_case_counts

    frame = _arrow_table(con, f"SELECT dimension, case_id, p, f, e, a FROM ({_PER_CASE}) ORDER BY dimension, case_id")
    counts = np.column_stack([frame.column(i).to_numpy() for i in range(2, 6)]) if frame.num_rows \
        else np.zeros((0, 4), dtype=np.int64)
    return flat_case_counts(frame.column(0), frame.column(1), counts)


def _run_totals(con: Any, cases: CaseCounts, summary: dict[str, Any]) -> RunTotals:
    """:class:`RunTotals` of the agent rows (the rules of :func:`scorekit._counts.run_totals`), in SQL;
    ``summary`` (:func:`_summary`) says whether runs are counted and which dimensions lack a trial."""
    groups = cases.groups.index
    ngroups = len(groups)
    if not ngroups:
        return RunTotals.without_runs(groups)
    use_run = summary["use_run"]
    column = "run" if use_run else "trial"
    code = {name: i for i, name in enumerate(groups)}
    unbalanced = np.zeros(ngroups, dtype=bool)
    if not use_run:
        for dim in summary["untried"]:
            unbalanced[code[dim]] = True
    # Per (dimension, run): cases present, cases measured, PASS rows, PASS + FAIL rows. A case's rows at
    # a run are one (dimension, run, case) group; grouping every row so (one group per row when each row
    # is its own trial) ran out of DuckDB's memory at 1B rows. So the keys are grouped by their 64-bit
    # hash first (_repeated_hashes): a row whose hash is unique is a group of its own, and only the rows
    # whose hash repeats are grouped by the key itself. The two parts add up.
    measured = "status IN ('PASS', 'FAIL')"
    rows = f"agent_rows WHERE {column} IS NOT NULL"
    key = f"hash(dimension, {column}, case_id)"
    unique = not use_run and summary["unique_trials"]
    repeated = "SELECT NULL::UBIGINT AS h LIMIT 0" if unique else _repeated_hashes(key, rows)
    con.execute(f"CREATE OR REPLACE TEMP TABLE repeated_keys AS {repeated}")
    try:
        per_run = con.execute(
            "SELECT g, r, sum(m)::BIGINT, sum(p)::BIGINT, sum(n)::BIGINT, sum(c)::BIGINT FROM ("
            f"SELECT dimension AS g, {column} AS r, count(*) FILTER ({measured}) AS m, count(*) FILTER "
            f"(status = 'PASS') AS p, count(*) FILTER ({measured}) AS n, count(*) AS c FROM {rows} "
            f"AND {key} NOT IN (SELECT h FROM repeated_keys) GROUP BY ALL "
            "UNION ALL SELECT g, r, count(*) FILTER (m), sum(p), sum(n), count(*) FROM ("
            f"SELECT dimension AS g, {column} AS r, bool_or({measured}) AS m, count(*) FILTER (status = 'PASS') "
            f"AS p, count(*) FILTER ({measured}) AS n FROM {rows} AND {key} IN (SELECT h FROM repeated_keys) "
            f"GROUP BY dimension, {column}, case_id) GROUP BY g, r"
            ") GROUP BY g, r ORDER BY g, r").fetchall()
    finally:
        con.execute("DROP TABLE IF EXISTS repeated_keys")
    # Per dimension: cases with a run at all, and cases measured in some run (a NULL case_id is one case,
    # as it is one group above). When no agent row lacks the run (or trial), these are the cases counted
    # per (dimension, case) already: no pass over the rows.
    universe = np.zeros(ngroups, dtype=np.int64)
    n_cases = np.zeros(ngroups, dtype=np.int64)
    if per_run and not summary["run_missing" if use_run else "trial_missing"]:
        measured_cases = cases.n > 0
        n_cases = np.bincount(cases.case_group, weights=cases.weights, minlength=ngroups).astype(np.int64)
        universe = np.bincount(cases.case_group, weights=measured_cases * cases.weights,
                               minlength=ngroups).astype(np.int64)
    elif per_run:
        for dim, present, in_some_run in con.execute(
                "SELECT dimension, count(DISTINCT case_id) + coalesce(bool_or(case_id IS NULL)::INT, 0), "
                f"count(DISTINCT case_id) FILTER ({measured}) + coalesce(bool_or(case_id IS NULL AND {measured})"
                f"::INT, 0) FROM agent_rows WHERE {column} IS NOT NULL GROUP BY dimension").fetchall():
            universe[code[dim]], n_cases[code[dim]] = in_some_run, present
    return run_totals_from(groups, per_run, column=column, use_run=use_run, unbalanced=unbalanced,
                           universe=universe, n_cases=n_cases)


def _finding_groups(con: Any) -> FindingGroups:
    """:func:`scorekit._findings.finding_groups` of the rows, in SQL: one pass counts the non-PASS rows per
    (dimension, reason, case) into a table of the work database; the groups and their sorted case ids
    are read from it, and a second pass takes the details of each group's first cases."""
    import pyarrow as pa

    con.execute(
        "CREATE OR REPLACE TEMP VIEW non_pass AS SELECT coalesce(dimension, '(unknown)') AS d, "
        "coalesce(reason, 'unspecified') AS r, status AS s, coalesce(case_id, '(unknown)') AS c, detail "
        "FROM ev_in WHERE status <> 'PASS' AND NOT control"
    )
    con.execute("CREATE OR REPLACE TABLE work.cases AS SELECT d, r, c, count(*) AS n, bool_or(s = 'FAIL') AS f, "
                "bool_or(s = 'ERROR') AS e, bool_or(s = 'ABSTAIN') AS a FROM non_pass GROUP BY d, r, c")
    groups: FindingGroups = {}
    for d, r, rows, fail, error, abstain in con.execute(
            "SELECT d, r, sum(n), bool_or(f), bool_or(e), bool_or(a) FROM work.cases GROUP BY d, r ORDER BY d, r"
            ).fetchall():
        status = "FAIL" if fail else "ERROR" if error else "ABSTAIN" if abstain else "PASS"
        groups[(d, r)] = {"status": status, "case_ids": [], "rows": int(rows), "details": []}
    for batch in _batches(con, "SELECT d, r, c FROM work.cases ORDER BY d, r, c"):
        for d, r, c in zip(*(batch.column(i).to_pylist() for i in range(3)), strict=True):
            groups[(d, r)]["case_ids"].append(c)
    con.execute("DROP TABLE work.cases")
    first = [(d, r, c) for (d, r), group in groups.items() for c in group["case_ids"][:DETAIL_CASES]]
    con.register("detail_cases", pa.table({name: pa.array([key[i] for key in first], pa.string())
                                           for i, name in enumerate("drc")}))
    for d, r, c, detail in con.execute(
            "SELECT DISTINCT d, r, c, detail FROM non_pass SEMI JOIN detail_cases USING (d, r, c) "
            "WHERE detail IS NOT NULL AND detail <> '' ORDER BY d, r, c, detail").fetchall():
        groups[(d, r)]["details"].append({"case_id": c, "detail": detail})
    con.unregister("detail_cases")
    return groups


# --------------------------------------------------------------------------- the evidence
def _arrow(batch: Any, schema: Any) -> Any:
    """A record batch of ``ev_in`` in the evidence schema (status and label as the fixed categories)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    for field in schema:
        column = batch.column(field.name)
        if pa.types.is_dictionary(field.type):
            categories = STATUSES if field.name == "status" else LABELS
            dictionary = pa.array(categories, field.type.value_type)
            indices = pc.index_in(column, value_set=pa.array(categories, column.type))
            column = pa.DictionaryArray.from_arrays(indices.cast(pa.int8()), dictionary)
        else:
            column = column.cast(field.type)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


#: Lines sorted at once while the evidence is written (DuckDB spills a sort larger than memory).
WRITE_LINES = 4_000_000


def _write_rows(con: Any, writer: Any, schema: Any, low: int, high: int) -> None:
    """Stream the rows of ``ev_in`` with ``low < line <= high`` in line order, a range of
    :data:`WRITE_LINES` lines at a time, in the evidence ``schema``, to the dataset's ``writer``."""
    for start in range(low, high, WRITE_LINES):
        query = f"SELECT * FROM ev_in WHERE line > {start} AND line <= {min(high, start + WRITE_LINES)} ORDER BY line"
        for batch in _batches(con, query):
            writer.write(_arrow(batch, schema))


#: Lines per bucket of the histogram that finds the first line of each part (:func:`_part_starts`).
_BUCKET_LINES = 1 << 16


def _part_starts(con: Any, rows: int, last: int, part_rows: int) -> list[int]:
    """The last line before each part of ``part_rows`` rows of ``ev_in`` (in line order), and the last line:
    ``ends[i] < line <= ends[i + 1]`` are the rows of part ``i``. When the ``rows`` rows are lines 1 to
    ``last`` (as many as the last line), that is all; otherwise one pass counts the rows per bucket of
    lines, and each cut is then found within its bucket."""
    if rows == last:
        return [0, *range(part_rows, rows, part_rows), rows]
    buckets = con.execute(f"SELECT line // {_BUCKET_LINES} AS b, count(*) FROM ev_in GROUP BY b ORDER BY b").fetchall()
    ends, seen = [0], 0
    cuts = iter(range(part_rows, rows, part_rows))
    cut = next(cuts, None)
    for bucket, n in buckets:
        while cut is not None and seen + n >= cut:  # the cut-th row is in this bucket
            low = bucket * _BUCKET_LINES
            ends.append(int(con.execute(f"SELECT line FROM ev_in WHERE line >= {low} AND line < "
                                        f"{low + _BUCKET_LINES} ORDER BY line LIMIT 1 OFFSET {cut - seen - 1}"
                                        ).fetchall()[0][0]))
            cut = next(cuts, None)
        seen += n
    ends.append(int(buckets[-1][0] + 1) * _BUCKET_LINES if buckets else 0)
    return ends


def _copy_rows(con: Any, writer: Any, schema: Any, rows: int, last: int) -> None:
    """Write the rows of ``ev_in`` as the parts of the dataset ``writer`` makes: the first part through
    ``writer`` (so its file carries the dataset's metadata), every other one by DuckDB's own Parquet
    writer (``COPY``), in line order, with that metadata (its ``part`` set) and the evidence ``schema``
    stored as pyarrow stores it, so pyarrow and pandas read the parts as the first."""
    import base64
    import json

    import pyarrow.parquet as pq

    from ..reports.parquet import METADATA_KEY, PART_ROWS, part_name
    from ._sql import quoted

    ends = _part_starts(con, rows, last, PART_ROWS)
    _write_rows(con, writer, schema, ends[0], ends[1])
    if len(ends) <= 2:  # one part: the writer's own
        return
    metadata = dict(pq.read_schema(writer.directory / part_name(0)).metadata)
    scorekit = json.loads(metadata[METADATA_KEY])
    for part in range(1, len(ends) - 1):
        metadata[METADATA_KEY] = json.dumps({**scorekit, "part": part}, ensure_ascii=False,
                                            sort_keys=True).encode("utf-8")
        stored = base64.b64encode(schema.with_metadata(metadata).serialize().to_pybytes())
        pairs = {**metadata, b"ARROW:schema": stored}
        kv = ", ".join(f"{quoted(k.decode())}: {quoted(v.decode())}" for k, v in pairs.items())
        con.execute(f"COPY (SELECT * FROM ev_in WHERE line > {ends[part]} AND line <= {ends[part + 1]} ORDER BY line) "
                    f"TO {quoted(str(writer.directory / part_name(part)))} (FORMAT parquet, KV_METADATA {{{kv}}})")


def _arrow_table(con: Any, query: str) -> Any:
    """``query``'s whole result as an Arrow table."""
    result = con.sql(query).arrow()
    return result.read_all() if hasattr(result, "read_all") else result
