"""The ``dask`` engine (SPEC §16): partitions scored on a dask.distributed cluster.

A JSON Lines file is cut into byte ranges of whole lines (:func:`~scorekit._rows._formats.line_spans`:
one pass over the file counting newlines, nothing kept per line, so the client holds
O(partitions) whatever the rows); each task reads its own range from the file (the
workers must see the same path), refuses it unless its CRC-32 is the one the client
read, and scores it into a shard that stays on the worker. A Parquet file is read by
row group, a dask DataFrame by partition, each on the workers; a directory
member by member (:mod:`scorekit._rows._members`), its lines numbered on. A source
held as one document (a JSON array, CSV) is scored here, as by the pandas engine,
and its shard handed to a worker to be counted with the rest.
No row reaches the client, nor a hash per row: it receives what each shard
reduces to (the hashes seen twice, counts per (dimension, case), digests a
partition at a time: :mod:`scorekit.kernel`) and puts the scorecard's counts
together from them; with no scheduler address a LocalCluster of worker
processes runs here.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .._errors import InputError, one_line
from .._partial import BATCH_ROWS, Partial, score_items
from .._rows import open_source
from .._rows._formats import Source, line_spans
from .._rows._members import numbered_on, row_members
from .._tally import Counted
from ..kernel import Shard, count, open_shard
from ..scorers import Context

__all__ = ["CONNECT_TIMEOUT", "MIN_PARTITION_BYTES", "PARTITION_ROWS", "byte_targets", "compacted", "is_dask_frame",
           "scheduler_address", "score", "spooled_to_disk"]

# Worker processes of the LocalCluster started when no scheduler is given.
LOCAL_WORKERS = 2
#: Rows of a JSON Lines file one task scores at most: a task's transient peak grows with its rows
#: (about 1 KB a raw row while it is scored), and a large file on a few workers would otherwise be
#: cut into partitions of millions of rows.
PARTITION_ROWS = 250_000
#: Bytes of a JSON Lines file a task reads at least (where the file has them): below this a task costs
#: more than it scores (as the local workers' ranges of 500 lines at least).
MIN_PARTITION_BYTES = 1 << 20
#: Seconds to reach a scheduler before giving up (dask's own default waits 30 s, retrying).
CONNECT_TIMEOUT = 5
# A scheduler address as dask.distributed writes one: [scheme://]host:port (IPv6 in brackets), or an
# in-process one.
_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(?P<port>[0-9]{1,5})"
                      r"|inproc://\S+")


def scheduler_address(address: Any) -> str:
    """``address`` when it is the form of a dask scheduler address (``tcp://10.0.0.5:8786``,
    ``10.0.0.5:8786``, ``tls://host:8786``...); checked before any row is read or any connection tried.

    Raises
    ------
    InputError
        One line naming the address.
    """
    match = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    if match is None or (match["port"] is not None and not 0 < int(match["port"]) < 65536):
        raise InputError(f"scheduler {address!r}: not a dask scheduler address (expected [tcp://]HOST:PORT, "
                         "e.g. tcp://10.0.0.5:8786)")
    return str(address)


def is_dask_frame(value: Any) -> bool:
    module = type(value).__module__ or ""
    return module.startswith("dask") and hasattr(value, "to_delayed") and hasattr(value, "npartitions")


def _client(scheduler: str | None) -> tuple[Any, Any]:
    """(client, cluster to close or None) for ``scheduler``, else a LocalCluster."""
    from distributed import Client, LocalCluster

    if scheduler is not None:
        address = scheduler_address(scheduler)
        try:
            return Client(address, timeout=CONNECT_TIMEOUT), None
        except (OSError, ValueError) as exc:  # refused, timed out, unknown host (TimeoutError is an OSError)
            raise InputError(f"scheduler {address!r}: cannot connect to the dask scheduler within "
                             f"{CONNECT_TIMEOUT} s ({one_line(exc)})") from None
    # Any free port: with None the scheduler's HTTP server still takes 8787 and warns when a running cluster has it.
    cluster = LocalCluster(n_workers=LOCAL_WORKERS, threads_per_worker=1, processes=True, dashboard_address=":0")
    return Client(cluster), cluster


def _frame_part(frame: Any, first: int, source: str, ctx_args: dict[str, Any], strict: bool) -> Partial:
    """Score one pandas partition whose first row is row number ``first``."""
    from .._rows._formats import frame_records

    items = ((position + first - 1, value, error, deep, raw)
             for position, value, error, deep, raw in frame_records(frame))
    return score_items(items, source, Context(**ctx_args), strict)


def _parquet_part(path: str, group: int, first: int, source: str, ctx_args: dict[str, Any], strict: bool) -> Partial:
    """Score row group ``group`` of a Parquet file (its first row is row number ``first``)."""
    import pyarrow.parquet as pq

    from .._rows._formats import parquet_item

    def rows() -> Iterator[dict[str, Any]]:  # a batch of dicts at a time, not the row group's
        for batch in pq.ParquetFile(path).iter_batches(batch_size=BATCH_ROWS, row_groups=[group]):
            yield from batch.to_pylist()

    return score_items((parquet_item(first + i, row) for i, row in enumerate(rows())), source, Context(**ctx_args),
                       strict)


def _tasks(rows: Any, src: Source | None, ctx_args: dict[str, Any], strict: bool,
           n_parts: int) -> Iterator[tuple[Any, ...]]:
    """(function, arguments...) of every partition's task."""
    if src is None:  # a dask DataFrame: its partitions, numbered like rows of one frame
        lengths = rows.map_partitions(len).compute().tolist()
        first = 1
        for part, length in zip(rows.to_delayed(), lengths, strict=True):
            yield (_frame_part, part, first, "<DataFrame>", ctx_args, strict)
            first += length
    elif isinstance(src, Directory):  # its files in name order, numbered on as one file
        for file, offset in zip(src.files, src.offsets, strict=True):
            yield from _file_tasks(file, src.name, offset, ctx_args, strict, n_parts)
    else:
        yield from _file_tasks(src, src.name, 0, ctx_args, strict, n_parts)


def byte_targets(size: int, n_workers: int) -> range:
    """Where the byte ranges of a JSON Lines text of ``size`` bytes end (each at the first line end
    from there, :func:`~scorekit._rows._formats.line_spans`): 32 ranges a worker, so that workers
    taking them in turn finish close together, of :data:`MIN_PARTITION_BYTES` at least."""
    step = max(MIN_PARTITION_BYTES, -(-size // (32 * n_workers)))
    return range(step, size, step)


def _file_tasks(src: Source, name: str, offset: int, ctx_args: dict[str, Any], strict: bool,
                n_parts: int) -> Iterator[tuple[Any, ...]]:
    """The tasks of one file's partitions, its rows named ``name`` and numbered from ``offset + 1``."""
    from . import local

    if src.kind == "jsonl" and src.file is not None:  # byte ranges of at most PARTITION_ROWS lines
        ref = src.file
        for start, stop, crc, first in line_spans(ref, byte_targets(ref.stamp[0] - ref.base, n_parts),
                                                  PARTITION_ROWS):
            yield (local.checked_range, ref.path, ref.base + start, ref.base + stop, crc, first + offset, name,
                   ctx_args, strict)
    elif src.kind == "parquet":
        import pyarrow.parquet as pq

        path = os.path.abspath(src.name)
        metadata = pq.ParquetFile(path).metadata
        first = offset + 1
        for group in range(metadata.num_row_groups):
            yield (_parquet_part, path, group, first, name, ctx_args, strict)
            first += metadata.row_group(group).num_rows
    else:  # a JSON array, CSV: one document, scored here (as the pandas engine does)
        yield (_client_part, src, name, offset, ctx_args, strict)


def _client_part(src: Source, name: str, offset: int, ctx_args: dict[str, Any], strict: bool) -> Partial:
    """Score every row of ``src`` in this process, named ``name`` and numbered on by ``offset``
    (a directory's member, :func:`~scorekit._rows._members.numbered_on`; a file alone keeps its rows' text)."""
    items = src.items() if name == src.name and offset == 0 else numbered_on(src.items(), offset)
    return score_items(items, name, Context(**ctx_args), strict)


class _Futures:
    """The :class:`~scorekit.kernel.Runner` of a dask client: each step a task where its shard is."""

    local = False

    def __init__(self, client: Any) -> None:
        self.client = client

    def submit(self, function: Any, *args: Any) -> Any:
        return self.client.submit(function, *args, pure=False)

    def result(self, handle: Any) -> Any:
        return handle.result()

    def release(self, handle: Any) -> None:
        handle.release()  # the worker's copy goes as soon as the client has it


def scored_shard(function: Callable[..., Partial], *args: Any) -> Shard:
    """Score a partition with ``function(*args)`` (a partition task; its last argument is ``strict``)
    and open its shard. A JSON Lines range (:func:`~.local.checked_range`: path, start, stop, crc,
    first line, ...) keeps where its lines are."""
    from .local import checked_range

    lines = (args[0], args[1], args[2], args[4]) if function is checked_range else None
    return spooled_to_disk(compacted(open_shard(function(*args), bool(args[-1]), lines)))


def spooled_to_disk(shard: Shard) -> Shard:
    """``shard`` with its spooled columns (the agent's output, the evaluator, cost and latency,
    kept row text: about 73 bytes a raw row, a third of a shard) in a file of its own on the worker,
    read back memory-mapped when the evidence or a row's text is read, as the pandas engine spools
    them. A shard dask moves or spills carries them (:meth:`~scorekit._spool.Spool.__getstate__`);
    the file goes with the shard."""
    from .._spool import Spool

    spool = Spool(budget=0)
    for key, _ in shard.spool.segments():
        spool.add(key, shard.spool.batch(key))
    shard.spool = spool
    if shard.partial is not None:
        shard.partial.spool = spool
    return shard


def compacted(shard: Shard) -> Shard:
    """``shard`` copied into fresh memory, the scored one let go. Scoring a partition interleaves
    what the shard keeps with what it only needed meanwhile (about 1 KB a raw row, a Python object
    each): once that is freed, the kept columns pin the heap pages around them, and a worker holding
    every shard of its partitions held about 420 bytes a raw row where the shard's data is about 230
    (benchmarks/bench_scale.py dask). Copied after the scoring's memory is freed, a shard takes
    about what its data does."""
    import pickle

    from .._partial import release_memory

    data = pickle.dumps(shard, protocol=pickle.HIGHEST_PROTOCOL)
    del shard
    release_memory()
    copy: Shard = pickle.loads(data)
    return copy


def _sorted_hash(digests: Iterable[Any]) -> str:
    """The list hash of digests that may not fit in memory: sorted on disk (:mod:`._digests`)."""
    import tempfile
    from pathlib import Path

    from ._digests import sorted_list_hash

    with tempfile.TemporaryDirectory(prefix="scorekit-digests-") as work:
        return sorted_list_hash(Path(work) / "digests", digests)


def score(rows: Any, src: Source | None, ctx_args: dict[str, Any], strict: bool, *,
          scheduler: str | None = None, threshold: int) -> Counted:
    """Score ``rows`` (opened as ``src``; None for a dask DataFrame) on a cluster: each partition is
    scored into a shard on a worker and stays there; the client gets what the shards reduce to
    (:mod:`scorekit.kernel`), never their rows, and streams the evidence into the ``evidence/`` dataset a
    partition at a time."""
    from distributed import as_completed

    client, cluster = _client(scheduler)
    try:
        n_parts = max(1, sum(int(w.get("nthreads", 1)) for w in client.scheduler_info()["workers"].values()))
        shards = []
        for function, *args in _tasks(rows, src, ctx_args, strict, n_parts):
            if function is _client_part:  # scored here: its shard handed to a worker, counted with the rest
                shards.append(client.scatter([scored_shard(function, *args)], hash=False)[0])
            elif function is _frame_part:  # a partition of a dask DataFrame: computed on the workers
                from dask.delayed import delayed

                shards.append(client.compute(delayed(scored_shard)(function, *args)))
            else:
                shards.append(client.submit(scored_shard, function, *args, pure=False))
        from .._progress import progress_bar

        bar = progress_bar(len(shards), "scoring on dask")
        for _ in as_completed(shards):
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        return count(_Futures(client), shards, source="<DataFrame>" if src is None else src.name,
                     threshold=threshold, list_hash=_sorted_hash)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def open_rows(rows: Any, *, offsets: bool = False) -> Source | None:
    """The rows' source (file-level checks as for the pandas engine; a :class:`Directory` for a
    directory); None for a dask DataFrame. A JSON Lines file is opened with nothing kept per line
    (``file``, no ``lines``) unless ``offsets`` (a partial scan, scored here as by the pandas engine)."""
    if is_dask_frame(rows):
        return None
    if isinstance(rows, (str, os.PathLike)) and os.path.isdir(rows):
        return Directory.open(rows)
    return open_source(rows, offsets=offsets)


@dataclass
class Directory(Source):
    """A directory of results files (:mod:`scorekit._rows._members`): each member read alone, in
    name order, its lines numbered on from the members before it; a blank member adds its lines and
    no row, a Parquet member of no rows adds nothing. Its items (a partial scan, scored in process)
    are every member's, numbered on."""

    files: tuple[Source, ...] = ()
    offsets: tuple[int, ...] = ()  # the lines (rows of Parquet members) of the members before each

    @classmethod
    def open(cls, rows: str | os.PathLike[str]) -> Directory:
        """The directory ``rows`` opened: each member with the pandas engine's file-level checks."""
        name = os.fspath(rows)
        _kind, found = row_members(rows)
        files = [open_source(path, offsets=False) for path, _ in found]
        offsets = [offset for _, offset in found]

        def items() -> Iterator[tuple[Any, ...]]:
            for file, first in zip(files, offsets, strict=True):
                yield from numbered_on(file.items(), first)

        return cls(name, "directory", items, files=tuple(files), offsets=tuple(offsets))


