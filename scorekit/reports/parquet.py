"""``evidence.parquet`` and the ``evidence/`` dataset: every scored row of an evaluation.

The scorecard JSON holds no rows, only ``hashes.evidence`` — the hash of the
canonical row content (SPEC §10), not of this file's bytes, which carry library
metadata. That hash is also stored in the file's key-value metadata under
:data:`METADATA_KEY`, so a file can be matched to its scorecard. ``pyarrow`` is
imported only here, when the file is written or read.

Rows keep the order of ``Scorecard.evidence``, so ``pd.read_parquet`` gives the
same frame back; filter ``status != "PASS"`` for the failing evidence. Above
``evidence_rows_in_memory`` rows (SPEC §16) the rows are an ``evidence/``
dataset instead (:func:`write_dataset`): files of :data:`PART_ROWS` rows, in
row order, that ``pyarrow.dataset.dataset(path)`` or ``pd.read_parquet(path)`` reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from .._io import atomic_write

__all__ = ["METADATA_KEY", "PART_ROWS", "PartWriter", "part_name", "read_evidence_metadata", "write_dataset",
           "write_parquet"]

#: Key of the scorekit entry in the Parquet file's key-value metadata (JSON value).
METADATA_KEY = b"scorekit"


def _json_cell(value: Any) -> Any:
    if value is None or (isinstance(value, float) and value != value):
        return None
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _to_table(evidence: pd.DataFrame) -> tuple[Any, list[str]]:
    """An Arrow table of the frame; columns Arrow cannot type (mixed objects) become JSON text."""
    import pyarrow as pa

    try:
        return pa.Table.from_pandas(evidence, preserve_index=False), []
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError):
        pass
    frame = evidence.copy()
    encoded = []
    for column in frame.columns:
        try:
            pa.Array.from_pandas(frame[column])
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError):
            frame[column] = frame[column].map(_json_cell).astype("str")
            encoded.append(str(column))
    return pa.Table.from_pandas(frame, preserve_index=False), encoded


def _metadata(table: Any, rows: int, encoded: list[str], data: dict[str, Any] | None,
              evidence_hash: str | None, **extra: Any) -> Any:
    """``table`` with the scorekit key-value metadata (the evidence hash, the row count, the versions)."""
    data = data or {}
    hashes = data.get("hashes") or {}
    meta: dict[str, Any] = {
        "hashes": {"evidence": evidence_hash if evidence_hash is not None else hashes.get("evidence")},
        "rows": int(rows),
        "schema_version": data.get("schema_version"),
        "scorekit_version": data.get("scorekit_version"),
        "generated_at": data.get("generated_at"),
        "decision": data.get("decision"),
        "json_encoded_columns": encoded,
        **extra,
    }
    existing = dict(table.schema.metadata or {})
    existing[METADATA_KEY] = json.dumps(meta, ensure_ascii=False, sort_keys=True).encode("utf-8")
    existing[b"scorekit.hashes.evidence"] = str(meta["hashes"]["evidence"]).encode("ascii", "replace")
    return table.replace_schema_metadata(existing)


def _frames(evidence: pd.DataFrame | Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
    if isinstance(evidence, pd.DataFrame):
        yield evidence
    else:
        yield from evidence


def _tables(evidence: pd.DataFrame | Iterable[pd.DataFrame], rows: int | None,
            writer: str) -> tuple[int, Any, list[str], Iterator[Any]]:
    """The number of rows (``rows``, required for frames), the Arrow schema of the first frame
    of ``evidence`` (a frame, or frames in row order with one set of columns), the columns
    written as JSON text, and every frame as a table of that schema."""
    import pyarrow as pa

    if rows is None:
        if not isinstance(evidence, pd.DataFrame):
            raise TypeError(f"{writer}: rows is required when evidence is an iterable of frames")
        rows = len(evidence)
    frames = _frames(evidence)
    first = next(frames, None)
    if first is None:  # pragma: no cover - a store always gives a frame, maybe empty
        raise ValueError("no evidence frame to write")
    table, encoded = _to_table(first)

    def tables() -> Iterator[Any]:
        yield table
        for number, frame in enumerate(frames, start=2):
            if encoded:
                frame = frame.assign(**{c: frame[c].map(_json_cell).astype("str") for c in encoded})
            try:
                yield pa.Table.from_pandas(frame, schema=table.schema, preserve_index=False)
            except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError) as err:
                raise ValueError(
                    f"evidence frame {number} does not have the first frame's columns and types ({err}); "
                    "concatenate the frames and write one"
                ) from None

    return rows, table.schema, encoded, tables()


def write_parquet(
    evidence: pd.DataFrame | Iterable[pd.DataFrame],
    path: str | Path,
    *,
    rows: int | None = None,
    data: dict[str, Any] | None = None,
    evidence_hash: str | None = None,
) -> Path:
    """Write ``evidence`` to ``path`` atomically with scorekit metadata; return the path.

    Parameters
    ----------
    evidence : DataFrame or iterable of DataFrame
        ``Scorecard.evidence`` (every scored row), or its rows as frames in row order
        (written one after another, never held together).
    rows : int, optional
        The number of rows, when ``evidence`` is frames (else ``len(evidence)``).
    data : dict, optional
        ``Scorecard.to_dict()``: its ``hashes.evidence``, ``schema_version``,
        ``scorekit_version``, ``generated_at`` and ``decision`` go into the metadata.
    evidence_hash : str, optional
        ``hashes.evidence`` when ``data`` is not given.
    """
    import pyarrow.parquet as pq

    rows, arrow_schema, encoded, tables = _tables(evidence, rows, "write_parquet")
    arrow_schema = _metadata(arrow_schema.empty_table(), rows, encoded, data, evidence_hash).schema

    def write(tmp: Path) -> None:
        with pq.ParquetWriter(tmp, arrow_schema) as writer:
            for table in tables:
                writer.write_table(table)

    return atomic_write(path, write)


#: Rows per file of an ``evidence/`` dataset.
PART_ROWS = 1_000_000


def part_name(index: int) -> str:
    """File name of part ``index`` of an ``evidence/`` dataset (names sort in row order)."""
    return f"part-{index:05d}.parquet"


class PartWriter:
    """Writes the parts of one ``evidence/`` dataset (SPEC §16) into the new directory
    ``directory``, from record batches given in row order.

    Rows are cut, in their order, into files of ``part_rows`` rows (default
    :data:`PART_ROWS`) named ``part-00000.parquet``, ``part-00001.parquet``, ...:
    reading the files in name order gives the rows back in order. Every file
    carries the scorekit metadata of the whole dataset (``rows`` is the dataset's,
    known in advance), plus its own ``part`` and ``parts``. A dataset of no row is
    one empty part, so it has a schema. Use as a context manager; :meth:`write`
    each batch.
    """

    def __init__(self, directory: str | Path, schema: Any, *, rows: int, data: dict[str, Any] | None = None,
                 evidence_hash: str | None = None, encoded: list[str] | None = None,
                 part_rows: int | None = None) -> None:
        import pyarrow as pa

        self.directory = Path(directory)
        self.directory.mkdir(parents=False, exist_ok=False)
        self._part_rows = PART_ROWS if part_rows is None else part_rows
        parts = max(1, -(-rows // self._part_rows))
        empty = pa.Table.from_batches([], schema=schema)
        self._schemas = [_metadata(empty, rows, list(encoded or []), data, evidence_hash, part=i, parts=parts).schema
                         for i in range(parts)]
        self._writer: Any = None
        self._written = 0  # parts closed
        self._in_part = 0

    def write(self, batch: Any) -> None:
        """Add ``batch`` (record batch or table of the schema), the rows that follow the ones written."""
        import pyarrow.parquet as pq

        start = 0
        while start < batch.num_rows:
            if self._writer is None:
                self._writer = pq.ParquetWriter(self.directory / part_name(self._written),
                                                self._schemas[self._written])
                self._in_part = 0
            take = min(self._part_rows - self._in_part, batch.num_rows - start)
            self._writer.write(batch.slice(start, take))
            self._in_part += take
            start += take
            if self._in_part == self._part_rows:
                self._writer.close()
                self._writer, self._written = None, self._written + 1

    def close(self) -> Path:
        """Close the last part (or write the one empty part); return the directory."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._writer is not None:
            self._writer.close()
            self._writer, self._written = None, self._written + 1
        if not self._written:
            pq.write_table(pa.Table.from_batches([], schema=self._schemas[0]), self.directory / part_name(0))
        return self.directory

    def __enter__(self) -> PartWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_dataset(
    evidence: pd.DataFrame | Iterable[pd.DataFrame],
    directory: str | Path,
    *,
    rows: int | None = None,
    data: dict[str, Any] | None = None,
    evidence_hash: str | None = None,
    part_rows: int | None = None,
) -> Path:
    """Write ``evidence`` (a frame, or frames in row order with ``rows`` rows in all) as an
    ``evidence/`` dataset (SPEC §16) into the new directory ``directory``: parts of
    ``part_rows`` rows, as :class:`PartWriter` writes them."""
    rows, arrow_schema, encoded, tables = _tables(evidence, rows, "write_dataset")
    with PartWriter(directory, arrow_schema, rows=rows, data=data, evidence_hash=evidence_hash,
                    encoded=encoded, part_rows=part_rows) as writer:
        for table in tables:
            writer.write(table)
    return writer.directory


def read_evidence_metadata(path: str | Path) -> dict[str, Any]:
    """The scorekit metadata of an ``evidence.parquet`` file (``{"hashes": {"evidence": ...}, "rows": ...}``)."""
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    raw = metadata.get(METADATA_KEY)
    if raw is None:
        raise ValueError(f"{path}: not an evidence.parquet written by scorekit (no {METADATA_KEY.decode()} metadata)")
    meta = json.loads(raw.decode("utf-8"))
    if not isinstance(meta, dict):
        raise ValueError(
            f"{path}: not an evidence.parquet written by scorekit ({METADATA_KEY.decode()} is not an object)"
        )
    return meta
