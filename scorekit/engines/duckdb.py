"""The ``duckdb`` engine (SPEC §16): pre-scored rows read and screened inside DuckDB.

Rows that an external harness scored (``status`` + ``evaluator``) in Parquet,
CSV or JSON Lines files (one file, or a directory of files of one kind read in
file-name order) are read by DuckDB, which screens every row in SQL: a row
passes only when the pandas engine's reader and checks certainly accept it
(non-empty ids, dimension, case and evaluator with a visible character, a known
status, a trial and run within range, no evaluator that could be a mock; for
CSV and JSON Lines also text the pandas reader certainly reads to those values).
For those rows the outcome is computed in SQL as
:func:`scorekit.scorers.external.prescored` computes it. Every row the screen
does not pass is read by the pandas engine's own reader for its line and
checked and scored by the pandas engine's own code
(:func:`scorekit._partial.score_items`), so a row DuckDB did not check is never
PASS on DuckDB's word: it fails closed exactly as it would in the pandas
engine. A CSV or JSON Lines file whose overall form is not plain (a byte-order
mark, not UTF-8, a ``\\r``, a CSV with quotes or blank lines, a JSON array, an
empty file...) is read whole by the pandas engine's reader
(:func:`scorekit._rows.open_source`), with its messages. Columns or fields other
than the pre-scored ones (answer keys, outputs, judge votes, tags) are refused
in one line naming them: such rows need a scorer (``--engine pandas`` or
``dask``).

A directory reads as each member file read alone, in file-name order, its
lines numbered on from the previous member (CSV: one header, the header lines
of the later files not counted), as the rows of a directory of Parquet files
are: a member that is one JSON array line is a JSON array of rows, as that file
alone is.

The screened rows of every kind of file are then scored into one table and
counted, hashed and written out inside DuckDB (:mod:`._counted`), so the files
may be larger than memory. Only screened rows whose strings need JSON escaping
are hashed in Python, and the rows the screen does not pass are scored by the
pandas code.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._io import ROW_NESTING, nesting_exceeds
from .._partial import Partial, combine, score_items
from .._rows import open_source
from .._rows._formats import csv_records, jsonl_records
from .._rows._members import KINDS, is_blank, line_count, lines_and_end, members
from .._tally import Counted
from ..scorers import Context
from ..scorers.pii import prefilter
from ._sql import COLUMNS, STRINGS, Files, arrow_batches, connect, line_sql, literal_files, quoted

__all__ = ["COLUMNS", "KINDS", "Files", "arrow_batches", "connect", "file_offsets", "line_sql", "literal_files",
           "score"]

_MAX_SAFE = 2**53 - 1
# A value with a visible ASCII character is certainly not empty or white space (the first character
# is asked first: a regular expression per value took half the screen's time).
_VISIBLE = "CASE WHEN ascii({0}) BETWEEN 33 AND 126 THEN true ELSE regexp_matches({0}, '[!-~]') END"
# An evaluator is certainly no mock when it is ASCII (one byte a character) without NUL nor "mock" in
# any case (non-ASCII text could lower-case to "mock": the pandas code decides).
_NO_MOCK = "(strlen({0}) = length({0}) AND NOT contains({0}, chr(0)) AND {0} NOT ILIKE '%mock%')"


def _files(rows: Any) -> tuple[str, list[str]]:
    """(kind, files in name order) of ``rows``: a file, or a directory of files of one kind."""
    if not isinstance(rows, (str, os.PathLike)):
        raise InputError("the duckdb engine reads pre-scored rows from Parquet, CSV or JSON Lines files "
                         "(a file or a directory)")
    path = Path(rows)
    if path.is_dir():
        return members(path)  # the one walk every engine reads a directory by
    if not path.is_file():
        raise InputError(f"{rows}: no such file")
    kind = KINDS.get(path.suffix.lower())
    if kind is None:
        raise InputError(f"{rows}: the duckdb engine reads Parquet, CSV or JSON Lines files "
                         f"({', '.join(KINDS)}); use --engine pandas for this file")
    return kind, [os.fspath(rows)]  # as given: messages name the file as the pandas engine does


def _other_columns(name: str, other: Iterable[str]) -> InputError:
    shown = ", ".join(repr(c) if not c.isidentifier() else c for c in sorted(other))
    return InputError(f"{name}: the duckdb engine reads pre-scored rows ({', '.join(COLUMNS)}); columns "
                      f"{shown} need a scorer: use --engine pandas or --engine dask")


# --------------------------------------------------------------------------- Parquet
def file_offsets(con: Any, files: Files) -> list[int]:
    """Each Parquet file's first line less one: the rows of the files before it, from the footers."""
    offsets, total = [], 0
    for path in files.read:
        offsets.append(total)
        total += int(con.execute("SELECT coalesce(sum(row_group_num_rows), 0) FROM (SELECT DISTINCT row_group_id, "
                                 "row_group_num_rows FROM parquet_metadata(?))", [path]).fetchall()[0][0])
    return offsets


#: Columns a pre-scored row must hold, read as text when a file lacks them (then NULL in every row).
_TEXT_KEYS = ("id", "dimension", "status")

def _parquet_rows(con: Any, files: Files, offsets: list[int], limit: int | None) -> int:
    """The number of rows of the Parquet files (their footers; at most ``limit``)."""
    last = int(con.execute("SELECT coalesce(sum(row_group_num_rows), 0) FROM (SELECT DISTINCT row_group_id, "
                           "row_group_num_rows FROM parquet_metadata(?))", [files.read[-1]]).fetchall()[0][0])
    total = offsets[-1] + last
    return total if limit is None else min(total, int(limit))


def _parquet_source(con: Any, files: Files, name: str, ctx_args: dict[str, Any],
                    limit: int | None) -> tuple[dict[str, str], list[int], str]:
    """Create views ``screened`` (every pre-scored column, ``line`` and ``ok``) and ``fields`` (what
    the screened rows are scored from); return the columns' types, the files' line offsets and the screen."""
    try:
        con.execute(f"CREATE OR REPLACE TEMP VIEW raw AS SELECT * FROM read_parquet({files.listed()}, filename = true, "
                    "file_row_number = true, union_by_name = true)")
        types = {column: str(kind) for column, kind, *_ in con.execute("DESCRIBE raw").fetchall()}
    except Exception as exc:  # noqa: BLE001 - duckdb raises several types for unreadable files
        raise InputError(f"{name}: not a readable Parquet file ({str(exc).splitlines()[0]})") from None
    columns = [c for c in types if c not in ("filename", "file_row_number")]
    other = set(columns) - set(COLUMNS)
    if other:
        raise _other_columns(name, other)
    present = {c: types[c] for c in columns}
    # In the file's column order: an unscreened row is a dict in the order the pandas reader gives,
    # so its problems are listed in the same order. A column the file lacks is NULL in every row (the
    # text ones typed, so the screens apply): a row without its id, dimension or status is not screened
    # through and goes to the pandas checks, which call the field missing, as the other engines do.
    selected = ", ".join([*(f'"{c}"' for c in present),
                          *(f"NULL{'::VARCHAR' if c in _TEXT_KEYS else ''} AS \"{c}\"" for c in COLUMNS
                            if c not in present)])
    offsets = file_offsets(con, files)
    con.execute(f"CREATE OR REPLACE TEMP VIEW rows AS SELECT {line_sql(files, offsets)} AS line, {selected} FROM raw")
    where = f" WHERE line <= {int(limit)}" if limit is not None else ""
    screen = _parquet_screen(present, ctx_args)
    con.execute(f"CREATE OR REPLACE TEMP VIEW screened AS SELECT *, ({screen}) IS TRUE AS ok FROM rows{where}")
    run = present.get("run")
    run_text, run_int = ("run", "NULL::BIGINT") if run in (None, "VARCHAR") else ("NULL::VARCHAR", "run")
    con.execute("CREATE OR REPLACE TEMP VIEW fields AS SELECT line, id, dimension, case_id, trial, status, evaluator, "
                f"reason, {run_text} AS run, {run_int} AS run_int, agent, partial_run, ok FROM screened")
    return present, offsets, screen


def _common_screen(ctx_args: dict[str, Any]) -> list[str]:
    """The checks of every format: the pandas engine's checks of a valid pre-scored row, and no row the
    pandas engine would give more than its status (the policy's tool contracts join a tool_call row)."""
    return [*(["dimension <> 'tool_call'"] if ctx_args.get("tool_contracts") else []),
            "status IN ('PASS', 'FAIL', 'ERROR', 'ABSTAIN')", "evaluator IS NOT NULL", _VISIBLE.format("id"),
            _VISIBLE.format("dimension"), _VISIBLE.format("evaluator"), _NO_MOCK.format("evaluator"),
            "(case_id IS NULL OR " + _VISIBLE.format("case_id") + ")",
            "(agent IS NULL OR " + _VISIBLE.format("agent") + ")",
            # A reason the PII detector might redact (SPEC §3) is scored by the pandas code, which does.
            "(status = 'PASS' OR reason IS NULL OR NOT regexp_matches(reason, " + _sql_text(prefilter()) + "))"]


def _sql_text(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _parquet_screen(types: dict[str, str], ctx_args: dict[str, Any]) -> str:
    """SQL true for a row the pandas engine's checks certainly accept as a valid pre-scored row."""
    clauses = _common_screen(ctx_args)
    for column in STRINGS:
        if column in types and types[column] != "VARCHAR":
            return "false"  # not text: every row takes the full check
    if "trial" in types:
        if not any(types["trial"].startswith(t) for t in ("BIGINT", "INTEGER", "SMALLINT", "TINYINT", "UBIGINT",
                                                           "UINTEGER", "USMALLINT", "UTINYINT")):
            return "false"
        clauses.append(f"(trial IS NULL OR trial BETWEEN 0 AND {_MAX_SAFE})")
    if "partial_run" in types and types["partial_run"] != "BOOLEAN":
        return "false"  # not true or false: every row takes the full check (and is refused there)
    if "run" in types:
        if types["run"] == "VARCHAR":
            clauses.append("(run IS NULL OR " + _VISIBLE.format("run") + ")")
        elif types["run"] in ("BIGINT", "INTEGER", "SMALLINT", "TINYINT"):
            clauses.append(f"(run IS NULL OR run BETWEEN 0 AND {_MAX_SAFE})")
        else:
            return "false"
    return " AND ".join(clauses)


def _parquet_items(con: Any) -> Iterator[tuple[int, Any, Any, bool, None]]:
    """Rows the screen did not pass, as the pandas engine's Parquet reader gives them."""
    for batch in _batches(con, "SELECT * EXCLUDE (ok) FROM screened WHERE NOT ok ORDER BY line"):
        lines = batch.pop("line")
        names = list(batch)
        for i, line in enumerate(lines):
            row = {n: batch[n][i] for n in names if batch[n][i] is not None}
            yield int(line), row, None, True, None


# --------------------------------------------------------------------------- CSV and JSON Lines
def _first_line(path: str) -> bytes:
    """The first line of ``path``."""
    with open(path, "rb") as fh:
        return fh.readline().removesuffix(b"\n")


def _read_lines(con: Any, path: str, read: str, kind: str) -> int | None:
    """Create view ``lines`` (``n``, ``text``: every line of ``path``, which DuckDB reads as ``read``
    (:func:`literal_files`), NULL for an empty one) and return
    the number of lines when DuckDB read the file exactly and its form is plain; None when the pandas
    reader must read it whole (a byte-order mark, not UTF-8, a ``\\r``, a CSV with quotes, blank lines
    or no row, a JSON Lines file whose first line is not one object, lines DuckDB did not give back
    byte for byte)."""
    first = _first_line(path)
    if first.startswith(b"\xef\xbb\xbf") or b"\r" in first:
        return None
    if kind == "jsonl":  # the pandas reader takes a file whose first line is one object for JSON Lines
        if nesting_exceeds(first, ROW_NESTING):
            return None
        try:
            if type(json.loads(first.decode("utf-8"))) is not dict:
                return None
        except (ValueError, RecursionError):
            return None
    elif not first or b'"' in first:
        return None
    con.execute(
        "CREATE OR REPLACE TEMP VIEW lines AS SELECT row_number() OVER () AS n, text FROM read_csv("
        f"[{quoted(read)}], columns = {{'text': 'VARCHAR'}}, header = false, auto_detect = false, "
        "delim = '\x01', quote = '', escape = '', new_line = '\\n', max_line_size = 1073741824, strict_mode = true)"
    )
    try:
        count, size, blank, quote = con.execute(
            "SELECT count(*), coalesce(sum(strlen(coalesce(text, ''))), 0), count(*) - count(text), "
            "coalesce(bool_or(contains(text, '\"')), false) FROM lines"
        ).fetchall()[0]
    except Exception:  # noqa: BLE001 - not UTF-8, a "\r", a "\x01", an overlong line: the pandas reader says
        return None
    lines, ends = lines_and_end(path)
    # Every byte given back: the lines and their breaks are the file (nothing skipped, trimmed or split).
    if count != lines or size + count - (0 if ends else 1) != os.path.getsize(path):
        return None
    if kind == "csv" and (blank or quote or count < 2):
        return None  # a blank line shifts the csv module's line numbers; quotes can span lines
    return int(count)


def _csv_fields(header: list[str]) -> str:
    """SQL selecting the pre-scored columns of a plain CSV line, and ``form``: true when the pandas
    CSV reader certainly reads its cells as the text they are (trial: the integer; run: the integer
    or the text)."""
    cell = {name: f"nullif(parts[{i + 1}], '')" for i, name in enumerate(header)}
    text = {c: cell.get(c, "NULL::VARCHAR") for c in COLUMNS}
    trial, run = text["trial"], text["run"]
    run_int = f"regexp_full_match({run}, '0|[1-9][0-9]{{0,14}}')"
    # A run cell is JSON when it reads as JSON: a word that cannot start JSON stays text.
    run_word = (f"(regexp_full_match({run}, '[A-Za-z_][!-~]*') AND {run} NOT IN ('true', 'false', 'null'))")
    # The pandas CSV reader reads a partial_run cell of true or false in any case as that value.
    flag = text["partial_run"]
    form = " AND ".join([
        f"len(parts) <= {len(header)}",
        f"({trial} IS NULL OR regexp_full_match({trial}, '[0-9]{{1,15}}'))",
        f"({run} IS NULL OR {run_int} OR {run_word})",
        f"({flag} IS NULL OR (regexp_full_match({flag}, '[A-Za-z]+') AND lower({flag}) IN ('true', 'false')))",
    ])
    strings = ", ".join(f"{text[c]} AS {c}" for c in ("id", "dimension", "case_id", "status", "evaluator", "reason",
                                                      "agent"))
    return (f"SELECT line, text, {strings}, "
            f"CASE WHEN regexp_full_match({trial}, '[0-9]{{1,15}}') THEN TRY_CAST({trial} AS BIGINT) END AS trial, "
            f"CASE WHEN {run_int} THEN NULL ELSE {run} END AS run, "
            f"CASE WHEN {run_int} THEN TRY_CAST({run} AS BIGINT) END AS run_int, "
            f"lower({flag}) = 'true' AS partial_run, "
            f"({form}) IS TRUE AS form FROM (SELECT *, string_split(text, ',') AS parts FROM body)")


_KEY = "(?:" + "|".join(COLUMNS) + ")"
_STRING = '"[^"\\\\\\x00-\\x1f]*"'  # no escape, no control character: the text is the value
_VALUE = f"(?:{_STRING}|0|[1-9][0-9]{{0,14}}|true|false|null)"
_PAIR = f'"{_KEY}"[ \\t]*:[ \\t]*{_VALUE}'
_OBJECT = f"[ \\t]*\\{{[ \\t]*{_PAIR}(?:[ \\t]*,[ \\t]*{_PAIR})*[ \\t]*\\}}[ \\t]*"


def _jsonl_fields() -> str:
    """SQL selecting the pre-scored fields of a JSON Lines line, and ``form``: true when the line is
    certainly one flat object of distinct pre-scored keys whose values the pandas reader reads as
    they are written (strings with no escape and no control character, integers below 10^15, true
    and false, null), each of its field's type.
    Only such text (strict JSON: the regular expression) is given to DuckDB's JSON functions."""
    paths = "[" + ", ".join(f"'$.{c}'" for c in COLUMNS) + "]"
    at = {c: i + 1 for i, c in enumerate(COLUMNS)}
    string = {c: f"CASE WHEN types[{at[c]}] = 'VARCHAR' THEN vals[{at[c]}] END" for c in COLUMNS}
    integer = {c: f"CASE WHEN types[{at[c]}] = 'UBIGINT' THEN TRY_CAST(vals[{at[c]}] AS BIGINT) END"
               for c in COLUMNS}
    form = " AND ".join([
        "plain", "len(keys) = len(list_distinct(keys))",
        # A field is absent, null or of its type: a value of another type leaves the row to the pandas code.
        *(f"coalesce(types[{at[c]}], 'NULL') IN ('NULL', 'VARCHAR')" for c in STRINGS),
        f"coalesce(types[{at['trial']}], 'NULL') IN ('NULL', 'UBIGINT')",
        f"(coalesce(types[{at['run']}], 'NULL') IN ('NULL', 'UBIGINT') OR {_VISIBLE.format(string['run'])})",
        f"coalesce(types[{at['partial_run']}], 'NULL') IN ('NULL', 'BOOLEAN')",
    ])
    strings = ", ".join(f"{string[c]} AS {c}" for c in ("id", "dimension", "case_id", "status", "evaluator",
                                                         "reason", "agent"))
    flag = f"CASE WHEN types[{at['partial_run']}] = 'BOOLEAN' THEN vals[{at['partial_run']}] = 'true' END"
    return (f"SELECT line, text, {strings}, {integer['trial']} AS trial, {string['run']} AS run, "
            f"{integer['run']} AS run_int, {flag} AS partial_run, ({form}) IS TRUE AS form FROM ("
            f"SELECT line, text, plain, json_extract_string(json, {paths}) AS vals, json_type(json, {paths}) AS types, "
            "json_keys(json) AS keys FROM (SELECT *, CASE WHEN plain THEN text END AS json FROM ("
            f"SELECT line, text, regexp_full_match(text, '{_OBJECT}') AS plain FROM body)))")


def _text_source(con: Any, path: str, read: str, kind: str, name: str, ctx_args: dict[str, Any], offset: int,
                 limit: int | None) -> int | None:
    """Create view ``fields`` over the rows of ``path`` (DuckDB reads it as ``read``; lines numbered from
    ``offset``) and return the file's number of lines; None when the file is not plain (the pandas
    reader reads it whole)."""
    count = _read_lines(con, path, read, kind)
    if count is None:
        return None
    if kind == "csv":
        header = _first_line(path).decode("utf-8").split(",")  # DuckDB read the file: UTF-8
        if "" in header or len(set(header)) != len(header):
            return None  # an empty or repeated column name: the pandas reader's own handling
        other = set(header) - set(COLUMNS)
        if other:
            raise _other_columns(name, other)
        body = "n > 1"
    else:
        other = {k for (k,) in con.execute(
            "SELECT DISTINCT unnest(json_keys(CASE WHEN json_valid(text) THEN text END)) FROM lines"
        ).fetchall()} - set(COLUMNS)
        if other:
            raise _other_columns(name, other)
        body = "text IS NOT NULL AND NOT regexp_full_match(text, '[ \\t\\v\\f]*')"  # blank lines are skipped
    where = f" WHERE seq <= {int(limit)}" if limit is not None else ""
    con.execute(f"CREATE OR REPLACE TEMP VIEW body AS SELECT * FROM (SELECT n + {int(offset)} AS line, text, "
                f"row_number() OVER () AS seq FROM lines WHERE {body}){where}")
    fields = _csv_fields(header) if kind == "csv" else _jsonl_fields()
    screen = " AND ".join(["form", *_common_screen(ctx_args)])
    con.execute(f"CREATE OR REPLACE TEMP VIEW fields AS SELECT *, ({screen}) IS TRUE AS ok FROM ({fields})")
    return count


def _text_items(con: Any, path: str, kind: str, name: str) -> Iterator[tuple[int, Any, Any, bool, None]]:
    """The lines the screen did not pass, each read by the pandas engine's reader for its format."""
    header = _first_line(path).decode("utf-8") if kind == "csv" else ""
    for batch in _batches(con, "SELECT line, text FROM fields WHERE NOT ok ORDER BY line"):
        lines, texts = batch["line"], batch["text"]
        if kind == "csv":  # one record per line (no quotes, no blank line): record k starts on line k + 2
            records: Iterable[tuple[int, Any, Any, bool, Any]] = csv_records("\n".join([header, *texts]), name)
            first = 2
        else:
            records = jsonl_records([text.encode("utf-8") for text in texts], 1)
            first = 1
        seen = 0
        for number, value, error, deep, _raw in records:
            seen += 1
            # No raw text: every row's definition key is computed from its value, as for the screened rows.
            yield int(lines[number - first]), value, error, deep, None
        if seen != len(texts):  # pragma: no cover - a bug, never the user's data
            raise AssertionError(f"{name}: {len(texts)} lines read as {seen} rows")


def _whole_file_items(path: str, offset: int, limit: int | None, seen: list[int]
                      ) -> Iterator[tuple[int, Any, Any, bool, None]]:
    """Every row of ``path`` as the pandas engine reads it (a file whose form is not plain); ``seen[0]``
    counts them."""
    for line, value, error, deep, _raw in open_source(path).items():
        if limit is not None and seen[0] >= limit:
            return
        seen[0] += 1
        yield line + offset, value, error, deep, None


def _pre_scored_only(items: Iterable[tuple[int, Any, Any, bool, Any]], name: str
                     ) -> Iterator[tuple[int, Any, Any, bool, Any]]:
    """``items``, refusing (one line) a row with fields other than the pre-scored ones."""
    allowed = frozenset(COLUMNS)
    for item in items:
        value = item[1]
        if isinstance(value, dict) and not allowed.issuperset(value):
            raise _other_columns(name, set(value) - allowed)
        yield item


# --------------------------------------------------------------------------- scoring
def _batches(con: Any, query: str) -> Iterator[dict[str, list[Any]]]:
    for batch in arrow_batches(con, query):
        yield batch.to_pydict()


def score(rows: Any, ctx_args: dict[str, Any], strict: bool, *, limit: int | None = None,
          evidence_rows_in_memory: int | None = None) -> Counted:
    """Screen, score and count the pre-scored rows of ``rows`` (Parquet, CSV or JSON Lines) with DuckDB:
    a :class:`~scorekit._tally.Counted` (the screened rows stay in DuckDB, see the module docstring)."""
    from .._evidence import EVIDENCE_ROWS_IN_MEMORY
    from ._counted import count_parquet, count_screened

    kind, given = _files(rows)
    name = str(rows)
    threshold = EVIDENCE_ROWS_IN_MEMORY if evidence_rows_in_memory is None else evidence_rows_in_memory
    agent = ctx_args.get("agent")
    con = connect()
    try:
        files = literal_files(con, given)
        if kind != "parquet":
            def build(table: str) -> Partial:
                return _count_text_files(con, table, files, kind, name, ctx_args, strict, limit)

            return count_screened(con, build, source=name, agent=agent, strict=strict, threshold=threshold)
        present, offsets, screen = _parquet_source(con, files, name, ctx_args, limit)
        total = _parquet_rows(con, files, offsets, limit)
        if not total:
            raise InputError(f"{name}: empty file, no rows")

        def slow(screened: int) -> Partial:
            """The rows the screen did not pass (none when it passed every one of the ``total``),
            scored by the pandas code."""
            items = _parquet_items(con) if screened < total else iter(())
            return score_items(items, name, Context(**ctx_args), strict)

        return count_parquet(con, files, offsets, present, screen, slow, source=name, agent=agent,
                             strict=strict, limit=limit, threshold=threshold)
    finally:
        con.close()


def _count_text_files(con: Any, table: str, files: Files, kind: str, name: str, ctx_args: dict[str, Any],
                      strict: bool, limit: int | None) -> Partial:
    """Each file in turn: its screened rows scored in SQL into ``table``, the others by the pandas code
    (returned as one partial). In a directory, lines are counted on from the files before (CSV: one
    header), and a file of nothing but white space adds its lines and no row, as in the one file they
    make (a Parquet file of no rows adds none either)."""
    from ._counted import SCREENED_TABLE, scored_sql

    con.execute(f"CREATE TABLE {table} {SCREENED_TABLE}")
    screened = scored_sql("SELECT line, id, dimension, case_id, trial, status, reason, evaluator, run, run_int, "
                          "agent, partial_run, ok FROM fields", "ok", run_text="run", run_int="run_int")
    parts: list[Partial] = []
    offset, left = 0, limit
    in_directory = os.path.isdir(name)
    if in_directory and all(is_blank(path) for path in files.given):
        raise InputError(f"{name}: empty files, no rows")
    for path, read in zip(files.given, files.read, strict=True):
        if in_directory and is_blank(path):
            offset += line_count(path)
            continue
        file_name = path if len(files.given) > 1 else name  # a file-level message names the file
        count = _text_source(con, path, read, kind, file_name, ctx_args, offset, left)
        seen = [0]
        items: Iterable[Any]
        if count is not None:
            con.execute(f"INSERT INTO {table} {screened}")
            items = _text_items(con, path, kind, file_name)
            if left is not None:
                seen[0] = con.execute("SELECT count(*) FROM fields").fetchall()[0][0]
        else:
            items = _whole_file_items(path, offset, left, seen)
            count = line_count(path)
        parts.append(score_items(_pre_scored_only(items, file_name), name, Context(**ctx_args), strict))
        offset += count - (1 if kind == "csv" else 0)
        if left is not None:
            left -= seen[0]
            if left <= 0:
                break
    return combine(parts)
