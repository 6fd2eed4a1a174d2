"""Validate and score rows in this process: the ``pandas`` engine's scoring (SPEC §16).

Rows are scored partition by partition into partials (:mod:`scorekit._partial`)
and combined. Whether a large JSON Lines file is scored here or also by local
worker processes is the engines layer's choice (:func:`scorekit.engines.ingest`,
:mod:`scorekit.engines.local`); this module only scores here, and names the
lines of a JSON Lines source (:func:`jsonl_lines`) that choice is made on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._partial import COLUMNS, Partial, score_items, score_lines
from ._rows._formats import FileLines, Source
from .scorers import Context

__all__ = ["COLUMNS", "Ingested", "ingest", "jsonl_lines"]

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
