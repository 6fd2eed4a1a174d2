"""Partitions counted where they were scored (SPEC §16): no row goes to the client.

The dask engine scores each partition on a worker into a :class:`Shard`, which
stays there. The client only ever receives what the partitions reduce to, and
puts the :class:`~scorekit._tally.Counted` together from it, step by step:

1. **keys** (:func:`keys`): per partition, 64-bit hashes of the row ids, of the
   (case, dimension, trial) of the valid rows, and of the distinct (case,
   dimension) x definition pairs; the results and suite digests; the problems,
   agents, judges and evaluators. 8 bytes a row per identity, 32 per digest.
2. **candidates** (only when a hash repeats, :func:`candidates`): the few rows
   whose identity hash repeats, or whose (case, dimension) has two definition
   hashes, go to the client, which judges them with the pandas engine's own
   rules (:func:`~scorekit._validate.duplicate_identities`,
   :func:`~scorekit._validate.case_definition_conflicts`). A hash collision only
   sends a row to that exact check.
3. **counts** (:func:`mark`, then :func:`counts`): the rows the client marked
   invalid are marked where they are; each partition then reduces to its label
   counts, its unlabeled rows and controls, counts per (dimension, case), per
   (dimension, run) totals, finding groups and evidence digests.
4. **split run groups** (:func:`group_hashes`, then :func:`run_groups` only
   for hashes seen in two partitions): a (dimension, run, case) group with rows
   in two partitions would be counted once in each; its rows' groups come
   back exactly and the totals are corrected. 8 bytes per group first.
5. **evidence** (:func:`segment`): the evidence rows, a partition at a time,
   streamed into the ``evidence/`` dataset.

Every step runs through a :class:`Runner`: dask futures for the dask engine,
plain calls in this process (:class:`InProcess`) for the tests. The numbers are
those of :func:`scorekit._tally.tally_frame` over all the rows, whatever the
partitioning, because each partition's part is exact and merges exactly: sums
add, sets unite, and what would be counted twice (a case split across
partitions) is corrected from its exact groups.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .._counts import FAIL, PASS, STATUSES, case_counts_from, run_totals_from
from .._errors import Problem
from .._findings import FindingGroups, finding_groups, merge_finding_groups
from .._partial import COMPACT, ENCODED, SPOOLED, Partial, merge_agreement, orphan_digests, undefined_pairs
from .._tally import LABELS, Counted, Tally, control_order, row_lists
from .._validate import case_definition_conflicts, duplicate_identities

__all__ = ["InProcess", "Runner", "Shard", "count", "open_shard"]

_RUNS = ("run", "trial")  # the two run bases; which one counts is known only once every partition is counted


class Runner(Protocol):
    """Runs a step on a shard: ``submit`` gives a handle (a dask future), ``result`` its value."""

    def submit(self, function: Callable[..., Any], *args: Any) -> Any: ...

    def result(self, handle: Any) -> Any: ...

    def release(self, handle: Any) -> None: ...


class InProcess:
    """A :class:`Runner` calling each step here and now (tests; a handle is the value)."""

    def submit(self, function: Callable[..., Any], *args: Any) -> Any:
        return function(*args)

    def result(self, handle: Any) -> Any:
        return handle

    def release(self, handle: Any) -> None:
        return None


# --------------------------------------------------------------------------- on the worker
@dataclass
class Shard:
    """One partition's scored rows where they were scored: the compact columns counting
    reads (``counting``, as :func:`scorekit._evaluate._counting` gives them), the definition
    keys, the spooled columns (an Arrow table: ``line`` and :data:`~scorekit._partial.SPOOLED`),
    the evidence digests, and where the partition's lines can be read again (``lines``:
    path, first byte, last byte, first line number; None when ``row_json`` holds every row).
    Plain data, so dask may move or spill it."""

    source: str
    strict: bool
    counting: pd.DataFrame
    definitions: Any
    spooled: Any
    evidence_digests: bytearray
    lines: tuple[str, int, int, int] | None = None
    partial: Partial | None = None  # until keys() has taken what the client needs of it

    @property
    def first(self) -> int:
        """The partition's first line (0 when empty): shards are put in line order by it."""
        return int(self.counting["line"].iloc[0]) if len(self.counting) else 0


def open_shard(part: Partial, strict: bool, lines: tuple[str, int, int, int] | None = None) -> Shard:
    """The :class:`Shard` of a scored partition."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .._evaluate import _counting

    table = part.table()
    part.batches = []
    compact = pa.table({name: pc.dictionary_encode(table.column(name)) if name in ENCODED else table.column(name)
                        for name in COMPACT})
    return Shard(source=part.source, strict=strict, counting=_counting(compact),
                 definitions=compact.column("definition"), spooled=table.select(["line", *SPOOLED]),
                 evidence_digests=part.evidence_digests, lines=lines, partial=part)


def scored_shard(function: Callable[..., Partial], *args: Any) -> Shard:
    """Score a partition with ``function(*args)`` (a partition task of the engines; its last
    argument is ``strict``) and open its shard. A JSON Lines range (:func:`~.local.checked_range`:
    path, start, stop, crc, first line, ...) keeps where its lines are."""
    from .local import checked_range

    lines = (args[0], args[1], args[2], args[4]) if function is checked_range else None
    return open_shard(function(*args), bool(args[-1]), lines)


def _hash(values: pd.Series | pd.DataFrame) -> np.ndarray:
    """64-bit hashes of values (rows of a frame), equal for equal values in any partition."""
    hashed: np.ndarray = pd.util.hash_pandas_object(values, index=False).to_numpy()
    return hashed


def _key_hashes(definitions: Any, keyed: np.ndarray) -> np.ndarray:
    """A 128-bit hash per row of its definition key, as two 64-bit words (0 where it has none): two
    definitions of one case that hashed alike would hide a conflict, so a collision must not be
    within reach of a row author (64 bits are, at about 2**32 tries)."""
    from .._evaluate import _codes

    codes, dictionary = _codes(definitions)
    digests = b"".join(hashlib.blake2b(value, digest_size=16).digest() for value in dictionary.to_pylist())
    table = np.vstack([np.frombuffer(digests, dtype=np.uint64).reshape(-1, 2), np.zeros((1, 2), np.uint64)])
    hashed: np.ndarray = np.where(keyed[:, None], table[codes], np.uint64(0))
    return hashed


@dataclass
class Keys:
    """What step 1 sends the client of one partition (see the module docstring)."""

    first: int
    rows: int
    ids: np.ndarray
    trials: np.ndarray
    definitions: np.ndarray  # (k, 3) distinct (case-dimension hash, definition hash in two words)
    results: bytes
    suite: bytes
    problems: list[Problem]
    agents: dict[str | None, int]
    judges_seen: set[str]
    mock_judges: set[str]
    agreement: dict[str, dict[tuple[int, int], int]]  # units of judge agreement per dimension (SPEC §18)
    evaluators: set[str]
    partial_rows: int  # rows carrying partial_run: true (SPEC §2)
    orphans: set[tuple[str, str]]  # cases of rows taking their case's definition that no row here defines


def _valid_trials(frame: pd.DataFrame) -> np.ndarray:
    """Rows whose (case, dimension, trial) is an identity: valid rows with a trial."""
    mask: np.ndarray = ((frame["label"] != "invalid").to_numpy() & frame["trial"].notna().to_numpy()
                        & frame["dimension"].notna().to_numpy())
    return mask


def keys(shard: Shard) -> Keys:
    """Step 1: the partition's identity hashes, digests and problems."""
    import pyarrow.compute as pc

    part = shard.partial
    assert part is not None
    frame = shard.counting
    named = frame["id"].notna().to_numpy()
    trials = _valid_trials(frame)
    keyed = shard.definitions.is_valid().to_numpy(zero_copy_only=False)
    pairs = np.column_stack([_hash(frame.loc[keyed, ["case_id", "dimension"]]),
                             _key_hashes(shard.definitions, keyed)[keyed]]) if keyed.any() \
        else np.zeros((0, 3), dtype=np.uint64)
    evaluators = {str(e) for e in pc.unique(shard.spooled.column("evaluator")).to_pylist() if e is not None}
    out = Keys(
        first=shard.first, rows=len(frame), ids=_hash(frame.loc[named, "id"]),
        trials=_hash(frame.loc[trials, ["case_id", "dimension", "trial"]]),
        definitions=np.unique(pairs, axis=0), results=bytes(part.result_digests),
        suite=bytes.fromhex("".join(sorted(part.suite_digests))), problems=part.problems, agents=part.agents,
        judges_seen=part.judges_seen, mock_judges=part.mock_judges, agreement=part.agreement, evaluators=evaluators,
        partial_rows=part.partial_rows,
        orphans=undefined_pairs(part.orphans, frame["case_id"], frame["dimension"], keyed),
    )
    shard.partial = None
    return out


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
    from .._evaluate import _python

    frame = shard.counting
    named = frame["id"].notna().to_numpy()
    valid_trial = _valid_trials(frame)
    keyed = shard.definitions.is_valid().to_numpy(zero_copy_only=False)
    duplicate = np.zeros(len(frame), dtype=bool)
    duplicate[np.flatnonzero(named)[np.isin(_hash(frame.loc[named, "id"]), ids)]] = True
    duplicate[np.flatnonzero(valid_trial)[np.isin(_hash(frame.loc[valid_trial, ["case_id", "dimension", "trial"]]),
                                                  trials)]] = True
    conflict = np.zeros(len(frame), dtype=bool)
    conflict[np.flatnonzero(keyed)[np.isin(_hash(frame.loc[keyed, ["case_id", "dimension"]]), pairs)]] = True
    positions = np.flatnonzero(duplicate | conflict)
    rows = frame.iloc[positions]
    definitions = shard.definitions.take(positions).to_pylist()
    return Candidates(
        positions=positions, lines=rows["line"].tolist(), ids=_python(rows["id"]), cases=_python(rows["case_id"]),
        dimensions=_python(rows["dimension"]), trials=_python(rows["trial"]),
        valid=(rows["label"] != "invalid").tolist(), keys=definitions, duplicate=duplicate[positions],
        conflict=conflict[positions], texts=_texts(shard, positions, conflict[positions]),
    )


def _texts(shard: Shard, positions: np.ndarray, wanted: np.ndarray) -> list[bytes | str | None]:
    """:func:`row_texts` of the ``wanted`` ones of ``positions``, None for the others."""
    texts: list[bytes | str | None] = [None] * len(positions)
    at = np.flatnonzero(wanted)
    for k, text in zip(at.tolist(), row_texts(shard, positions[at].tolist()) if len(at) else [], strict=True):
        texts[k] = text
    return texts


def row_texts(shard: Shard, positions: Sequence[int]) -> list[bytes | str]:
    """The JSON text of the partition's rows at ``positions`` (each row's kept text, else its line of
    the file, read once for all of them)."""
    kept = shard.spooled.column("row_json").take(list(positions)).to_pylist()
    if all(text is not None for text in kept):
        return [str(text) for text in kept]
    assert shard.lines is not None
    from .._rows._formats import FileLines

    path, start, stop, first = shard.lines
    with open(path, "rb") as fh:
        fh.seek(start)
        lines = FileLines(fh.read(stop - start))
    numbers = shard.counting["line"].to_numpy()
    return [str(text) if text is not None else lines[int(numbers[p]) - first]
            for text, p in zip(kept, positions, strict=True)]


def defined_pairs(shard: Shard, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Step 1, for rows taking their case's definition: which of ``pairs`` (case, dimension) a row of
    the partition with a definition key defines."""
    keyed = shard.definitions.is_valid().to_numpy(zero_copy_only=False)
    return pairs - undefined_pairs(pairs, shard.counting["case_id"], shard.counting["dimension"], keyed)


def mark(shard: Shard, duplicates: Sequence[int], conflicts: Sequence[int],
         duplicate_problems: Sequence[Problem], conflict_problems: Sequence[Problem]) -> Shard:
    """Step 3: the shard with the rows at ``duplicates`` (``invalid_row``) and ``conflicts``
    (``case_definition_mismatch``) marked invalid as the pandas engine marks them (a row's
    detail becomes its problem), their evidence digests computed again. A new shard: the one
    scored stays as it was."""
    from .._evaluate import _mark_invalid, _rehash

    frame = shard.counting.copy()
    keyed = shard.definitions.is_valid().to_numpy(zero_copy_only=False).copy()
    digests = bytearray(shard.evidence_digests)
    _mark_invalid(frame, keyed, list(duplicates), "invalid_row", duplicate_problems)
    _mark_invalid(frame, keyed, list(conflicts), "case_definition_mismatch", conflict_problems)
    _rehash(digests, frame, [*duplicates, *conflicts], shard.strict)
    return Shard(source=shard.source, strict=shard.strict, counting=frame, definitions=shard.definitions,
                 spooled=shard.spooled, evidence_digests=digests, lines=shard.lines)


def _agent_frame(shard: Shard) -> pd.DataFrame:
    """The partition's agent rows (included, not controls) with what counting reads."""
    from .._counts import agent_rows
    from .._evaluate import _included

    counted = shard.counting[["dimension", "case_id", "trial", "run", "status", "control"]]
    rows = agent_rows(counted.assign(included=_included(shard.counting, shard.strict)))
    rows = rows[["dimension", "case_id", "trial", "run", "status"]]
    status = rows["status"].cat.codes.to_numpy()
    return rows.assign(passed=status == PASS, measured=(status == PASS) | (status == FAIL))


def _run_groups(rows: pd.DataFrame, column: str) -> pd.DataFrame:
    """Per (dimension, run, case) of ``rows`` with a ``column`` value: measured at all, PASS rows,
    PASS + FAIL rows."""
    kept = rows[rows[column].notna()]
    return kept.groupby(["dimension", column, "case_id"], observed=True, sort=False).agg(
        m=("measured", "any"), p=("passed", "sum"), n=("measured", "sum")).reset_index()


@dataclass
class ShardCounts:
    """Step 3: what one partition's rows count."""

    labels: dict[str, int]
    unlabeled: list[tuple[int, Any, Any, Any, Any]]
    controls: list[dict[str, Any]]
    cases: pd.DataFrame  # per (dimension, case): the four status counts and, per run basis, present/measured
    per_run: dict[str, pd.DataFrame]  # per basis, per (dimension, run): m, p, n, c over the partition's groups
    use_run: bool
    trial_missing: set[str]  # dimensions with an agent row without a trial number
    findings: FindingGroups
    evidence: bytes = field(repr=False, default=b"")


def counts(shard: Shard) -> ShardCounts:
    """Step 3: the partition's rows counted (see :class:`ShardCounts`)."""
    frame = shard.counting
    labels, unlabeled, controls = row_lists(frame)
    rows = _agent_frame(shard)
    status = rows["status"].cat.codes.to_numpy()
    per_case = rows[["dimension", "case_id"]].assign(
        **{name: status == code for code, name in enumerate(STATUSES)},
        **{f"{basis}_present": rows[basis].notna().to_numpy() for basis in _RUNS},
        **{f"{basis}_measured": rows[basis].notna().to_numpy() & rows["measured"].to_numpy() for basis in _RUNS},
    )
    sums = {name: "sum" for name in STATUSES}
    flags = {f"{basis}_{kind}": "any" for basis in _RUNS for kind in ("present", "measured")}
    cases = per_case.groupby(["dimension", "case_id"], observed=True, sort=False).agg({**sums, **flags}).reset_index()
    per_run = {}
    for basis in _RUNS:
        groups = _run_groups(rows, basis)
        per_run[basis] = groups.groupby(["dimension", basis], observed=True, sort=False).agg(
            m=("m", "sum"), p=("p", "sum"), n=("n", "sum"), c=("m", "size")).reset_index()
    return ShardCounts(
        labels=labels, unlabeled=unlabeled, controls=controls, cases=_plain(cases),
        per_run={basis: _plain(frame) for basis, frame in per_run.items()},
        use_run=bool(rows["run"].notna().any()),
        trial_missing={str(d) for d in rows.loc[rows["trial"].isna(), "dimension"].unique()},
        findings=finding_groups(frame), evidence=bytes(shard.evidence_digests),
    )


def _plain(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with categorical columns as their values (partitions' categories differ)."""
    return frame.assign(**{name: frame[name].astype(frame[name].cat.categories.dtype)
                           for name in frame.columns if isinstance(frame[name].dtype, pd.CategoricalDtype)})


def group_hashes(shard: Shard, basis: str) -> np.ndarray:
    """Step 4: 64-bit hashes of the partition's (dimension, run, case) groups (``basis``: the run column)."""
    groups = _run_groups(_agent_frame(shard), basis)
    return _hash(groups[["dimension", basis, "case_id"]]) if len(groups) else np.zeros(0, dtype=np.uint64)


def run_groups(shard: Shard, basis: str, hashes: np.ndarray) -> pd.DataFrame:
    """Step 4: the partition's (dimension, run, case) groups whose hash is in ``hashes``, exactly."""
    groups = _run_groups(_agent_frame(shard), basis)
    if not len(groups):
        return _plain(groups)
    return _plain(groups[np.isin(_hash(groups[["dimension", basis, "case_id"]]), hashes)])


def segment(shard: Shard) -> Any:
    """Step 5: the partition's evidence rows as an Arrow table of the evidence schema."""
    import pyarrow as pa

    from .._evaluate import _segments
    from .._spool import Spool
    from ._counted import _evidence_schema

    spool = Spool(budget=1 << 62)  # in memory: the spooled columns already are
    if shard.spooled.num_rows:
        spool.add((shard.source, shard.first), shard.spooled.combine_chunks().to_batches()[0])
    schema = _evidence_schema()
    # A table per frame: a partition's columns come in chunks of BATCH_ROWS rows, which a record batch cannot hold.
    return pa.concat_tables([pa.Table.from_pandas(frame, schema=schema, preserve_index=False)
                             for frame in _segments(shard.counting, spool, shard.strict)])


# --------------------------------------------------------------------------- on the client
def _repeated(parts: Iterable[np.ndarray]) -> np.ndarray:
    """The values occurring more than once across ``parts``."""
    values = np.concatenate([np.zeros(0, dtype=np.uint64), *parts])
    unique, number = np.unique(values, return_counts=True)
    repeated: np.ndarray = unique[number > 1]
    return repeated


def _two_definitions(parts: Iterable[np.ndarray]) -> np.ndarray:
    """The (case, dimension) hashes paired with two definition hashes across ``parts``."""
    pairs = np.unique(np.concatenate([np.zeros((0, 3), dtype=np.uint64), *parts]), axis=0)
    return _repeated([pairs[:, 0]])


def _judge(runner: Runner, shards: list[Any], found: list[Keys], source: str
           ) -> tuple[dict[int, tuple[list[int], list[int], set[int]]], list[Problem], list[Problem]]:
    """Step 2: the rows to mark per shard index (the positions of duplicates and of conflicts, and
    the lines of both), and the duplicate and conflict problems."""
    ids = _repeated(k.ids for k in found)
    trials = _repeated(k.trials for k in found)
    pairs = _two_definitions(k.definitions for k in found)
    if not (len(ids) or len(trials) or len(pairs)):
        return {}, [], []
    hits = [i for i, k in enumerate(found) if np.isin(k.ids, ids).any() or np.isin(k.trials, trials).any()
            or np.isin(k.definitions[:, 0], pairs).any()]
    handles = {i: runner.submit(candidates, shards[i], ids, trials, pairs) for i in hits}
    got = {i: runner.result(handle) for i, handle in handles.items()}
    marks: dict[int, tuple[list[int], list[int], set[int]]] = {i: ([], [], set()) for i in hits}
    # The identity check, over its candidates in line order (shards are in line order).
    where = [(i, j) for i in hits for j in np.flatnonzero(got[i].duplicate).tolist()]
    def column(name: str, at: list[tuple[int, int]]) -> list[Any]:
        return [getattr(got[i], name)[j] for i, j in at]
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
    where = [(i, j) for i in hits for j in np.flatnonzero(got[i].conflict).tolist()]
    keys_ = [None if (i, j) in marked else got[i].keys[j] for i, j in where]

    def row_of(p: int) -> dict[str, Any]:
        import json

        i, j = where[p]
        parsed: dict[str, Any] = json.loads(got[i].texts[j])  # read with the candidates, on the worker
        return parsed

    conflict, conflict_problems = case_definition_conflicts(
        column("cases", where), column("dimensions", where), keys_, column("lines", where), column("ids", where),
        source, row_of)
    for p in np.flatnonzero(conflict).tolist():
        i, j = where[p]
        marks[i][1].append(int(got[i].positions[j]))
        marks[i][2].add(int(got[i].lines[j]))
    # A partition whose candidates were all cleared is not marked (marking copies its columns).
    return {i: m for i, m in marks.items() if m[0] or m[1]}, duplicate_problems, conflict_problems


def _cases(parts: list[ShardCounts]) -> pd.DataFrame:
    """The partitions' per-(dimension, case) rows summed, sorted by (dimension, case)."""
    frames = [p.cases for p in parts if len(p.cases)]
    if not frames:
        return parts[0].cases.iloc[:0] if parts else pd.DataFrame()
    merged = pd.concat(frames, ignore_index=True)
    if len(frames) > 1:
        merged = merged.groupby(["dimension", "case_id"], sort=False).agg(
            {name: ("sum" if name in STATUSES else "any") for name in merged.columns[2:]}).reset_index()
    order = np.lexsort((merged["case_id"].to_numpy(), merged["dimension"].to_numpy()))
    return merged.iloc[order].reset_index(drop=True)


def _runs(runner: Runner, marked: list[Any], parts: list[ShardCounts], cases: pd.DataFrame,
          groups: pd.Index) -> Any:
    """The :class:`~scorekit._counts.RunTotals` of the partitions' counts (step 4 for the
    (dimension, case) pairs counted in more than one partition)."""
    from .._counts import RunTotals

    if not len(groups):
        return RunTotals.without_runs(groups)
    use_run = any(p.use_run for p in parts)
    basis = "run" if use_run else "trial"
    code = {name: i for i, name in enumerate(groups)}
    unbalanced = np.zeros(len(groups), dtype=bool)
    if not use_run:
        for dim in set().union(*(p.trial_missing for p in parts)):
            unbalanced[code[dim]] = True
    frames = [p.per_run[basis] for p in parts if len(p.per_run[basis])]
    per_run = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["dimension", basis, "m", "p", "n", "c"])
    # A (dimension, run, case) group with rows in two partitions is counted in each: its hash repeats
    # across partitions. Those groups come back exactly (a hash collision only brings back more), are
    # taken out and put in once.
    found = _all(runner, group_hashes, marked, basis)
    repeated = _repeated(found)
    hit = [i for i, hashes in enumerate(found) if np.isin(hashes, repeated).any()]
    if hit:
        handles = [runner.submit(run_groups, marked[i], basis, repeated) for i in hit]
        exact = pd.concat([runner.result(handle) for handle in handles], ignore_index=True)
        twice = exact.groupby(["dimension", basis], sort=False).agg(m=("m", "sum"), c=("m", "size"))
        once = exact.groupby(["dimension", basis, "case_id"], sort=False)["m"].any().groupby(
            level=[0, 1], sort=False).agg(["sum", "size"])
        fix = twice.join(once).reset_index()
        per_run = pd.concat([per_run, pd.DataFrame({
            "dimension": fix["dimension"], basis: fix[basis], "m": fix["sum"] - fix["m"], "p": 0, "n": 0,
            "c": fix["size"] - fix["c"]})], ignore_index=True)
    rows: list[tuple[Any, Any, int, int, int, int]] = []
    if len(per_run):
        summed = per_run.groupby(["dimension", basis], sort=True)[["m", "p", "n", "c"]].sum()
        rows = [(str(d), str(r) if use_run else int(r), int(m), int(p), int(n), int(c))
                for (d, r), (m, p, n, c) in zip(summed.index, summed.to_numpy().tolist(), strict=True)]
    dims = cases["dimension"].map(code).to_numpy()
    universe = np.bincount(dims[cases[f"{basis}_measured"].to_numpy(dtype=bool)], minlength=len(groups))
    n_cases = np.bincount(dims[cases[f"{basis}_present"].to_numpy(dtype=bool)], minlength=len(groups))
    return run_totals_from(groups, rows, column=basis, use_run=use_run, unbalanced=unbalanced,
                           universe=universe, n_cases=n_cases)


def _on_lines(lines: set[int], *problems: list[Problem]) -> list[list[Problem]]:
    """Each list of ``problems`` cut to those on ``lines`` (a partition's marked rows read their details
    from them), so a partition is not sent every other one's problems."""
    return [[p for p in each if p.line in lines] for each in problems]


def _all(runner: Runner, step: Callable[..., Any], shards: list[Any], *args: Any) -> list[Any]:
    """``step(shard, *args)`` of every shard, all submitted before any is waited for (they run side by side)."""
    handles = [runner.submit(step, shard, *args) for shard in shards]
    return [runner.result(handle) for handle in handles]


def _packed(items: Iterable[Any], name: str) -> Iterator[np.ndarray]:
    """Each item's digests ``name`` (32 bytes each) as an (n, 32) array, let go as they are taken."""
    for item in items:
        raw = getattr(item, name)
        setattr(item, name, b"")
        yield np.frombuffer(raw, dtype=np.uint8).reshape(-1, 32)


def count(runner: Runner, shards: list[Any], *, source: str, threshold: int) -> Counted:
    """The :class:`~scorekit._tally.Counted` of the partitions scored into ``shards`` (handles,
    in any order): steps 1 to 5 of the module docstring. ``shards`` is emptied: a scored shard
    that was marked is let go once its marked copy is counted."""
    import tempfile
    from pathlib import Path

    from .._evidence import EvidenceStore
    from .._hashing import packed_list_hash
    from ._counted import _evidence_schema
    from ._digests import sorted_list_hash

    found = _all(runner, keys, shards)
    order = sorted(range(len(shards)), key=lambda i: found[i].first)
    scored, found = [shards[i] for i in order], [found[i] for i in order]
    shards.clear()
    # A case that only rows without a definition measure in every partition joins the suite (SPEC §2).
    undefined = set().union(*(k.orphans for k in found))
    if undefined:
        undefined -= set().union(*_all(runner, defined_pairs, scored, undefined))
    with tempfile.TemporaryDirectory(prefix="scorekit-digests-") as work:
        results_hash = sorted_list_hash(Path(work) / "results", _packed(found, "results"))
        marks, duplicate_problems, conflict_problems = _judge(runner, scored, found, source)
        problems = [p for k in found for p in k.problems] + duplicate_problems + conflict_problems
        for k in found:  # what the checks read is no longer needed
            k.ids = k.trials = k.definitions = np.zeros(0, dtype=np.uint64)
        marked = [runner.submit(mark, shard, *marks[i][:2], *_on_lines(marks[i][2], duplicate_problems,
                                                                         conflict_problems)) if i in marks
                  else shard for i, shard in enumerate(scored)]
        parts = _all(runner, counts, marked)
        del scored  # the marked copies are counted: the shards as scored may go
        evidence_hash = sorted_list_hash(Path(work) / "evidence", _packed(parts, "evidence"))
    cases = _cases(parts)
    counts_ = cases[list(STATUSES)].to_numpy(dtype=np.int64) if len(cases) else np.zeros((0, 4), dtype=np.int64)
    case_counts = case_counts_from(cases["dimension"] if len(cases) else [],
                                   cases["case_id"] if len(cases) else [], counts_)
    groups = case_counts.groups.index
    labels = {label: sum(p.labels[label] for p in parts) for label in LABELS}
    tally = Tally(
        labels=labels, unlabeled=sorted((row for p in parts for row in p.unlabeled), key=lambda row: row[0]),
        controls=sorted((c for p in parts for c in p.controls), key=control_order),
        dimensions=[str(name) for name in groups], cases=case_counts,
        runs=_runs(runner, marked, parts, cases, groups), findings=merge_finding_groups(p.findings for p in parts),
    )
    suite = b"".join(k.suite for k in found) + bytes.fromhex("".join(orphan_digests(undefined)))
    hashes = {"suite": packed_list_hash(suite, unique=True),
              "results": results_hash, "evidence": evidence_hash}
    agents: dict[str | None, int] = {}
    agreement: dict[str, dict[tuple[int, int], int]] = {}
    for k in found:
        for agent, n in k.agents.items():
            agents[agent] = agents.get(agent, 0) + n
        merge_agreement(agreement, k.agreement)

    def fill(writer: Any) -> None:
        # One segment ahead: the next partition's rows are put together while these are written.
        ahead = [runner.submit(segment, shard) for shard in marked[:1]]
        for i in range(len(marked)):
            if i + 1 < len(marked):
                ahead.append(runner.submit(segment, marked[i + 1]))
            handle = ahead.pop(0)
            writer.write(runner.result(handle))
            runner.release(handle)

    rows = sum(k.rows for k in found)
    if rows:
        store = EvidenceStore.written(fill, schema=_evidence_schema(), rows=rows,
                                      evaluators=sorted(set().union(*(k.evaluators for k in found))),
                                      evidence_hash=hashes["evidence"], threshold=threshold)
    else:  # the typed empty table (Parquet read back would lose the status and label categories)
        from .._evaluate import _segments
        from .._spool import Spool

        store = EvidenceStore.deferred(lambda: _segments(pd.DataFrame(), Spool(), True), rows=0, evaluators=[],
                                       evidence_hash=hashes["evidence"], threshold=threshold)
    return Counted(source=source, tally=tally, hashes=hashes, store=store, problems=problems, agents=agents,
                   judges_seen=set().union(*(k.judges_seen for k in found)),
                   mock_judges=set().union(*(k.mock_judges for k in found)),
                   partial_rows=sum(k.partial_rows for k in found), agreement=agreement)
