"""Engines (SPEC §16): where partitions of rows are scored, by the same code (:mod:`scorekit._partial`).

``pandas`` (the default) scores in this process and, for a large JSON Lines file, in local worker
processes (:mod:`.local`); ``dask`` on a dask.distributed cluster (:mod:`.dask`); ``duckdb`` reads,
screens and counts pre-scored rows inside DuckDB (:mod:`.duckdb`).
"""

from __future__ import annotations

import os
from typing import Any

from .._errors import InputError
from .._ingest import ingest as score_here
from .._ingest import ingest_directory, jsonl_lines
from .._rows import open_source

__all__ = ["ENGINES", "ingest", "require"]

ENGINES = ("pandas", "dask", "duckdb")

# The module each optional engine needs, and the extra that installs it.
_EXTRAS = {"dask": ("distributed", "dask"), "duckdb": ("duckdb", "duckdb")}


def require(engine: str) -> None:
    """Raise :class:`~scorekit.InputError` (one line naming the pip command)
    when ``engine``'s optional dependencies are not installed."""
    from importlib.util import find_spec

    if engine not in ENGINES:
        raise InputError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    if engine in _EXTRAS:
        module, extra = _EXTRAS[engine]
        if find_spec(module) is None or (engine == "dask" and find_spec("dask.dataframe") is None):
            raise InputError(f"the {engine} engine needs the optional dependencies: pip install scorekit[{extra}]")


def ingest(rows: Any, ctx_args: dict[str, Any], *, engine: str, scheduler: str | None, limit: int | None,
           strict: bool, evidence_rows_in_memory: int) -> Any:
    """``rows`` scored by ``engine``: (source or None, combined partial), or a
    :class:`scorekit._tally.Counted` from an engine that counts where its rows are
    (its evidence kept in memory up to ``evidence_rows_in_memory`` rows)."""
    require(engine)
    if scheduler is not None and engine != "dask":
        raise InputError(f"scheduler is for the dask engine; got engine {engine!r}")
    if engine == "dask":
        from . import dask

        if scheduler is not None:
            dask.scheduler_address(scheduler)  # a malformed address: one line, before the rows are read
        src = dask.open_rows(rows, offsets=limit is not None)
        if limit is not None:  # a partial scan: the first rows, scored here
            src = src if src is not None else open_source(rows.head(limit, npartitions=-1))
            return src, score_here(src, ctx_args, limit=limit, strict=strict)
        return dask.score(rows, src, ctx_args, strict, scheduler=scheduler, threshold=evidence_rows_in_memory)
    if engine == "duckdb":
        from . import duckdb

        return duckdb.score(rows, ctx_args, strict, limit=limit, evidence_rows_in_memory=evidence_rows_in_memory)
    if isinstance(rows, (str, os.PathLike)) and os.path.isdir(rows):  # its members, in this process
        return None, ingest_directory(rows, ctx_args, limit=limit, strict=strict)
    src = open_source(rows)
    lines = jsonl_lines(src, limit)
    if lines is not None:
        from . import local  # lazy: the pool machinery only for large files

        # A file of local.MIN_ROWS rows or more is scored by worker processes too; below it, where a
        # worker costs more than it saves, here. Lines not held (a large file): range by range.
        workers = local.wants_workers(len(lines))
        if workers or lines.data is None:
            return src, local.score_file(src.name, lines, ctx_args, strict, n_workers=None if workers else 1)
    return src, score_here(src, ctx_args, limit=limit, strict=strict)
