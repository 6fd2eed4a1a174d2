"""The evidence table (SPEC §4, §16), defined once: its columns, their pandas types, its Arrow
schema, and how it is put together from the compact columns (:func:`counting_frame`) and the
spool (:func:`segments`); the duckdb engine casts its SQL rows into :func:`evidence_schema`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._counts import STATUS_DTYPE
from .._partial import ENCODED, LABELS, SPOOLED, schema
from .._spool import Spool

__all__ = ["EVIDENCE_COLUMNS", "LABEL_DTYPE", "codes", "column", "counting_frame", "evidence_frame",
           "evidence_schema", "included", "insert_included", "segments"]

LABEL_DTYPE = pd.CategoricalDtype(list(LABELS))
#: The evidence table's columns, in order, as the compact columns name them (``included`` is
#: inserted before ``line``, :func:`insert_included`).
EVIDENCE_COLUMNS = ("id", "dimension", "case_id", "trial", "status", "reason", "detail", "label", "control", "line",
                    "evaluator", "agent_output", "cost_usd", "latency_ms", "run")


def column(name: str, values: Any) -> Any:
    """Evidence column ``name`` from its Arrow ``values`` (of :func:`scorekit._partial.schema`),
    typed like ``read_rows``: text columns take the Arrow buffers as they are."""
    if name == "status":
        return pd.Categorical.from_codes(values.to_numpy(), dtype=STATUS_DTYPE)
    if name == "label":
        return pd.Categorical.from_codes(values.to_numpy(), dtype=LABEL_DTYPE)
    if name == "trial":
        return pd.array(values, dtype="Int64")
    if name in ("cost_usd", "latency_ms"):
        return pc.fill_null(values, np.nan).to_numpy()
    if name in ("control", "line"):
        return values.to_numpy()
    return pd.array(values, dtype="str")


def evidence_frame(table: Any) -> pd.DataFrame:
    """The evidence table (without ``included``) from the compact columns (a ``pyarrow.Table``
    of :func:`scorekit._partial.schema`)."""
    return pd.DataFrame({name: column(name, table.column(name)) for name in EVIDENCE_COLUMNS})


def _empty(strict: bool) -> pd.DataFrame:
    """The evidence table of no row, typed."""
    frame = evidence_frame(schema().empty_table())
    insert_included(frame, strict)
    return frame


def included(evidence: pd.DataFrame, strict: bool) -> np.ndarray:
    """Which rows are counted in the statistics. Under release every agent row counts:
    invalid/unlabeled ones as ERROR (they lower coverage and can never pass). An
    exploratory scan drops them."""
    has_dimension: np.ndarray = evidence["dimension"].notna().to_numpy(dtype=bool)
    if strict:
        return has_dimension
    labeled: np.ndarray = (evidence["label"] == "labeled").to_numpy(dtype=bool)
    both: np.ndarray = np.logical_and(has_dimension, labeled)
    return both


def insert_included(evidence: pd.DataFrame, strict: bool) -> None:
    """Add ``included`` (:func:`included`) at its place in the evidence table."""
    evidence.insert(9, "included", included(evidence, strict))


def evidence_schema() -> Any:
    """The Arrow schema of the evidence table (pandas metadata included)."""
    return pa.Schema.from_pandas(_empty(True), preserve_index=False)


def codes(values: Any) -> tuple[np.ndarray, Any]:
    """Integer codes (-1 where missing) and the dictionary of a dictionary-encoded Arrow column."""
    unified: Any = pa.table({"v": values}).unify_dictionaries().column("v")
    if not unified.num_chunks:
        return np.zeros(0, dtype=np.int32), pa.array([], unified.type.value_type)
    indices: Any = pa.chunked_array([chunk.indices for chunk in unified.chunks], type=unified.type.index_type)
    return indices.fill_null(-1).to_numpy(), unified.chunk(0).dictionary


def counting_frame(table: Any) -> pd.DataFrame:
    """What the cross-row checks and counting read of a shrunk partial's rows (SPEC §16):
    the evidence columns but the spooled ones, the dictionary-encoded ones as categoricals."""
    frame: dict[str, Any] = {}
    for name in EVIDENCE_COLUMNS:
        if name in SPOOLED:
            continue
        values = table.column(name)
        if name in ENCODED:
            numbers, dictionary = codes(values)
            categories = pd.Index(pd.array(dictionary, dtype="str"))
            frame[name] = pd.Categorical.from_codes(numbers, dtype=pd.CategoricalDtype(categories))
        else:
            frame[name] = column(name, values)
    return pd.DataFrame(frame)


def segments(counting: pd.DataFrame, spool: Spool, strict: bool) -> Iterator[pd.DataFrame]:
    """The evidence table, segment by segment: the (checked) counting columns of each spool
    segment's rows with its spooled columns, in the evidence columns' order."""
    if not spool.segments():
        yield _empty(strict)
    start = 0
    for key, rows in spool.segments():
        batch = spool.batch(key)
        part = counting.iloc[start: start + rows]
        if not np.array_equal(part["line"].to_numpy(), batch.column("line").to_numpy()):  # pragma: no cover - a bug
            raise AssertionError(f"spooled rows of {key} out of step with the counted rows")
        frame: dict[str, Any] = {}
        for name in EVIDENCE_COLUMNS:
            if name in SPOOLED:
                frame[name] = column(name, batch.column(name))
            elif name in ENCODED:
                frame[name] = column(name, pa.array(part[name]).cast(pa.large_string()))
            else:
                frame[name] = part[name].to_numpy() if name in ("control", "line") else part[name].array
        evidence = pd.DataFrame(frame)
        insert_included(evidence, strict)
        yield evidence
        start += rows
    if start != len(counting):  # pragma: no cover - a bug, never the user's data
        raise AssertionError("spooled rows out of step with the counted rows")
