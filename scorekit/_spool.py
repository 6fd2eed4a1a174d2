"""The columns of scored rows that only the evidence reads, held aside (SPEC §16).

As each partial arrives (:func:`scorekit._partial.shrink`), its output, evaluator, cost, latency
and JSON text move into a :class:`Spool`: in memory up to :data:`SPOOL_BYTES`, then Arrow IPC
files read back memory-mapped. A segment is one partial's rows under its key (source, first
line); every partial is a contiguous range, so segments in key order are the rows in order.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

__all__ = ["SPOOL_BYTES", "Spool"]

#: Spooled bytes kept in memory before segments go to disk.
SPOOL_BYTES = 128 * 2**20


class Spool:
    """Segments of spooled columns, by partial key: in memory, then on disk.

    Parameters
    ----------
    budget : int, optional
        Bytes of segments kept in memory (default :data:`SPOOL_BYTES`); a
        segment that would go beyond is written to an Arrow IPC file instead.
    """

    def __init__(self, *, budget: int | None = None) -> None:
        self.budget = int(SPOOL_BYTES if budget is None else budget)
        self._held: dict[tuple[str, int], Any] = {}  # key -> record batch in memory
        self._files: dict[tuple[str, int], Path] = {}  # key -> IPC file of one batch
        self._rows: dict[tuple[str, int], int] = {}
        self._bytes = 0
        self._directory: Path | None = None
        self._owned: Any = None
        self._lock = threading.Lock()  # partials arrive on several threads (engines.local)
        self._order: tuple[list[tuple[tuple[str, int], int]], list[int]] | None = None  # segments, starts
        self._last: tuple[tuple[str, int], Any] | None = None  # the segment value() read last

    def add(self, key: tuple[str, int], batch: Any) -> None:
        """Hold ``batch`` (the spooled columns of the partial ``key``); a second batch of one key (a
        range scored again after its worker was given up) is dropped. A segment is listed once held
        or written whole: a failed write leaves no trace, so the range can be scored again."""
        size = int(batch.nbytes)
        with self._lock:  # one add at a time: a key is never seen before its segment exists
            if key in self._rows:
                return
            if self._bytes + size <= self.budget:
                self._held[key] = batch
                self._bytes += size
            else:
                path = self._folder() / f"segment-{len(self._files):06d}.arrow"
                try:
                    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, batch.schema) as writer:
                        writer.write_batch(batch)
                except BaseException:
                    path.unlink(missing_ok=True)
                    raise
                self._files[key] = path
            self._rows[key] = int(batch.num_rows)
            self._order = None

    def __getstate__(self) -> dict[str, Any]:
        """A spool moves between processes as its segments (a dask shard's spool is in memory;
        a segment on disk is read into the copy)."""
        state = {name: value for name, value in self.__dict__.items()
                 if name not in ("_lock", "_owned", "_directory", "_files", "_last")}
        state["_held"] = {key: self.batch(key) for key in self._rows}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _lock=threading.Lock(), _owned=None, _directory=None, _files={}, _last=None)

    def _folder(self) -> Path:
        if self._directory is None:
            from ._io import owned_temporary_directory

            self._directory, self._owned = owned_temporary_directory(self, "scorekit-spool-")
        return self._directory

    @property
    def on_disk(self) -> int:
        """How many segments were written to disk."""
        return len(self._files)

    def __len__(self) -> int:
        return sum(self._rows.values())

    def segments(self) -> list[tuple[tuple[str, int], int]]:
        """(key, rows) of every segment, in key order (the rows' order)."""
        return list(self._sorted()[0])

    def _sorted(self) -> tuple[list[tuple[tuple[str, int], int]], list[int]]:
        order = self._order
        if order is None:
            with self._lock:
                segments = sorted(self._rows.items())
                order = self._order = (segments, list(itertools.accumulate((n for _, n in segments), initial=0)))
        return order

    def batch(self, key: tuple[str, int]) -> Any:
        """The record batch of segment ``key`` (memory-mapped when on disk)."""
        held = self._held.get(key)
        if held is not None:
            return held
        # No context manager: the batch's buffers keep the mapping alive as long as they are used.
        return pa.ipc.open_file(pa.memory_map(str(self._files[key]))).get_batch(0)

    def batches(self) -> Iterator[Any]:
        """Every segment's record batch, in key order."""
        for key, _ in self.segments():
            yield self.batch(key)

    def value(self, column: str, position: int) -> Any:
        """``column`` of the row at ``position`` in key order (a Python value)."""
        segments, starts = self._sorted()
        at = bisect.bisect_right(starts, position) - 1
        if position < 0 or at >= len(segments):
            raise IndexError(position)
        key = segments[at][0]
        last = self._last
        if last is None or last[0] != key:  # rows read back come in runs: one segment opened per run
            last = self._last = (key, self.batch(key))
        return last[1].column(column)[position - starts[at]].as_py()
