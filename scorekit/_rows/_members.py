"""A directory of results files: its members, and how their lines number on (SPEC §16).

A directory reads as each member file read alone (by :func:`~scorekit._rows.open_source`,
with its own messages), in name order, its rows' lines numbered on from the members
before it: as the one file they make (CSV: one header, the header lines of later members
not counted; Parquet: row positions). A member of nothing but white space adds its lines
and no row, a Parquet member of no rows adds nothing. Members are the files below the
directory (at any depth) with a results file's suffix, all of one kind. Every engine
reads a directory this way (the duckdb engine's own walk may use :func:`members`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .._errors import InputError

__all__ = ["KINDS", "is_blank", "line_count", "lines_and_end", "member_lines", "members", "numbered_on", "parquet_rows",
           "row_members"]

# File kinds by suffix: the suffixes open_source reads by (_formats._format_from_suffix).
KINDS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "csv", ".jsonl": "jsonl",
         ".ndjson": "jsonl", ".json": "jsonl"}
_NAMES = {"parquet": "Parquet", "csv": "CSV", "jsonl": "JSON Lines"}


def members(directory: str | os.PathLike[str]) -> tuple[str, list[str]]:
    """(kind, member files in name order) of ``directory``.

    Raises
    ------
    InputError
        No results file in the directory, or files of more than one kind.
    """
    found = sorted((str(p), KINDS[p.suffix.lower()]) for p in Path(directory).rglob("*")
                   if p.suffix.lower() in KINDS and p.is_file())
    if not found:
        raise InputError(f"{os.fspath(directory)}: no Parquet, CSV or JSON Lines files in the directory")
    kinds = sorted({kind for _, kind in found})
    if len(kinds) > 1:
        raise InputError(f"{os.fspath(directory)}: the directory holds {' and '.join(_NAMES[k] for k in kinds)} "
                         "files; a directory is read as one file of one kind")
    return kinds[0], [name for name, _ in found]


def lines_and_end(path: str) -> tuple[int, bool]:
    """(lines, ends with a line break) of a file: each line ends at b"\\n", and a last one
    without it counts too."""
    count, last = 0, b""
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 24):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (1 if last not in (b"", b"\n") else 0), last == b"\n"


def line_count(path: str) -> int:
    """The lines of a file (:func:`lines_and_end`)."""
    return lines_and_end(path)[0]


def is_blank(path: str) -> bool:
    """True when ``path`` holds nothing but white space (read a block at a time)."""
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            if not block.isspace():
                return False
    return True


def parquet_rows(path: str) -> int | None:
    """The rows of the Parquet file ``path`` (from its footer), or None when it cannot be read
    (its reader then says why, naming the file)."""
    try:
        import pyarrow.parquet as pq  # lazy: pyarrow is heavy

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001 - pyarrow raises several unrelated types for bad files
        return None


def numbered_on(items: Any, offset: int) -> Any:
    """A member's rows (``open_source(member).items()``) with their lines numbered on by
    ``offset``, and no raw text (a member's lines are not the directory's: each row's
    definition is read from its value, and its text is kept to be read again)."""
    for line, value, error, deep, _raw in items:
        yield line + offset, value, error, deep, None


def member_lines(path: str, kind: str) -> int:
    """How many lines (rows of a Parquet file) the member ``path`` numbers on: the members make one
    file of one CSV header (each member's rows are numbered past its own)."""
    if kind == "parquet":
        return parquet_rows(path) or 0  # an unreadable one is refused when it is opened
    return line_count(path) - (1 if kind == "csv" else 0)


def row_members(directory: str | os.PathLike[str]) -> tuple[str, list[tuple[str, int]]]:
    """(kind, [(member, lines numbered before it)]) of the members of ``directory`` that can hold
    rows, in name order: a blank member adds its lines and no row, a Parquet member of no rows
    adds nothing.

    Raises
    ------
    InputError
        As :func:`members`, or when no member holds a row ("empty files, no rows"; a directory of
        Parquet files: "empty file, no rows").
    """
    name = os.fspath(directory)
    kind, paths = members(directory)
    if kind == "parquet":
        paths = [path for path in paths if parquet_rows(path) != 0]
        if not paths:
            raise InputError(f"{name}: empty file, no rows")
    elif all(is_blank(path) for path in paths):
        raise InputError(f"{name}: empty files, no rows")
    found: list[tuple[str, int]] = []
    offset = 0
    for path in paths:
        if kind == "parquet" or not is_blank(path):
            found.append((path, offset))
        offset += member_lines(path, kind)
    return kind, found
