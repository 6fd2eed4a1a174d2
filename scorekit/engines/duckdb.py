"""The ``duckdb`` engine (SPEC §16): pre-scored rows read and screened inside DuckDB.

Rows that an external harness scored (``status`` + ``evaluator``) in Parquet
files (one file, or a directory of them read in file-name order) are read by
DuckDB, which screens every row in SQL: a row passes only when the pandas
engine's checks certainly accept it (non-empty ids, dimension, case and
evaluator with a visible character, a known status, a trial and run within
range, no evaluator that could be a mock). For those rows the outcome is
computed in SQL as :func:`scorekit.scorers.external.prescored` computes it.
Every row the screen does not pass is checked and scored by the pandas
engine's own code (:func:`scorekit._partial.score_items`), so a row DuckDB
did not check is never PASS on DuckDB's word: it fails closed exactly as it
would in the pandas engine. Columns other than the pre-scored ones (answer keys,
outputs, judge votes, tags) are refused in one line naming them: such rows need
a scorer (``--engine pandas`` or ``dask``).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._hashing import evidence_digest, results_digest, row_digest
from .._partial import Partial, combine, score_items
from .._validate import definition_key
from ..scorers import Context

__all__ = ["COLUMNS", "score"]

# The columns of a pre-scored row this engine reads (SPEC §2).
COLUMNS = ("id", "dimension", "case_id", "trial", "status", "evaluator", "reason", "run", "agent")
_STRINGS = ("id", "dimension", "case_id", "status", "evaluator", "reason", "agent")
_MAX_SAFE = 2**53 - 1
# A value with a visible ASCII character is certainly not empty or white space.
_VISIBLE = "regexp_matches({0}, '[!-~]')"
# An evaluator is certainly no mock when it is ASCII without "mock" in any case
# (non-ASCII text could lower-case to "mock": the pandas code decides).
_NO_MOCK = "(NOT contains(lower({0}), 'mock') AND regexp_full_match({0}, '[\\x01-\\x7f]*'))"
BATCH_ROWS = 1 << 17


def _files(rows: Any) -> list[str]:
    if not isinstance(rows, (str, os.PathLike)):
        raise InputError("the duckdb engine reads pre-scored rows from Parquet files (a file or a directory)")
    path = Path(rows)
    if path.is_dir():
        files = sorted(str(p) for p in path.rglob("*.parquet") if p.is_file())
        if not files:
            raise InputError(f"{rows}: no Parquet files in the directory")
        return files
    if not path.is_file():
        raise InputError(f"{rows}: no such file")
    if path.suffix.lower() != ".parquet":
        raise InputError(f"{rows}: the duckdb engine reads Parquet files; use --engine pandas for this file")
    return [str(path)]


def connect(memory_limit: str = "2GB") -> Any:
    """A DuckDB connection bounded in memory (spilling to a temporary directory)."""
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET enable_progress_bar = false")  # scorekit's own progress rules apply (SPEC §17)
    con.execute("SET preserve_insertion_order = true")
    return con


def _source(con: Any, files: list[str], name: str) -> dict[str, str]:
    """Create view ``rows`` (every column plus ``line``) and return the column types."""
    try:
        listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)  # a view takes no parameters
        con.execute(f"CREATE OR REPLACE TEMP VIEW raw AS SELECT * FROM read_parquet([{listed}], filename = true, "
                    "file_row_number = true, union_by_name = true)")
        types = {column: str(kind) for column, kind, *_ in con.execute("DESCRIBE raw").fetchall()}
    except Exception as exc:  # noqa: BLE001 - duckdb raises several types for unreadable files
        raise InputError(f"{name}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
    columns = [c for c in types if c not in ("filename", "file_row_number")]
    other = sorted(set(columns) - set(COLUMNS))
    if other:
        raise InputError(f"{name}: the duckdb engine reads pre-scored rows ({', '.join(COLUMNS)}); columns "
                         f"{', '.join(other)} need a scorer: use --engine pandas or --engine dask")
    for column in ("id", "dimension", "status"):
        if column not in types:
            raise InputError(f"{name}: the duckdb engine needs column {column!r} (pre-scored rows)")
    present = {c: types[c] for c in columns}
    selected = ", ".join(f'"{c}"' if c in present else f"NULL AS \"{c}\"" for c in COLUMNS)
    order = "filename, file_row_number" if len(files) > 1 else "file_row_number"
    con.execute(f"CREATE OR REPLACE TEMP VIEW rows AS SELECT row_number() OVER (ORDER BY {order}) AS line, "
                f"{selected} FROM raw")
    return present


def _screen(types: dict[str, str], ctx_args: dict[str, Any]) -> str:
    """SQL true for a row the pandas engine's checks certainly accept as a valid pre-scored row, and
    that the pandas engine gives nothing but its status (the policy's tool contracts join a tool_call row)."""
    clauses = ["status IN ('PASS', 'FAIL', 'ERROR', 'ABSTAIN')", "evaluator IS NOT NULL",
               _VISIBLE.format("id"), _VISIBLE.format("dimension"), _VISIBLE.format("evaluator"),
               _NO_MOCK.format("evaluator"), "(case_id IS NULL OR " + _VISIBLE.format("case_id") + ")",
               "(agent IS NULL OR " + _VISIBLE.format("agent") + ")"]
    if ctx_args.get("tool_contracts"):
        clauses.append("dimension <> 'tool_call'")
    for column in _STRINGS:
        if column in types and types[column] != "VARCHAR":
            return "false"  # not text: every row takes the full check
    if "trial" in types:
        if not any(types["trial"].startswith(t) for t in ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT",
                                                           "UINTEGER", "USMALLINT", "UTINYINT")):
            return "false"
        clauses.append(f"(trial IS NULL OR trial BETWEEN 0 AND {_MAX_SAFE})")
    if "run" in types:
        if types["run"] == "VARCHAR":
            clauses.append("(run IS NULL OR " + _VISIBLE.format("run") + ")")
        elif types["run"] in ("BIGINT", "INTEGER", "SMALLINT", "TINYINT"):
            clauses.append(f"(run IS NULL OR run BETWEEN 0 AND {_MAX_SAFE})")
        else:
            return "false"
    return " AND ".join(clauses)


def _batches(con: Any, query: str) -> Iterator[dict[str, list[Any]]]:
    relation = con.sql(query)
    # duckdb ≥ 2 streams a relation with to_arrow_reader; older releases call it record_batch.
    reader = relation.to_arrow_reader(BATCH_ROWS) if hasattr(relation, "to_arrow_reader") else \
        relation.record_batch(BATCH_ROWS)
    for batch in reader:
        yield batch.to_pydict()


def score(rows: Any, ctx_args: dict[str, Any], strict: bool, *, limit: int | None = None) -> Partial:
    """Screen and score the pre-scored rows of ``rows`` (Parquet) with DuckDB."""
    files = _files(rows)
    name = str(rows)
    con = connect()
    try:
        types = _source(con, files, name)
        screen = _screen(types, ctx_args)
        where = f" WHERE line <= {int(limit)}" if limit is not None else ""
        con.execute(f"CREATE OR REPLACE TEMP VIEW screened AS SELECT *, ({screen}) IS TRUE AS ok FROM rows{where}")
        if not con.execute("SELECT count(*) FROM screened").fetchall()[0][0]:
            raise InputError(f"{name}: empty file, no rows")
        fast = _screened_part(con, name, ctx_args, strict)
        slow = score_items(_unscreened_items(con), name, Context(**ctx_args), strict)
    finally:
        con.close()
    return combine([fast, slow])


def _unscreened_items(con: Any) -> Iterator[tuple[int, Any, Any, bool, None]]:
    """Rows the screen did not pass, as the pandas engine's Parquet reader gives them."""
    for batch in _batches(con, "SELECT * EXCLUDE (ok) FROM screened WHERE NOT ok ORDER BY line"):
        lines = batch.pop("line")
        names = list(batch)
        for i, line in enumerate(lines):
            row = {n: batch[n][i] for n in names if batch[n][i] is not None}
            yield int(line), row, None, True, None


def _screened_part(con: Any, source: str, ctx_args: dict[str, Any], strict: bool) -> Partial:
    """The compact columns of the rows the screen passed, their outcome from SQL."""
    out = Partial(source=source)
    cols = out.columns
    agent = ctx_args.get("agent")
    key = definition_key({}, ())  # pre-scored rows carry no inputs or answer keys

    query = (
        "SELECT line, id, dimension, coalesce(case_id, id) AS case_id, trial, status, evaluator, run, agent, "
        "CASE WHEN status = 'PASS' THEN NULL ELSE coalesce(nullif(reason, ''), 'prescored_' || lower(status)) END "
        "AS reason, CASE WHEN status = 'PASS' THEN NULL ELSE 'pre-scored ' || status || ' by ' || evaluator END "
        "AS detail FROM screened WHERE ok ORDER BY line"
    )
    suite_pairs: set[tuple[str, str]] = set()
    plain = ("line", "id", "dimension", "case_id", "trial", "status", "reason", "detail", "evaluator")
    for batch in _batches(con, query):
        named = batch.pop("agent")
        for value, count in Counter(named).items():
            out.agents[value] = out.agents.get(value, 0) + count
        if agent is not None:  # rows of another agent are counted, not evaluated
            keep = [i for i, value in enumerate(named) if value == agent]
            batch = {k: [v[i] for i in keep] for k, v in batch.items()}
        n = len(batch["line"])
        for column in plain:  # whole columns at once: no per-row appends
            cols[column].extend(batch[column])
        runs = batch["run"]
        cols["run"].extend(run if run is None or type(run) is str else str(run) for run in runs)
        cols["label"].extend(["labeled"] * n)
        cols["control"].extend([False] * n)
        for column in ("agent_output", "cost_usd", "latency_ms", "row_json"):
            cols[column].extend([None] * n)
        cols["definition"].extend([key] * n)
        evidence = out.evidence_digests
        results = out.result_digests
        for row_id, dimension, case, trial, status, reason, run in zip(
            batch["id"], batch["dimension"], batch["case_id"], batch["trial"], batch["status"], batch["reason"], runs,
            strict=True,
        ):
            evidence += evidence_digest(row_id, dimension, case, trial, status, reason, "labeled", False, True)
            results += results_digest(row_id, case, dimension, trial,
                                      {"status": status} if run is None else {"status": status, "run": run})
        suite_pairs.update(zip(batch["case_id"], batch["dimension"], strict=True))
    out.suite_digests.update(
        row_digest({"case_id": case, "dimension": dimension, "definition": {}}) for case, dimension in suite_pairs
    )
    return out
