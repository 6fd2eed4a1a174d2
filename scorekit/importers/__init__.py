"""Other tools' results in (SPEC §15).

Each format has a private module here exposing the same two functions (and, where a format reads a
directory layout from one of its files, a third)::

    FORMAT: str                                  # the --from name, e.g. "inspect"
    def detect(path: Path) -> bool               # by content, never by file name alone
    def read(path: Path) -> list[ImportedRun]    # a file, or a directory where the format has them
    def claims(path: Path) -> set[Path]          # optional: the files of a layout read from ``path``
                                                 # (a directory walk does not note them as skipped)

:data:`FORMATS` maps each ``--from`` name to its module; modules are imported only when used.
"""

from __future__ import annotations

from ._run import SOURCE_STATUSES, ImportedRun, ImportedRuns

__all__ = ["FORMATS", "ImportedRun", "ImportedRuns", "SOURCE_STATUSES", "import_results"]

#: ``--from`` name → private module (imported lazily by the reader).
FORMATS: dict[str, str] = {
    "inspect": "scorekit.importers._inspect",
    "promptfoo": "scorekit.importers._promptfoo",
    "tau": "scorekit.importers._tau",
    "openai-evals": "scorekit.importers._openai_evals",
    "assevra": "scorekit.importers._assevra",
}


def __getattr__(name: str) -> object:
    """``import_results`` (imported on first use: it needs the registry above)."""
    if name == "import_results":
        from ._read import import_results

        return import_results
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
