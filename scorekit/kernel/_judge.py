"""The cross-row checks (SPEC §2, §5), once for every engine: hashes first, then exactly.

Only the rows of a repeated hash (:mod:`._repeated`) go to the client, which judges them by the
row rules (:mod:`scorekit._validate`); those found are marked invalid where they are (:func:`mark`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .._errors import Problem
from .._hashing import evidence_digest
from .._validate import case_definition_conflicts, duplicate_identities
from ._runner import Runner
from ._shard import Shard, hash_rows, id_hashes, row_texts, valid_trials

__all__ = ["Candidates", "candidates", "judge", "mark", "mark_invalid", "python_values", "rehash"]

Marks = dict[int, tuple[list[int], list[int], set[int]]]  # per shard: duplicate and conflict positions, their lines


def python_values(column: pd.Series) -> list[Any]:
    """``column``'s values as Python objects, None where missing."""
    if isinstance(column.dtype, pd.CategoricalDtype) or column.dtype == bool:
        plain: list[Any] = column.tolist()
        if column.hasnans:  # a missing category reads NaN: None, as for the other columns
            return [None if isinstance(value, float) else value for value in plain]
        return plain
    values: list[Any] = pa.array(column).to_pylist()
    return values


@dataclass
class Candidates:
    """Step 2: rows of one partition the client judges (positions in the partition)."""

    positions: np.ndarray
    lines: list[int]
    ids: list[Any]
    cases: list[Any]
    dimensions: list[Any]
    trials: list[Any]
    valid: list[bool]
    keys: list[bytes | None]
    duplicate: np.ndarray  # bool: a candidate of the identity check
    conflict: np.ndarray  # bool: a candidate of the definition check
    texts: list[bytes | str | None]  # the JSON text of each candidate of the definition check, else None


def candidates(shard: Shard, ids: np.ndarray, trials: np.ndarray, pairs: np.ndarray) -> Candidates:
    """Step 2: the rows whose id hash is in ``ids``, whose (case, dimension, trial) hash (valid
    rows) is in ``trials``, or whose (case, dimension) hash is in ``pairs`` (rows with a
    definition key)."""
    frame = shard.counting
    named = frame["id"].notna().to_numpy()
    valid_trial = valid_trials(frame)
    keyed = shard.keyed
    duplicate = np.zeros(len(frame), dtype=bool)
    if len(ids):
        at = np.flatnonzero(named)
        duplicate[at[np.isin(id_hashes(frame["id"], at), ids)]] = True
    if len(trials):
        duplicate[np.flatnonzero(valid_trial)[np.isin(
            hash_rows(frame.loc[valid_trial, ["case_id", "dimension", "trial"]]), trials)]] = True
    conflict = np.zeros(len(frame), dtype=bool)
    if len(pairs):
        conflict[np.flatnonzero(keyed)[np.isin(hash_rows(frame.loc[keyed, ["case_id", "dimension"]]), pairs)]] = True
    positions = np.flatnonzero(duplicate | conflict)
    rows = frame.iloc[positions]
    texts: list[bytes | str | None] = [None] * len(positions)
    wanted = np.flatnonzero(conflict[positions])
    for k, text in zip(wanted.tolist(), row_texts(shard, positions[wanted].tolist()) if len(wanted) else [],
                       strict=True):
        texts[k] = text
    return Candidates(
        positions=positions, lines=rows["line"].tolist(), ids=python_values(rows["id"]),
        cases=python_values(rows["case_id"]), dimensions=python_values(rows["dimension"]),
        trials=python_values(rows["trial"]), valid=(rows["label"] != "invalid").tolist(),
        keys=shard.definitions.take(positions).to_pylist(), duplicate=duplicate[positions],
        conflict=conflict[positions], texts=texts,
    )


def judge(runner: Runner, shards: list[Any], repeated: tuple[np.ndarray, ...], source: str
          ) -> tuple[Marks, list[Problem], list[Problem]]:
    """Step 2: the rows to mark per shard index (the positions of duplicates and of conflicts, and
    the lines of both), and the duplicate and conflict problems."""
    ids, trials, pairs = repeated
    if not (len(ids) or len(trials) or len(pairs)):
        return {}, [], []
    handles = [runner.submit(candidates, shard, ids, trials, pairs) for shard in shards]
    got = {i: c for i, c in enumerate(runner.result(handle) for handle in handles) if len(c.positions)}
    marks: Marks = {i: ([], [], set()) for i in got}

    def column(name: str, at: list[tuple[int, int]]) -> list[Any]:
        return [getattr(got[i], name)[j] for i, j in at]

    # The identity check, over its candidates in line order (shards are in line order).
    where = [(i, j) for i in got for j in np.flatnonzero(got[i].duplicate).tolist()]
    positions, duplicate_problems = duplicate_identities(
        column("ids", where), column("cases", where), column("dimensions", where), column("trials", where),
        column("valid", where), column("lines", where), source)
    marked = set()
    for p in positions:
        i, j = where[p]
        marks[i][0].append(int(got[i].positions[j]))
        marks[i][2].add(int(got[i].lines[j]))
        marked.add((i, j))
    # The definition check, over its candidates, without the rows just marked.
    where = [(i, j) for i in got for j in np.flatnonzero(got[i].conflict).tolist()]
    keys = [None if (i, j) in marked else got[i].keys[j] for i, j in where]

    def row_of(p: int) -> dict[str, Any]:
        i, j = where[p]
        parsed: dict[str, Any] = json.loads(got[i].texts[j])  # read with the candidates, where the shard is
        return parsed

    conflict, conflict_problems = case_definition_conflicts(
        column("cases", where), column("dimensions", where), keys, column("lines", where), column("ids", where),
        source, row_of)
    for p in np.flatnonzero(conflict).tolist():
        i, j = where[p]
        marks[i][1].append(int(got[i].positions[j]))
        marks[i][2].add(int(got[i].lines[j]))
    # A partition whose candidates were all cleared is not marked (marking copies its columns).
    return {i: m for i, m in marks.items() if m[0] or m[1]}, duplicate_problems, conflict_problems


def rehash(digests: bytearray, evidence: pd.DataFrame, positions: Any, strict: bool) -> None:
    """Recompute the evidence digest (in ``digests``, 32 bytes a row) of rows whose status changed
    after scoring."""
    positions = sorted(set(positions))
    if not positions:
        return
    rows = evidence.iloc[positions]
    names = ("id", "dimension", "case_id", "trial", "status", "reason", "label", "control")
    for pos, (rid, dimension, case, trial, status, reason, label, control) in zip(
        positions, zip(*(python_values(rows[name]) for name in names), strict=True), strict=True
    ):
        digests[32 * pos : 32 * pos + 32] = evidence_digest(
            rid, dimension, case, trial, status, reason, label, control, strict and dimension is not None,
        )


def mark_invalid(evidence: pd.DataFrame, positions: Any, reason: str, problems: Sequence[Problem]) -> None:
    """Rows at ``positions`` become invalid with ``reason``; their detail is their problem (the
    first one of ``problems`` on the row's line)."""
    positions = np.asarray(positions, dtype=np.intp)
    if not len(positions):
        return
    message = {p.line: f"{p.field}: {p.message}" for p in reversed(problems)}
    reasons = evidence["reason"]
    if isinstance(reasons.dtype, pd.CategoricalDtype) and reason not in reasons.cat.categories:
        evidence["reason"] = reasons.cat.add_categories([reason])
    fresh = positions[(evidence["label"].iloc[positions] != "invalid").to_numpy()]
    if len(fresh):
        evidence.iloc[fresh, evidence.columns.get_loc("detail")] = [
            message.get(line) for line in evidence["line"].to_numpy()[fresh].tolist()
        ]
    evidence.iloc[positions, evidence.columns.get_loc("status")] = "ERROR"
    evidence.iloc[positions, evidence.columns.get_loc("reason")] = reason
    evidence.iloc[positions, evidence.columns.get_loc("label")] = "invalid"


def mark(shard: Shard, duplicates: Sequence[int], conflicts: Sequence[int],
         duplicate_problems: Sequence[Problem], conflict_problems: Sequence[Problem]) -> Shard:
    """Step 3: the shard with the rows at ``duplicates`` (``invalid_row``) and ``conflicts``
    (``case_definition_mismatch``) marked invalid (a row's detail becomes its problem), their
    evidence digests computed again. A new shard: the one scored stays as it was (only the
    columns marked are copied)."""
    frame = shard.counting.copy(deep=False)
    digests = bytearray(shard.evidence_digests)
    mark_invalid(frame, list(duplicates), "invalid_row", duplicate_problems)
    mark_invalid(frame, list(conflicts), "case_definition_mismatch", conflict_problems)
    rehash(digests, frame, [*duplicates, *conflicts], shard.strict)
    return Shard(source=shard.source, strict=shard.strict, counting=frame, definitions=shard.definitions,
                 spool=shard.spool, evidence_digests=digests, lines=shard.lines, result_digests=shard.result_digests)
