"""Other tools' results in (SPEC §15).

Each format has a private module here exposing the same two functions (and, where a format reads a
directory layout from one of its files, a third)::

    FORMAT: str                                  # the --from name, e.g. "inspect"
    def detect(path: Path) -> bool               # by content, never by file name alone
    def read(path: Path) -> list[ImportedRun]    # a file, or a directory where the format has them
    def claims(path: Path) -> set[Path]          # optional: the files of a layout read from ``path``
                                                 # (a directory walk does not note them as skipped)
    HIDDEN_FILES: tuple[str, ...]                # optional: file names starting with a dot that a
                                                 # directory walk reads (all others are skipped)

:data:`FORMATS` maps each ``--from`` name to its module; modules are imported only when used.
"""

from __future__ import annotations

from ._read import FORMATS, import_results
from ._run import SOURCE_STATUSES, ImportedRun, ImportedRuns

__all__ = ["FORMATS", "ImportedRun", "ImportedRuns", "SOURCE_STATUSES", "import_results"]
