"""Read result rows into one typed table.

The formats: JSON Lines, a JSON array of row objects, CSV, Parquet, a DataFrame, a list of dicts.

Each row is checked against the field table of SPEC §2. A row that cannot be
normalised (bad JSON, not an object, missing ``id``/``dimension``, duplicate
``id``, unknown status or match mode, NaN/Infinity, integers beyond ±(2^53−1),
wrong types) produces :class:`~scorekit.Problem` entries naming file, line and
field. :func:`read_rows` raises :class:`~scorekit.InputError` listing them all;
the evaluation engine reads the same :class:`RowTable` and classifies such rows
as invalid instead.

Only a source that cannot be read as rows at all (missing, empty, not UTF-8, not
JSON Lines/CSV/Parquet) is a file-level :class:`~scorekit.InputError` with no
problems list.

The package holds one idea per module:

* :mod:`._formats` — the format readers and :func:`open_source` (file-level checks);
* :mod:`._fields` — the field table :data:`FIELDS` (each field's check);
* :mod:`._screens` — the number and duplicate-key screens (with the C helper);
* :mod:`._normalise` — each row checked, the rules across rows, the typed frame.

Files are read through :mod:`scorekit._io` (regular files only, the shared
messages, strict JSON).
"""

from __future__ import annotations

from ._fields import ALIASES, CONTROL_TAGS, FIELDS, MATCH_MODES, NULL_IS_VALUE
from ._formats import FileLines, Source, open_source
from ._normalise import RowTable, read_row_table, read_rows
from ._screens import MAX_SAFE_INT, text_is_clean

__all__ = [
    "ALIASES",
    "CONTROL_TAGS",
    "FIELDS",
    "MATCH_MODES",
    "MAX_SAFE_INT",
    "NULL_IS_VALUE",
    "FileLines",
    "RowTable",
    "Source",
    "open_source",
    "read_row_table",
    "read_rows",
    "text_is_clean",
]
