"""Validate and score rows: the ``pandas`` engine's entry (SPEC §16).

Rows are scored partition by partition into partials (:mod:`scorekit._partial`)
and combined. A large JSON Lines file is split into byte ranges scored by local
worker processes (:mod:`scorekit.engines.local`); anything else is one
partition scored in this process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ._partial import COLUMNS, Partial, score_items, score_lines
from ._rows._formats import FileLines, Source
from .scorers import Context

__all__ = ["COLUMNS", "Ingested", "ingest"]

Ingested = Partial  # the name _evaluate knows the combined result by


def ingest(src: Source, ctx_args: dict[str, Any], *, limit: int | None = None, strict: bool = True) -> Partial:
    """Validate and score every row of ``src`` (the first ``limit`` rows when given)."""
    if src.kind == "jsonl" and src.lines is not None:
        lines: Sequence[bytes] = src.lines
        if limit is not None:
            lines = _first_rows(lines, limit)
        if isinstance(lines, FileLines):
            from .engines import local  # lazy: the pool machinery only for large files

            if local.wants_workers(len(lines)) or lines.data is None:  # lines not held: scored range by range
                return local.score_file(src.name, lines, ctx_args, strict)
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
