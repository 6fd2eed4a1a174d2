"""Validate and score rows in this process (SPEC §16): a source, or a directory member by member.

Whether worker processes score a large JSON Lines file too is the engines layer's choice
(:mod:`scorekit.engines.local`), made on the lines :func:`jsonl_lines` names.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Sequence
from typing import Any

from ._partial import Partial, combine, score_items, score_lines
from ._rows._formats import FileLines, Source, open_source
from ._rows._members import numbered_on, row_members
from .scorers import Context

__all__ = ["ingest", "ingest_directory", "jsonl_lines"]


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
    return score_items(itertools.islice(src.items(), limit), src.name, Context(**ctx_args), strict)


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
    for item in itertools.islice(items, limit):
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
