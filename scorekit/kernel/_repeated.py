"""Hashes repeated across partitions, found without gathering them (SPEC §16).

A duplicate id, a (case, dimension, trial) claimed twice, a case defined twice, a (dimension,
run, case) group split across partitions: each shows first as a 64-bit hash seen twice. Each
partition's hashes are cut into buckets by value (:func:`bucket`) where they are, bucket ``b`` of
every partition is reduced in one task (:func:`repeated`); only the repeated hashes come back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._partial import release_memory
from ._runner import Runner

__all__ = ["bucket", "bucket_count", "find_repeated", "repeated"]

#: Hashes a bucket is meant to hold (a worker's reduction holds a bucket of every partition).
BUCKET_ROWS = 1 << 22
#: At most this many buckets (each a task per partition).
MAX_BUCKETS = 64

Hashes = tuple[np.ndarray, ...]  # one array per kind: 1-D uint64 hashes, or (k, 3) (key, two words)


def bucket_count(rows: int, partitions: int) -> int:
    """How many buckets ``rows`` hashes of ``partitions`` partitions are cut into."""
    return max(1, min(partitions, MAX_BUCKETS, -(-rows // BUCKET_ROWS)))


def bucket(hashes: Hashes, b: int, n: int) -> Hashes:
    """The hashes of bucket ``b`` of ``n`` (by value; a 2-D array by its first column)."""
    if n == 1:
        return hashes
    out = []
    for values in hashes:
        key = values if values.ndim == 1 else values[:, 0]
        out.append(values[key % np.uint64(n) == np.uint64(b)])
    return tuple(out)


def repeated(*parts: Hashes) -> Hashes:
    """Per kind, over ``parts``: the 1-D values occurring more than once; the keys of 2-D rows
    (key, definition in two words) paired with two distinct definitions."""
    out = []
    for kind in zip(*parts, strict=True):
        values = np.concatenate(kind)
        if values.ndim == 2:
            values = np.unique(values, axis=0)[:, 0]
        unique, number = np.unique(values, return_counts=True)
        out.append(unique[number > 1])
    release_memory()  # the sorts' copies go back before the next step's peak
    return tuple(out)


def find_repeated(runner: Runner, step: Callable[..., Hashes], shards: list[Any], kinds: int, rows: int,
                  *args: Any) -> Hashes:
    """The repeated hashes (:func:`repeated`) of ``step(shard, *args)`` (``kinds`` kinds of hashes, kept
    where each shard is) over ``shards``; ``rows``: about how many hashes in all."""
    if not shards:
        return tuple(np.zeros(0, dtype=np.uint64) for _ in range(kinds))
    handles = [runner.submit(step, shard, *args) for shard in shards]
    n = bucket_count(rows, len(handles))
    split = [[runner.submit(bucket, handle, b, n) for b in range(n)] for handle in handles]
    reduced = [runner.submit(repeated, *(parts[b] for parts in split)) for b in range(n)]
    found = [runner.result(handle) for handle in reduced]
    for handle in [*reduced, *(h for parts in split for h in parts), *handles]:
        runner.release(handle)
    return tuple(np.concatenate([f[k] for f in found]) for k in range(kinds))
