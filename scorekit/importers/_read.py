"""``import_results``: another tool's file or directory → runs (SPEC §15), and ``--from auto`` detection.

The format modules (:data:`~scorekit.importers.FORMATS`) are imported only when used; a module
not present in this installation is skipped. Detection is by content (each module's
``detect``), never by file name alone. A directory is walked here, once for every format: each
file is read by the format that recognises it (a file whose name starts with a dot only when an
asked format names it in its ``HIDDEN_FILES``: DeepEval's ``.deepeval/.latest_test_run.json``);
a log without samples is skipped with a note on the runs that remain, a file no format
recognises is skipped with a note (unless a file read as a whole layout claims it: a module's
optional ``claims(path)``), and a directory left with no run is an input error.

Importer plug-ins (:mod:`~scorekit.importers._plugins`: entry points in the group
``scorekit.importers``) add ``--from`` names after the built-in ones; built-in formats are asked
first, and the entry points are looked up only when a plug-in name is needed.
"""

from __future__ import annotations

import gc
import importlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from .._errors import InputError, NoSamplesError
from ._plugins import Plugin, plugin, plugin_names
from ._run import ImportedRun, ImportedRuns

__all__ = ["FORMATS", "detect_format", "format_names", "import_results", "is_format", "paused_gc", "read_directory"]

#: Each ``--from`` name and its format module (imported only when used). Held here, where it is
#: read, and re-exported by the package, so the package and this module do not import each other.
FORMATS: dict[str, str] = {
    "inspect": "scorekit.importers._inspect",
    "promptfoo": "scorekit.importers._promptfoo",
    "tau": "scorekit.importers._tau",
    "openai-evals": "scorekit.importers._openai_evals",
    "assevra": "scorekit.importers._assevra",
    "lm-eval": "scorekit.importers._lm_eval",
    "deepeval": "scorekit.importers._deepeval",
    "helm": "scorekit.importers._helm",
    "eee": "scorekit.importers._eee",
    "swe-bench": "scorekit.importers._swe_bench",
}


def format_names() -> list[str]:
    """The ``--from`` names (``auto`` not included): the built-in ones, then the installed plug-ins'."""
    return [*FORMATS, *plugin_names(FORMATS)]


def is_format(name: str) -> bool:
    """Whether ``name`` is a ``--from`` name (``auto`` included); a built-in name looks up no plug-in."""
    return name == "auto" or name in FORMATS or plugin(name, FORMATS) is not None


#: A built-in format's module or a plug-in: both have ``detect`` and ``read`` (and may have ``claims``).
Reader = ModuleType | Plugin


def _module(name: str) -> Reader | None:
    """The format module (or plug-in) of ``name``, or None when it is not present in this installation."""
    if name not in FORMATS:
        return plugin(name, FORMATS)
    module = FORMATS[name]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


def _present(names: Sequence[str]) -> list[tuple[str, Reader]]:
    return [(name, m) for name in names if (m := _module(name)) is not None]


def detect_format(path: str | Path, names: Sequence[str] | None = None, *, certain: bool = False) -> str | None:
    """The format (a ``--from`` name) whose module recognises the file ``path`` by content, or None.

    ``certain``: only on evidence no scorekit results file carries (a module's ``certain(path)``
    where it has one, else its ``detect``) — what ``run`` and ``validate`` refuse a file on; only
    the built-in formats are asked then. Without ``names``, plug-ins are asked after the built-in
    formats, and only when none recognises the file.
    """
    path = Path(path)
    if names is None:
        found = detect_format(path, list(FORMATS), certain=certain)
        return found if found is not None or certain else detect_format(path, plugin_names(FORMATS))
    for name, module in _present(list(names)):
        check = getattr(module, "certain", module.detect) if certain else module.detect
        if check(path):
            return name
    return None


def _files(root: Path, hidden: frozenset[str] = frozenset()) -> list[Path]:
    """The files under ``root``; a name starting with a dot only when a format names it (``HIDDEN_FILES``)."""
    return sorted((p for p in root.rglob("*") if p.is_file() and (not p.name.startswith(".") or p.name in hidden)),
                  key=str)


def read_directory(root: Path, names: Sequence[str]) -> list[ImportedRun]:
    """Every run in the files under ``root`` that one of the formats ``names`` recognises.

    Raises
    ------
    InputError
        Nothing under ``root`` could be imported (each skipped file is named).
    """
    from .._progress import progress_bar  # a bar on a terminal only (scorekit import / run --from)

    modules = _present(names)
    runs: list[ImportedRun] = []
    skipped: list[tuple[Path | None, str]] = []  # (a file no format recognises, or None) and the note
    claimed: set[Path] = set()
    # a tool's own hidden file (DeepEval's .deepeval/.latest_test_run.json) is read when its format is asked
    files = _files(root, frozenset(n for _, m in modules for n in getattr(m, "HIDDEN_FILES", ())))
    bar = progress_bar(len(files), "importing")
    for path in files:
        if bar is not None:
            bar.update(1)
        module = next((m for _, m in modules if m.detect(path)), None)
        if module is None:
            skipped.append((path, f"skipped {path}: not a {' or '.join(n for n, _ in modules)} file"))
            continue
        try:
            runs.extend(module.read(path))
        except NoSamplesError as exc:  # its layout's other files are still its own: not noted one by one
            skipped.append((None, f"skipped {exc}"))
        claimed |= _claims(module, path)
    if bar is not None:
        bar.close()
    notes = [note for path, note in skipped if path is None or path not in claimed]
    if not runs:
        why = "; ".join(notes) if notes else "the directory holds no file"
        raise InputError(f"{root}: nothing to import ({why})")
    if notes:
        runs = [_with_notes(run, notes) for run in runs]
    return runs


def _claims(module: Reader, path: Path) -> set[Path]:
    """The files a format's directory layout adds to ``path`` (its module's ``claims``), which are not skipped.

    A format read from one file of a layout (τ²'s ``results.json`` beside ``simulations/``) claims the
    others, so they are not each noted as skipped. A claimed file is still read when a format
    recognises it: a claim only keeps the note of a file no format reads off the runs.
    """
    claims = getattr(module, "claims", None)
    return set() if claims is None else {Path(p) for p in claims(path)}


def _with_notes(run: ImportedRun, notes: list[str]) -> ImportedRun:
    source = dict(run.source)
    source["notes"] = [*source.get("notes", []), *notes]
    return ImportedRun(agent=run.agent, task=run.task, rows=run.rows, partial=run.partial, source=source)


def _check_format(format: Any) -> str:
    if not isinstance(format, str) or not is_format(format):
        known = ["auto", *format_names()]
        raise InputError(f"unknown import format {format!r}; expected one of {', '.join(known)}")
    return format


def import_results(path: str | Path, format: str = "auto") -> ImportedRuns:
    """Another tool's results as runs: one per (agent, task, source log) (SPEC §15).

    Parameters
    ----------
    path : str or os.PathLike
        A results file, or a directory of them.
    format : str
        ``auto`` (detect by content) or one of ``inspect``, ``promptfoo``, ``tau``,
        ``openai-evals``, ``assevra``, ``lm-eval``, ``deepeval``, ``helm``, ``eee``,
        ``swe-bench``, or an installed plug-in's name.
        ``openai-evals``, ``assevra``, or an installed importer plug-in's name.

    Returns
    -------
    ImportedRuns
        A list of :class:`ImportedRun`, shown in Jupyter as one table.

    Raises
    ------
    InputError
        The file cannot be read, is not of ``format`` (under ``auto``: of any format), or holds
        no samples (in a directory such a file is skipped with a note; nothing left is an error).
    """
    fmt = _check_format(format)
    path = Path(path)
    names = format_names() if fmt == "auto" else [fmt]
    if path.is_dir():
        with paused_gc():
            return ImportedRuns(read_directory(path, names))
    if not path.exists():
        raise InputError(f"{path}: no such file")
    if not path.is_file():
        raise InputError(f"{path}: not a regular file, not a results file")
    if fmt == "auto":
        detected = detect_format(path)
        if detected is None:
            raise InputError(f"{path}: not a file of any format scorekit imports ({', '.join(format_names())})")
        fmt = detected
    module = _module(fmt)
    if module is None:
        raise InputError(f"{path}: the {fmt} importer is not available in this installation")
    if not module.detect(path):
        found = detect_format(path)
        hint = f" (it looks like {found}: --from {found})" if found else ""
        raise InputError(f"{path}: not a {fmt} file{hint}")
    with paused_gc():
        runs: list[ImportedRun] = module.read(path)
    return ImportedRuns(runs)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a file's records become rows, as it was after.

    An import builds millions of small dicts and lists that live until it ends (no reference
    cycles among them); each full collection walks all of them, so an import's time grew faster
    than its file (lm-eval, 10k → 100k sample lines: 13.2× the time; paused: 9.8×, and 28% less).
    Reference counting still frees everything as usual; only the cycle search waits.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
