"""The counting kernel (SPEC §16): partitions of scored rows → the counts a scorecard is decided from.

One kernel for every engine. An engine supplies partitions, each scored into a
:class:`Shard` (:func:`open_shard`), and a :class:`Runner` (in process, dask futures);
:func:`count` reduces each shard where it is, merges the reductions exactly and in any
order, and puts together the :class:`~scorekit._tally.Counted`: the cross-row checks
(hash first, then exactly, once), the digests, the counts per (dimension, case), the run
totals and the evidence. The evidence table itself is defined here once
(:data:`EVIDENCE_COLUMNS`, :func:`evidence_frame`, :func:`evidence_schema`).

Layer: the kernel reads the model and the counting rules below it (``_partial``, ``_spool``,
``_counts``, ``_tally``, ``_validate``, ``_hashing``, ``_evidence``); it never imports
``scorekit.engines`` or ``scorekit._evaluate``.
"""

from __future__ import annotations

from ._count import count, in_memory_hash, tally_frame
from ._runner import InProcess, Runner
from ._shard import Shard, open_shard
from ._table import EVIDENCE_COLUMNS, evidence_frame, evidence_schema, insert_included

__all__ = ["EVIDENCE_COLUMNS", "InProcess", "Runner", "Shard", "count", "evidence_frame", "evidence_schema",
           "in_memory_hash", "insert_included", "open_shard", "tally_frame"]
