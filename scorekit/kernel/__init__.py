"""The counting kernel (SPEC §16): partitions of scored rows → the counts a scorecard is decided from.

An engine supplies partitions, each scored into a :class:`Shard` (:func:`open_shard`), and a
:class:`Runner`; :func:`count` reduces each shard where it is, merges exactly in any order and
puts together the :class:`~scorekit._tally.Counted`. The evidence table is defined here once
(:mod:`._table`). The kernel never imports ``scorekit.engines`` or ``scorekit._evaluate``.
"""

from __future__ import annotations

from ._count import count, in_memory_hash, tally_frame
from ._runner import InProcess, Runner
from ._shard import Shard, open_shard
from ._table import EVIDENCE_COLUMNS, evidence_frame, evidence_schema, insert_included

__all__ = ["EVIDENCE_COLUMNS", "InProcess", "Runner", "Shard", "count", "evidence_frame", "evidence_schema",
           "in_memory_hash", "insert_included", "open_shard", "tally_frame"]
