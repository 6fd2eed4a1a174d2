"""The scored rows of one evaluation: a frame in memory, or an ``evidence/`` dataset (SPEC §16).

Up to ``evidence_rows_in_memory`` rows (default :data:`EVIDENCE_ROWS_IN_MEMORY`)
the rows are ``card.evidence`` and are written as ``evidence.parquet``; an
engine that reduced its rows as they arrived hands over a way to put them
together (:meth:`EvidenceStore.deferred`), so the frame is built only when
``card.evidence`` is first read, and written without it. Above it they are written once, as an ``evidence/``
Parquet dataset in a temporary directory the card owns (removed when the last
card holding it is gone), and ``card.evidence`` raises
:class:`~scorekit.EvidenceNotInMemoryError`; ``card.evidence_dataset()`` reads
the files in both cases. ``card.write(out_dir)`` links (or copies) the files into
``out_dir/evidence/``.

The few facts the scorecard itself needs from the rows (how many, which
evaluators) are taken once, when the store is made, so nothing after
:func:`scorekit.evaluate` reads the rows again to write a number.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from ._constraints import Integral, validate
from ._errors import EvidenceNotInMemoryError

__all__ = ["DATASET_DIR", "EVIDENCE_ROWS_IN_MEMORY", "PARQUET_FILE", "EvidenceStore", "check_threshold"]

#: Above this many rows the evidence is not kept in memory (SPEC §16).
EVIDENCE_ROWS_IN_MEMORY = 10_000_000
#: The evidence beside scorecard.json: one file, or a dataset directory above the threshold.
PARQUET_FILE = "evidence.parquet"
DATASET_DIR = "evidence"

_THRESHOLD = Integral(min=0)


def check_threshold(value: Any) -> int:
    """``evidence_rows_in_memory`` validated: an integer >= 0."""
    checked: int = validate(value, "evidence_rows_in_memory", _THRESHOLD)
    return checked


def _versions() -> dict[str, Any]:
    """What the dataset's metadata says of the library that wrote it (the rest comes with the scorecard)."""
    from ._version import SCHEMA_VERSION, __version__

    return {"schema_version": SCHEMA_VERSION, "scorekit_version": __version__}


class EvidenceStore:
    """Where the scored rows of one evaluation are: in memory or on disk.

    Made by :meth:`deferred` (rows an engine puts together on demand) or
    :meth:`written` (rows an engine streams itself into files). ``rows`` and
    ``evaluators`` are known without reading the rows again.
    """

    def __init__(self, frame: pd.DataFrame | None, *, rows: int, evaluators: list[str], threshold: int,
                 evidence_hash: str | None = None, directory: Path | None = None) -> None:
        self._frame = frame
        self.rows = int(rows)
        self.evaluators = list(evaluators)
        self.threshold = int(threshold)
        self.evidence_hash = evidence_hash  # hashes.evidence, stamped into every file written
        self._directory = directory
        self._owned: Any = None  # the finalizer of a temporary directory this store made
        self._parts: Callable[[], Iterable[pd.DataFrame]] | None = None  # the rows put together, in order

    # ------------------------------------------------------------------ making
    @classmethod
    def deferred(cls, parts: Callable[[], Iterable[pd.DataFrame]], *, rows: int, evaluators: list[str],
                 evidence_hash: str, threshold: int = EVIDENCE_ROWS_IN_MEMORY) -> EvidenceStore:
        """The store of rows an engine puts together on demand: ``parts()`` gives them as
        frames, in order (at least one, maybe empty). Up to ``threshold`` rows the frame is
        built on first use, and written without it; above, the ``evidence/`` dataset is
        written now and ``parts`` let go."""
        store = cls(None, rows=rows, evaluators=evaluators, threshold=threshold, evidence_hash=evidence_hash)
        store._parts = parts
        if not store.in_memory:
            store._spill()
            store._parts = None
        return store

    @classmethod
    def written(cls, fill: Callable[[Any], None], *, schema: Any, rows: int, evaluators: list[str],
                evidence_hash: str, threshold: int = EVIDENCE_ROWS_IN_MEMORY) -> EvidenceStore:
        """The store of rows an engine streams itself: ``fill(writer)`` gives a
        :class:`~scorekit.reports.parquet.PartWriter` of the ``schema`` its ``rows`` rows, in
        order, into a new ``evidence/`` directory (the card's temporary one); up to
        ``threshold`` rows the frame is then read back from it, so it is the frame the
        files hold."""
        from .reports.parquet import PartWriter

        store = cls(None, rows=rows, evaluators=evaluators, threshold=threshold, evidence_hash=evidence_hash)
        with PartWriter(store._temporary(), schema, rows=rows, data=_versions(),
                        evidence_hash=evidence_hash) as writer:
            fill(writer)
        store._directory = writer.directory
        if store.in_memory:
            store._frame = pd.read_parquet(writer.directory)
        return store

    def _temporary(self) -> Path:
        from ._io import owned_temporary_directory

        parent, self._owned = owned_temporary_directory(self, "scorekit-evidence-")
        return parent / DATASET_DIR

    def _spill(self) -> Path:
        from .reports.parquet import write_dataset

        self._directory = write_dataset(self._rows(), self._temporary(), rows=self.rows, data=_versions(),
                                        evidence_hash=self.evidence_hash)
        return self._directory

    def _rows(self) -> Iterable[pd.DataFrame]:
        """The rows as frames, in order: the one frame, or the parts put together now."""
        if self._frame is not None:
            return [self._frame]
        assert self._parts is not None
        return self._parts()

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle or a deep copy holds: below the threshold the frame (built now if it
        is still to be put together), and not this store's temporary files (the copy writes
        its own when asked). Above it, the path of the ``evidence/`` files, which go with
        the original card: ``card.write()`` the rows to keep them."""
        if self._parts is not None and self.in_memory:
            self.frame()
        state = dict(self.__dict__)
        state["_parts"] = None
        if state["_owned"] is not None:
            state["_owned"] = None
            if self._frame is not None:
                state["_directory"] = None
        return state

    # ------------------------------------------------------------------ reading
    @property
    def in_memory(self) -> bool:
        """Whether the rows are (or stay) in memory: at most ``threshold`` of them."""
        return self.rows <= self.threshold

    @property
    def file_name(self) -> str:
        """What the rows are written as beside scorecard.json: ``evidence.parquet`` or ``evidence/``."""
        return PARQUET_FILE if self.in_memory else DATASET_DIR + "/"

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame; :class:`EvidenceNotInMemoryError` above the threshold."""
        if self._frame is None and self._parts is not None and self.in_memory:
            parts = list(self._parts())
            self._frame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
            self._parts = None
        if self._frame is None:
            raise EvidenceNotInMemoryError(
                f"card.evidence: {self.rows:,} evidence rows are above evidence_rows_in_memory "
                f"({self.threshold:,}), so they were written as an evidence/ Parquet dataset and not loaded; "
                "read them with card.evidence_dataset() (a pyarrow Dataset: .to_table(columns=..., filter=...))"
            )
        return self._frame

    def dataset(self) -> Any:
        """The rows as a ``pyarrow.dataset.Dataset`` over Parquet files (written now if need be)."""
        import pyarrow.dataset as ds

        if self._directory is None:
            self._spill()
        assert self._directory is not None
        return ds.dataset(str(self._directory), format="parquet")

    def frames(self, columns: list[str]) -> Iterator[pd.DataFrame]:
        """The rows' ``columns`` (those present) as DataFrames: the one in-memory frame, or
        one frame per record batch of the dataset, so a pass over the rows never holds them all."""
        if self._frame is not None or self._parts is not None:
            for frame in self._rows():
                yield frame[[c for c in columns if c in frame.columns]]
            return
        dataset = self.dataset()
        present = [c for c in columns if c in dataset.schema.names]
        for batch in dataset.to_batches(columns=present):
            yield batch.to_pandas()

    # ------------------------------------------------------------------ writing
    def write(self, out: Path, data: dict[str, Any]) -> Path:
        """Write the rows beside scorecard.json in ``out``: ``evidence.parquet`` or the
        ``evidence/`` dataset (its files linked where the file system allows, else
        copied); the other form, left there by an earlier evaluation, is removed."""
        from ._io import atomic_write_dir
        from .reports.parquet import write_parquet

        if (self._frame is not None or self._parts is not None) and self.in_memory:
            path = write_parquet(self._rows(), out / PARQUET_FILE, rows=self.rows, data=data)
            _remove(out / DATASET_DIR)
            return path
        if self._directory is None:
            self._spill()
        source = self._directory
        assert source is not None

        def fill(tmp: Path) -> None:
            for part in sorted(source.iterdir()):
                try:
                    os.link(part, tmp / part.name)
                except OSError:  # another file system, or no hard links
                    shutil.copyfile(part, tmp / part.name)

        path = atomic_write_dir(out / DATASET_DIR, fill)
        (out / PARQUET_FILE).unlink(missing_ok=True)
        return path


def _remove(path: Path) -> None:
    """Remove the stale ``evidence/`` dataset of an earlier evaluation (only one scorekit wrote)."""
    if path.is_dir() and not path.is_symlink() and all(p.name.startswith("part-") for p in path.iterdir()):
        shutil.rmtree(path)
