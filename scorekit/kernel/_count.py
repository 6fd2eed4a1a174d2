"""``count``: partitions scored into shards → the :class:`~scorekit._tally.Counted` every
engine's scorecard is decided from (SPEC §16).

1. **keys** (:func:`~._shard.keys`): per partition, its digests, problems, agents, judges and
   evaluators; its identity hashes (:func:`~._shard.identities`) stay where it is.
2. **candidates** (only when a hash repeats, :mod:`._repeated`, :func:`~._judge.judge`): the few
   rows whose identity hash repeats, or whose (case, dimension) has two definition hashes, are
   judged exactly by the row rules.
3. **counts** (:func:`~._judge.mark`, then :func:`~._counting.counts`): the rows found are marked
   invalid where they are; each partition reduces to its counts.
4. **split run groups** (:func:`~._counting.run_totals`): a (dimension, run, case) group with rows
   in two partitions is counted once.
5. **evidence** (:func:`~._shard.segment`): the evidence rows, a partition at a time, streamed into
   the ``evidence/`` dataset; or, when the shards are here (``runner.local``), put together on demand.

The numbers do not depend on the partitioning: each partition's part is exact and merges exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import pandas as pd

from .._counts import STATUSES, case_counts_from, flat_case_counts
from .._evidence import EvidenceStore
from .._findings import merge_finding_groups
from .._hashing import packed_list_hash
from .._partial import add_counts, merge_agreement, orphan_digests
from .._spool import Spool
from .._tally import LABELS, Counted, Tally, control_order
from ._counting import counts, merge_cases, run_totals
from ._judge import judge, mark
from ._repeated import find_repeated
from ._runner import InProcess, Runner, run_all
from ._shard import Keys, Shard, defined_pairs, digests, identities, keys, segment
from ._table import evidence_schema, segments

__all__ = ["count", "in_memory_hash", "tally_frame"]

ListHash = Callable[[Iterable[np.ndarray]], str]


def in_memory_hash(digests: Iterable[np.ndarray]) -> str:
    """:func:`~scorekit._hashing.packed_list_hash` of (n, 32) digest arrays (one array: no copy)."""
    arrays = list(digests)
    packed = arrays[0] if len(arrays) == 1 else np.concatenate([np.zeros((0, 32), np.uint8), *arrays])
    return packed_list_hash(np.ascontiguousarray(packed).reshape(-1).data)


def _one_ahead(runner: Runner, step: Callable[..., Any], shards: list[Any], *args: Any) -> Iterator[Any]:
    """``step(shard, *args)`` of each shard in turn, the next one asked for while this one is used:
    the client holds one partition's result at a time."""
    ahead = [runner.submit(step, shard, *args) for shard in shards[:1]]
    for i in range(len(shards)):
        if i + 1 < len(shards):
            ahead.append(runner.submit(step, shards[i + 1], *args))
        handle = ahead.pop(0)
        yield runner.result(handle)
        runner.release(handle)


def _hashed(runner: Runner, shards: list[Any], name: str, list_hash: ListHash) -> str:
    """The list hash of the shards' digests ``name``, streamed a partition at a time (here, the
    digests are let go once hashed)."""
    hashed = list_hash(_one_ahead(runner, digests, shards, name))
    if runner.local:
        for shard in shards:
            setattr(shard, name, b"")
    return hashed


def _on_lines(lines: set[int], *problems: list[Any]) -> list[list[Any]]:
    """Each list of ``problems`` cut to those on ``lines`` (a partition's marked rows read their details
    from them), so a partition is not sent every other one's problems."""
    return [[p for p in each if p.line in lines] for each in problems]


def _tally(runner: Runner, marked: list[Any], parts: list[Any], rows: int) -> Tally:
    """Steps 3 and 4 merged: the :class:`~scorekit._tally.Tally` of the partitions' counts."""
    cases = merge_cases(parts)
    numbers = cases[list(STATUSES)].to_numpy(dtype=np.int64) if len(cases) else np.zeros((0, 4), dtype=np.int64)
    dimensions, case_ids = (cases["dimension"], cases["case_id"]) if len(cases) else ([], [])
    case_counts = case_counts_from(dimensions, case_ids, numbers)
    groups = case_counts.groups.index
    return Tally(
        labels={label: sum(p.labels[label] for p in parts) for label in LABELS},
        unlabeled=sorted((row for p in parts for row in p.unlabeled), key=lambda row: row[0]),
        controls=sorted((c for p in parts for c in p.controls), key=control_order),
        dimensions=[str(name) for name in groups], cases=case_counts,
        runs=run_totals(runner, marked, parts, cases, groups, rows),
        findings=merge_finding_groups(p.findings for p in parts),
        per_case=flat_case_counts(dimensions, case_ids, numbers),
    )


def tally_frame(evidence: pd.DataFrame) -> Tally:
    """The :class:`~scorekit._tally.Tally` of an evidence frame with an ``included`` column: the frame
    counted as one partition by the kernel's rules (what the engines count is counted here)."""
    shard = Shard(source="", strict=True, counting=evidence, definitions=None, spool=Spool(), evidence_digests=b"")
    return _tally(InProcess(), [shard], [counts(shard)], len(evidence))


def _store(runner: Runner, marked: list[Any], found: list[Keys], evidence_hash: str, threshold: int
           ) -> EvidenceStore:
    """Step 5: the evidence of the marked shards."""
    rows = sum(k.rows for k in found)
    evaluators = sorted(set().union(*(k.evaluators for k in found)))
    if runner.local or not rows:  # the shards are here: the evidence put together on demand
        def parts() -> Iterator[pd.DataFrame]:
            if not marked:  # the typed empty table (Parquet read back would lose the categories)
                return segments(pd.DataFrame(), Spool(), True)
            return itertools.chain.from_iterable(segments(s.counting, s.spool, s.strict) for s in marked)

        return EvidenceStore.deferred(parts, rows=rows, evaluators=evaluators, evidence_hash=evidence_hash,
                                      threshold=threshold)

    def fill(writer: Any) -> None:
        for table in _one_ahead(runner, segment, marked):
            writer.write(table)

    return EvidenceStore.written(fill, schema=evidence_schema(), rows=rows, evaluators=evaluators,
                                 evidence_hash=evidence_hash, threshold=threshold)


def count(runner: Runner, shards: list[Any], *, source: str, threshold: int,
          list_hash: ListHash = in_memory_hash) -> Counted:
    """The :class:`~scorekit._tally.Counted` of the partitions scored into ``shards`` (handles,
    in any order): steps 1 to 5 of the module docstring. ``shards`` is emptied: a scored shard
    that was marked is let go once its marked copy is counted. ``list_hash`` hashes the results
    and evidence digests (a sort on disk where they may not fit in memory)."""
    found = run_all(runner, keys, shards)
    order = sorted(range(len(shards)), key=lambda i: found[i].first)
    scored, found = [shards[i] for i in order], [found[i] for i in order]
    shards.clear()
    rows = sum(k.rows for k in found)
    # A case that only rows without a definition measure in every partition joins the suite (SPEC §2).
    undefined = set().union(*(k.orphans for k in found))
    if undefined:
        undefined -= set().union(*run_all(runner, defined_pairs, scored, undefined))
    results_hash = _hashed(runner, scored, "result_digests", list_hash)
    repeated = find_repeated(runner, identities, scored, 3, rows)
    marks, duplicate_problems, conflict_problems = judge(runner, scored, repeated, source)
    problems = [p for k in found for p in k.problems] + duplicate_problems + conflict_problems
    marked = [runner.submit(mark, shard, *marks[i][:2], *_on_lines(marks[i][2], duplicate_problems,
                                                                     conflict_problems)) if i in marks
              else shard for i, shard in enumerate(scored)]
    parts = run_all(runner, counts, marked)
    del scored  # the marked copies are counted: the shards as scored may go
    evidence_hash = _hashed(runner, marked, "evidence_digests", list_hash)
    tally = _tally(runner, marked, parts, rows)
    suite = b"".join(k.suite for k in found) + bytes.fromhex("".join(orphan_digests(undefined)))
    hashes = {"suite": packed_list_hash(suite, unique=True), "results": results_hash, "evidence": evidence_hash}
    agents: dict[str | None, int] = {}
    agreement: dict[str, dict[tuple[int, int], int]] = {}
    for k in found:
        add_counts(agents, k.agents)
        merge_agreement(agreement, k.agreement)
    store = _store(runner, marked, found, hashes["evidence"], threshold)
    return Counted(source=source, tally=tally, hashes=hashes, store=store, problems=problems, agents=agents,
                   judges_seen=set().union(*(k.judges_seen for k in found)),
                   mock_judges=set().union(*(k.mock_judges for k in found)),
                   partial_rows=sum(k.partial_rows for k in found), agreement=agreement)

