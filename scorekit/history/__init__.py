"""Comparable history in SQLite and the regression comparison (SPEC §8, §10).

One record per evaluation: label, agent identity, hashes (suite, policy,
results, evidence), judge identity, scoring version, the final decision, the
measured decision (before the comparison step), the comparison status, the
baseline it was compared with, per-dimension counts (enough to recompute
rates and Wilson bounds) and per-(dimension, case) passes and measured trials
(what the ``paired`` method compares, SPEC §10).

Typical use (what ``scorekit run --history DB --label L [--baseline L]`` does)::

    from scorekit import history
    comparison = history.compare(card, "reports/history.sqlite")
    card = history.with_comparison(card, comparison)   # final decision (SPEC §8)
    history.record(card, "reports/history.sqlite", label="nightly")
    history.pin("reports/history.sqlite", "release-2.0")  # scorekit history pin DB LABEL

Comparability and eligibility (SPEC §10)
    A record is *comparable* with a card when suite hash, policy hash, judge
    identity (sorted names) and scoring version are all equal. It is *eligible*
    as a baseline when its final decision is PASS, or when its measured decision
    is PASS and its own comparison found no comparable baseline (status
    ``missing``: the first run of a suite/policy). A run whose comparison
    regressed never becomes a baseline, even when the comparison was optional
    and left its decision at PASS.

Baseline choice never ratchets (SPEC §10, §18)
    With a baseline label (``baseline_label``, ``--baseline L``, policy
    ``regression.baseline``) the baseline is the latest record with that label,
    which must itself be comparable and eligible (else ``incompatible``).
    Otherwise it is the latest *pinned* comparable eligible record, else the
    *earliest* comparable eligible record: never simply the latest, so an
    unchanged agent run again and again meets the same baseline, a lucky run
    does not raise the bar, and a regressed agent run again stays FAIL. The
    comparison's ``baseline["chosen"]`` says which rule chose it (``label``,
    ``pinned`` or ``earliest``).

Pins
    :func:`pin` (``scorekit history pin DB LABEL``, ``scorekit run ... --pin``)
    pins the latest record of a label; only an eligible record can be pinned
    (a FAIL, a regressed run or a first run whose measured decision was not
    PASS is refused with :class:`scorekit.InputError`, nothing written). Pins are
    kept as the history of releases: pinning a newer record leaves the older
    pins, and the latest pin (``pin_order``) is the default baseline of the runs
    comparable with it; pinning a record again makes it the latest pin.
    :func:`unpin` removes the pins of a label.

Comparison status
    ``not_requested`` no history given and no comparison required;
    ``missing``       no comparable eligible baseline;
    ``incompatible``  the baseline named by label does not exist, or its latest
                      record is not comparable or not eligible;
    ``unusable``      the candidate's results hash equals a recorded run's with a
                      different agent identity (re-scored old output), or a
                      compared dimension has no PASS/FAIL row on one side, or
                      (``paired``) fewer than 2 cases measured in both runs, or
                      a baseline recorded without per-case counts;
    ``regressed``     a dimension regressed (``regression.method``);
    ``passed``        compared, no regression.
    Precedence: regressed, then unusable, then incompatible/missing.

Storage
    stdlib ``sqlite3`` in WAL mode with a busy timeout; every write is one
    ``BEGIN IMMEDIATE`` transaction, so concurrent writers (threads or
    processes) lose nothing and a killed writer leaves the database as it was
    before its transaction. A ``meta`` table identifies the file as a scorekit
    history of a given schema version; anything else (not SQLite, corrupt,
    another application's SQLite, a newer schema) raises
    :class:`scorekit.HistoryError` with a one-line message.

Schema versions and migration
    1: records and per-dimension counts. 2: adds ``records.has_case_counts``
    and the ``cases`` table (per-(dimension, case) ``passes`` and ``n`` of the
    agent rows, counted by :func:`scorekit._counts.count_cases`). 3: adds
    ``records.pinned_at`` (ISO 8601 time) and ``records.pin_order`` (1, 2, …
    in the order of the pins), both NULL for a record that is not pinned. A
    database of an older schema is read as it is (records of schema 1 have no
    per-case counts: a ``paired`` comparison with one cannot run case by case;
    records before schema 3 are not pinned, so the earliest comparable
    eligible one is the default baseline) and is migrated by the first write
    (a record or a pin), inside that write's ``BEGIN IMMEDIATE`` transaction:
    the migration and the record commit together or not at all, and a racing
    writer finds the database already migrated once it gets the lock. A new
    database is created at schema 1 and migrated in the same transaction, so
    both paths build the same schema. Reads see one snapshot (a deferred
    transaction), never half a migration.
"""

from __future__ import annotations

from .._decide import COMPARISON_STATUSES, apply_comparison
from ._baseline import pin, unpin
from ._compare import compare, with_comparison
from ._db import DEFAULT_PATH, SCHEMA_VERSION, dimension_rows, read_history, record

__all__ = [
    "COMPARISON_STATUSES",
    "DEFAULT_PATH",
    "SCHEMA_VERSION",
    "apply_comparison",
    "compare",
    "dimension_rows",
    "pin",
    "read_history",
    "record",
    "unpin",
    "with_comparison",
]
