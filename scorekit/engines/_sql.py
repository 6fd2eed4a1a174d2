"""What the duckdb engine's reader (:mod:`.duckdb`) and its counting (:mod:`._counted`) share:
the columns of a pre-scored row, the files of an evaluation as DuckDB is given them, a
connection's work directory, and SQL text helpers. Both import it; it imports neither."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BATCH_ROWS", "COLUMNS", "STRINGS", "Files", "arrow_batches", "connect", "line_sql", "literal_files",
           "quoted", "work_directory"]

# The columns of a pre-scored row this engine reads (SPEC §2); partial_run (true or false) is counted,
# any true one making the evaluation TRIAGE.
COLUMNS = ("id", "dimension", "case_id", "trial", "status", "evaluator", "reason", "run", "agent", "partial_run")
STRINGS = ("id", "dimension", "case_id", "status", "evaluator", "reason", "agent")
BATCH_ROWS = 1 << 17


@dataclass(frozen=True)
class Files:
    """The files of one evaluation, each named three ways (SPEC §20: a results path is a literal path).

    ``given``: as the user named them (messages, and Python's own reads); ``read``: the text DuckDB's
    readers are given, which they read as exactly that file (:func:`literal_files`); ``named``: what
    DuckDB's ``filename`` column reports for it.
    """

    given: list[str]
    read: list[str]
    named: list[str]

    def listed(self) -> str:
        """SQL: the list of the files as DuckDB's readers must be given them."""
        return "[" + ", ".join(quoted(f) for f in self.read) + "]"


def literal_files(con: Any, given: list[str]) -> Files:
    """The :class:`Files` of ``given``: each path as DuckDB reads exactly that file.

    DuckDB's readers (``read_parquet``, ``read_csv``, ``parquet_metadata``...) expand ``*``, ``?`` and
    ``[...]`` in every path they are given, each path of a list too, and ``~`` at its start: given
    ``res[1].jsonl`` they read ``res1.jsonl``. So each path is made absolute and its glob characters
    are escaped (``[[]``, ``[*]``, ``[?]``); DuckDB's own ``glob()`` must then find that file and no
    other, or the path is refused in one line (DuckDB cannot name it: a backslash beside a glob
    character in a file name, say).

    Raises
    ------
    InputError
        A path DuckDB would not read as exactly that file.
    """
    import glob

    from .._errors import InputError

    read, named = [], []
    for path in given:
        absolute = os.path.abspath(path)
        escaped = glob.escape(absolute)
        if escaped != absolute:  # a glob character: DuckDB says which files the escaped text names
            found = [str(f) for (f,) in con.execute("SELECT file FROM glob(?)", [escaped]).fetchall()]
            if found != [absolute]:
                raise InputError(f"{path}: the duckdb engine cannot read this path as it is named (DuckDB would "
                                 "read it as a pattern): rename the file or use --engine pandas")
        read.append(escaped)
        named.append(absolute)
    return Files(given=list(given), read=read, named=named)


def connect(memory_limit: str = "2GB") -> Any:
    """A DuckDB connection bounded in memory, spilling into a temporary directory of its own.

    DuckDB's default for an in-memory database is ``.tmp`` in the working directory: a billion rows
    spilled tens of gigabytes there. The directory (see :func:`work_directory`) is removed when the
    connection is garbage collected, or at exit.
    """
    import duckdb

    from .._io import owned_temporary_directory

    con = duckdb.connect()
    work, _ = owned_temporary_directory(con, "scorekit-duckdb-")
    con.execute(f"SET temp_directory = {quoted(str(work / 'spill'))}")
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET enable_progress_bar = false")  # scorekit's own progress rules apply (SPEC §17)
    con.execute("SET preserve_insertion_order = true")
    return con


def work_directory(con: Any) -> Path:
    """The temporary directory a connection of :func:`connect` owns: a home for its work files."""
    return Path(con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0]).parent


def quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"  # a view takes no parameters


def line_sql(files: Files, offsets: list[int]) -> str:
    """SQL of a row's line number over ``read_parquet(files, filename = true, file_row_number = true)``:
    the files counted as one, in name order, with no window over the rows."""
    if len(files.named) == 1:
        return "file_row_number + 1"
    cases = " ".join(f"WHEN {quoted(f)} THEN {o}" for f, o in zip(files.named, offsets, strict=True))
    return f"CASE filename {cases} END + file_row_number + 1"


def arrow_batches(con: Any, query: str, rows: int = BATCH_ROWS) -> Iterator[Any]:
    """``query``'s result streamed as Arrow record batches of up to ``rows`` rows."""
    relation = con.sql(query)
    # duckdb 2 streams a relation with to_arrow_reader; 1.x with fetch_record_batch (record_batch before).
    for name in ("to_arrow_reader", "fetch_record_batch", "record_batch"):
        if hasattr(relation, name):
            yield from getattr(relation, name)(rows)
            return
