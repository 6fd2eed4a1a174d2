"""One partition's scored rows where they were scored: a :class:`Shard`, and the steps that
read it there (SPEC §16). Each step returns what the partition reduces to, never its rows."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .._errors import Problem
from .._partial import Partial, read_range, release_memory, shrink, undefined_pairs
from .._rows._formats import FileLines
from .._spool import Spool
from ._table import codes, counting_frame, evidence_schema, segments

__all__ = ["Keys", "Shard", "defined_pairs", "digests", "identities", "keys", "open_shard", "row_texts", "segment"]

#: A spool that never writes to disk: a dask shard's spooled columns are plain data dask may move.
IN_MEMORY = 1 << 62


@dataclass
class Shard:
    """One partition's scored rows where they were scored: the compact columns counting
    reads (``counting``, :func:`~._table.counting_frame`), the definition keys, the spooled
    columns (a :class:`~scorekit._spool.Spool`), the evidence digests, and where the
    partition's lines can be read again (``lines``: (path, first byte, last byte, first line
    number), or the lines themselves, line ``k`` at ``k - 1``; None when ``row_json`` holds
    every row). Plain data, so dask may move or spill it."""

    source: str
    strict: bool
    counting: pd.DataFrame
    definitions: Any
    spool: Spool
    evidence_digests: bytearray | bytes
    lines: Any = None
    result_digests: bytearray | bytes = b""
    partial: Partial | None = None  # until keys() has taken what the client needs of it

    @property
    def first(self) -> int:
        """The partition's first line (0 when empty): shards are put in line order by it."""
        return int(self.counting["line"].iloc[0]) if len(self.counting) else 0

    @property
    def keyed(self) -> np.ndarray:
        """Which rows carry a definition key (valid rows that do not take their case's definition)."""
        keyed: np.ndarray = self.definitions.is_valid().to_numpy(zero_copy_only=False)
        return keyed


def open_shard(part: Partial, strict: bool, lines: Any = None) -> Shard:
    """The :class:`Shard` of a scored partition (shrunk into its spool, else into one in memory)."""
    shrink(part, part.spool if part.spool is not None else Spool(budget=IN_MEMORY))
    table = part.table()
    part.batches = []
    return Shard(source=part.source, strict=strict, counting=counting_frame(table),
                 definitions=table.column("definition"), spool=part.spool,
                 evidence_digests=part.evidence_digests, lines=lines, partial=part,
                 result_digests=part.result_digests)


def hash_rows(values: pd.Series | pd.DataFrame) -> np.ndarray:
    """64-bit hashes of values (rows of a frame), equal for equal values in any partition."""
    hashed: np.ndarray = pd.util.hash_pandas_object(values, index=False).to_numpy()
    return hashed


def id_hashes(ids: pd.Series, rows: np.ndarray | None = None) -> np.ndarray:
    """64-bit hashes of the ids (of the ``rows`` given as positions, else all; a missing id hashes as
    None), a chunk of Arrow strings at a time: never a Python string per row of the whole column."""
    arrow = ids.array.__arrow_array__()  # the Arrow strings, no copy
    chunks = arrow.chunks if hasattr(arrow, "chunks") else [arrow]
    hashed = np.concatenate([np.zeros(0, dtype=np.uint64),
                             *(pd.util.hash_array(chunk.to_numpy(zero_copy_only=False)) for chunk in chunks)])
    return hashed if rows is None else hashed[rows]


def definition_pairs(frame: pd.DataFrame, definitions: Any, keyed: np.ndarray) -> np.ndarray:
    """The distinct (case-dimension hash, definition key hash in two words) of the rows with a
    definition key. The key is hashed on 128 bits: two definitions of one case that hashed alike
    would hide a conflict, so a collision must not be within reach of a row author (64 bits are,
    at about 2**32 tries)."""
    if not keyed.any():
        return np.zeros((0, 3), dtype=np.uint64)
    numbers, dictionary = codes(definitions)
    pairs = pd.DataFrame({"pair": hash_rows(frame.loc[keyed, ["case_id", "dimension"]]),
                          "key": numbers[keyed]}).drop_duplicates()
    digests = b"".join(hashlib.blake2b(value, digest_size=16).digest() for value in dictionary.to_pylist())
    words = np.frombuffer(digests, dtype=np.uint64).reshape(-1, 2)
    out = np.column_stack([pairs["pair"].to_numpy(), words[pairs["key"].to_numpy()]])
    return np.unique(out, axis=0)


@dataclass
class Keys:
    """What step 1 sends the client of one partition; never a hash or digest per row (those stay:
    :func:`identities`, :func:`digests`)."""

    first: int
    rows: int
    suite: bytes
    problems: list[Problem]
    agents: dict[str | None, int]
    judges_seen: set[str]
    mock_judges: set[str]
    agreement: dict[str, dict[tuple[int, int], int]]  # units of judge agreement per dimension (SPEC §18)
    evaluators: set[str]
    partial_rows: int  # rows carrying partial_run: true (SPEC §2)
    orphans: set[tuple[str, str]]  # cases of rows taking their case's definition that no row here defines


def valid_trials(frame: pd.DataFrame) -> np.ndarray:
    """Rows whose (case, dimension, trial) is an identity: valid rows with a trial."""
    mask: np.ndarray = ((frame["label"] != "invalid").to_numpy() & frame["trial"].notna().to_numpy()
                        & frame["dimension"].notna().to_numpy())
    return mask


def keys(shard: Shard) -> Keys:
    """Step 1: the partition's digests, problems and what else the client merges."""
    part = shard.partial
    assert part is not None
    frame = shard.counting
    out = Keys(
        first=shard.first, rows=len(frame), suite=bytes(part.suite_packed),
        problems=part.problems, agents=part.agents, judges_seen=part.judges_seen, mock_judges=part.mock_judges,
        agreement=part.agreement, evaluators=part.evaluators, partial_rows=part.partial_rows,
        orphans=undefined_pairs(part.orphans, frame["case_id"], frame["dimension"], shard.keyed),
    )
    shard.partial = None
    return out


def digests(shard: Shard, name: str) -> np.ndarray:
    """The shard's ``name`` digests (``result_digests``, ``evidence_digests``) as an (n, 32) array."""
    return np.frombuffer(getattr(shard, name), dtype=np.uint8).reshape(-1, 32)


def identities(shard: Shard) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 1, kept where the shard is: 64-bit hashes of the row ids, of the (case, dimension,
    trial) of the valid rows, and the distinct (case-dimension hash, definition hash in two
    words) of the rows with a definition key."""
    frame = shard.counting
    found = (id_hashes(frame["id"], np.flatnonzero(frame["id"].notna().to_numpy())),
             hash_rows(frame.loc[valid_trials(frame), ["case_id", "dimension", "trial"]]),
             definition_pairs(frame, shard.definitions, shard.keyed))
    release_memory()  # what hashing allocated goes back before the next step's peak
    return found


def row_texts(shard: Shard, positions: Sequence[int]) -> list[bytes | str]:
    """The JSON text of the partition's rows at ``positions`` (each row's kept text, else its line of
    the file, read once for all of them)."""
    kept = [shard.spool.value("row_json", p) for p in positions]
    if all(text is not None for text in kept):
        return [str(text) for text in kept]
    numbers = shard.counting["line"].to_numpy()
    lines, first = shard.lines, 1
    if isinstance(lines, tuple):
        path, start, stop, first = lines
        lines = FileLines(read_range(path, start, stop, shard.source))
    assert lines is not None
    return [str(text) if text is not None else lines[int(numbers[p]) - first]
            for text, p in zip(kept, positions, strict=True)]


def defined_pairs(shard: Shard, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Step 1, for rows taking their case's definition: which of ``pairs`` (case, dimension) a row of
    the partition with a definition key defines."""
    return pairs - undefined_pairs(pairs, shard.counting["case_id"], shard.counting["dimension"], shard.keyed)


def segment(shard: Shard) -> Any:
    """Step 5: the partition's evidence rows as an Arrow table of the evidence schema."""
    schema = evidence_schema()
    # A table per frame: a partition's columns come in chunks of BATCH_ROWS rows, which a record batch cannot hold.
    return pa.concat_tables([pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
                             for frame in segments(shard.counting, shard.spool, shard.strict)])
