"""Validate and score rows in this process: the ``pandas`` engine's scoring (SPEC §16).

Rows are scored partition by partition into partials (:mod:`scorekit._partial`)
and combined. Whether a large JSON Lines file is scored here or also by local
worker processes is the engines layer's choice (:func:`scorekit.engines.ingest`,
:mod:`scorekit.engines.local`); this module only scores here, and names the
lines of a JSON Lines source (:func:`jsonl_lines`) that choice is made on. A
directory of results files is scored member by member (:func:`ingest_directory`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from ._partial import COLUMNS, Partial, combine, score_items, score_lines
from ._rows._formats import FileLines, Source, open_source
from ._rows._members import numbered_on, row_members
from .scorers import Context

__all__ = ["COLUMNS", "Ingested", "ingest", "ingest_directory", "jsonl_lines"]

Ingested = Partial  # the name _evaluate knows the combined result by


def jsonl_lines(src: Source, limit: int | None = None) -> FileLines | None:
    """The lines of ``src`` when it is a JSON Lines file read as lines (only those
    holding its first ``limit`` rows when given), else None."""
    if src.kind != "jsonl" or src.lines is None:
        return None
    lines: Sequence[bytes] = src.lines
    if limit is not None:
        lines = _first_rows(lines, limit)
    return lines if isinstance(lines, FileLines) else None


def ingest(src: Source, ctx_args: dict[str, Any], *, limit: int | None = None, strict: bool = True) -> Partial:
    """Validate and score every row of ``src`` (the first ``limit`` rows when given) in this process."""
    lines = jsonl_lines(src, limit)
    if lines is not None:
        return score_lines(lines, 1, src.name, ctx_args, strict)
    items: Iterable[Any] = src.items()
    if limit is not None:
        items = _take(items, limit)
    return score_items(items, src.name, Context(**ctx_args), strict)


def ingest_directory(directory: str | os.PathLike[str], ctx_args: dict[str, Any], *, limit: int | None = None,
                     strict: bool = True) -> Partial:
    """Validate and score the rows of a directory of results files in this process: each member
    read alone, in name order, its lines numbered on from the members before it
    (:mod:`scorekit._rows._members`); problems name the directory and those line numbers."""
    name = os.fspath(directory)
    _kind, found = row_members(directory)
    parts: list[Partial] = []
    left = limit
    for path, offset in found:
        seen = [0]
        items = _counted(numbered_on(open_source(path).items(), offset), left, seen)
        parts.append(score_items(items, name, Context(**ctx_args), strict))
        if left is not None:
            left -= seen[0]
            if left <= 0:
                break
    return combine(parts)


def _counted(items: Iterable[Any], limit: int | None, seen: list[int]) -> Iterable[Any]:
    """``items`` (the first ``limit`` when given), counted in ``seen[0]``."""
    for item in items:
        if limit is not None and seen[0] >= limit:
            return
        seen[0] += 1
        yield item


def _first_rows(lines: Sequence[bytes], limit: int) -> Sequence[bytes]:
    """The prefix of ``lines`` holding the first ``limit`` non-blank lines."""
    seen = 0
    for i, line in enumerate(lines):
        if line and not line.isspace():
            seen += 1
            if seen == limit:
                return lines[: i + 1]
    return lines


def _take(items: Iterable[Any], limit: int) -> Iterable[Any]:
    for i, item in enumerate(items):
        if i >= limit:
            return
        yield item
