"""Engines (SPEC §16): where partitions of rows are scored and combined.

``pandas`` (the default) scores in this process and, for a large JSON Lines
file, in local worker processes (:mod:`.local`); ``dask`` scores partitions on a
dask.distributed cluster (:mod:`.dask`); ``duckdb`` reads and screens
pre-scored rows inside DuckDB (:mod:`.duckdb`). The scoring code is the same in
all of them (:mod:`scorekit._partial`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from .._errors import InputError
from .._rows import open_source

__all__ = ["ENGINES", "ingest", "progress", "progress_bar", "progress_on_a_terminal", "require"]

ENGINES = ("pandas", "dask", "duckdb")

# Whether scoring shows a progress bar (SPEC §17): only where a front door
# asked for one (``scorekit run`` on a terminal), never in a pipe or a CI log.
_PROGRESS: ContextVar[bool] = ContextVar("scorekit_progress", default=False)


@contextlib.contextmanager
def progress(enabled: bool) -> Iterator[None]:
    """Within the block, long scoring shows a progress bar on stderr when ``enabled``."""
    token = _PROGRESS.set(enabled)
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def progress_on_a_terminal() -> contextlib.AbstractContextManager[None]:
    """:func:`progress` when both stdout and stderr are a terminal: never in a pipe or a CI log."""
    import sys

    return progress(sys.stdout.isatty() and sys.stderr.isatty())


def progress_bar(total: int, what: str) -> Any:
    """A tqdm bar over ``total`` partitions when progress was asked for, else None."""
    if not _PROGRESS.get() or total < 2:
        return None
    import sys

    from tqdm import tqdm  # lazy: only a terminal run shows one

    return tqdm(total=total, desc=what, unit="part", file=sys.stderr, leave=False, dynamic_ncols=True)


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


def ingest(rows: Any, ctx_args: dict[str, Any], *, engine: str = "pandas", scheduler: str | None = None,
           limit: int | None = None, strict: bool = True,
           evidence_rows_in_memory: int | None = None) -> Any:
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
        src = dask.open_rows(rows)
        if limit is not None:  # a partial scan: the first rows, scored here
            from .._ingest import ingest as score_here

            src = src if src is not None else open_source(rows.head(limit, npartitions=-1))
            return src, score_here(src, ctx_args, limit=limit, strict=strict)
        from .._evidence import EVIDENCE_ROWS_IN_MEMORY

        threshold = EVIDENCE_ROWS_IN_MEMORY if evidence_rows_in_memory is None else evidence_rows_in_memory
        return dask.score(rows, src, ctx_args, strict, scheduler=scheduler, threshold=threshold)
    if engine == "duckdb":
        from . import duckdb

        return duckdb.score(rows, ctx_args, strict, limit=limit, evidence_rows_in_memory=evidence_rows_in_memory)
    from .._ingest import ingest as score_here

    if isinstance(rows, (str, os.PathLike)) and limit is None:
        from . import local

        local.warm_up(rows)  # worker processes start while the file is read
    src = open_source(rows)
    return src, score_here(src, ctx_args, limit=limit, strict=strict)
