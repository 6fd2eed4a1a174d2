"""Importer plug-ins (SPEC §15): other distributions' formats, found through entry points.

A distribution adds a format with an entry point in the group ``scorekit.importers``::

    [project.entry-points."scorekit.importers"]
    tiny = "tiny_importer:IMPORTER"

naming an object (a module or an instance) with ``name`` (equal to the entry point's name: the
``--from`` name), ``detect(path) -> bool`` and ``read(path) -> list[ImportedRun]``, and optionally
``claims(path)`` as a built-in format has. ``--from NAME`` and ``auto`` then use it like a built-in
one (built-in formats are asked first). Nothing here runs at ``import scorekit``: the entry points
are looked up the first time a plug-in name is needed (``--from`` a name that is not built in, auto
detection of a file no built-in format recognises, the list of format names), and a plug-in is
loaded the first time it is used.

Fail closed: a plug-in that cannot be loaded, lacks ``name``/``detect``/``read``, whose ``name``
differs from its entry point's, that raises in ``detect`` or ``claims``, raises in ``read`` anything
but an :class:`~scorekit.InputError`, or returns anything but a list of
:class:`~scorekit.importers.ImportedRun` (or ``detect`` anything but a bool) is an
:class:`~scorekit.InputError` of one line naming the plug-in, its distribution and the
exception's message. A plug-in may not take a built-in name (or ``auto``): it is left out with a
warning, and the built-in format keeps the name. Two distributions' plug-ins of one name are
refused when that name is used.
"""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._errors import InputError, NoSamplesError
from ._run import ImportedRun

__all__ = ["GROUP", "Plugin", "plugin", "plugin_names"]

#: The entry-point group a distribution names its importers in.
GROUP = "scorekit.importers"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _distribution(entry: Any) -> str:
    dist = getattr(entry, "dist", None)
    name = getattr(dist, "name", None) if dist is not None else None
    if not name:
        return "distribution unknown"
    version = getattr(dist, "version", None)
    return f"{name} {version}" if version else str(name)


class Plugin:
    """One plug-in importer: its entry point, loaded on first use, with a built-in module's duck type."""

    def __init__(self, name: str, entries: list[Any]) -> None:
        self.name = name
        self.entries = entries
        self._object: Any = None

    @property
    def label(self) -> str:
        """How messages name it: ``importer plug-in 'tiny' (tiny-importer 0.1)``."""
        return f"importer plug-in {self.name!r} ({', '.join(_distribution(e) for e in self.entries)})"

    def load(self) -> Any:
        """The object the entry point names, checked; InputError naming the plug-in when it is not usable."""
        if self._object is not None:
            return self._object
        if len(self.entries) > 1:
            raise InputError(f"{self.label}: {len(self.entries)} distributions install an importer of this name; "
                             "uninstall all but one")
        try:
            found = self.entries[0].load()
        except Exception as exc:  # noqa: BLE001 - whatever a third party's import raises is its failure
            raise InputError(f"{self.label}: failed to load: {_one_line(exc)}") from None
        missing = [attr for attr in ("name", "detect", "read") if not hasattr(found, attr)]
        if missing:
            raise InputError(f"{self.label}: not an importer (it has no {', '.join(missing)})")
        if found.name != self.name:
            raise InputError(f"{self.label}: its name {found.name!r} differs from its entry point's name")
        self._object = found
        return found

    def detect(self, path: Path) -> bool:
        """The plug-in's ``detect``; an exception or a value that is not a bool is an InputError naming it."""
        found = self.load()
        try:
            answer = found.detect(path)
        except Exception as exc:  # noqa: BLE001
            raise InputError(f"{path}: {self.label} failed in detect: {_one_line(exc)}") from None
        if not isinstance(answer, bool):
            raise InputError(f"{path}: {self.label}: detect returned {type(answer).__name__}, not a bool")
        return answer

    def read(self, path: Path) -> list[ImportedRun]:
        """The plug-in's ``read``, its runs checked. Its own InputError passes as it is (a damaged file)."""
        found = self.load()
        try:
            runs = found.read(path)
        except InputError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise InputError(f"{path}: {self.label} failed in read: {_one_line(exc)}") from None
        if not isinstance(runs, list):
            raise InputError(f"{path}: {self.label}: read returned {type(runs).__name__}, not a list of ImportedRun")
        wrong = next((i for i, run in enumerate(runs) if not isinstance(run, ImportedRun)), None)
        if wrong is not None:
            raise InputError(f"{path}: {self.label}: read returned [{wrong}] = {type(runs[wrong]).__name__}, "
                             "not an ImportedRun")
        for i, run in enumerate(runs):
            problem = _run_problem(run)
            if problem:
                raise InputError(f"{path}: {self.label}: read returned [{i}] with {problem}")
        if not runs:
            raise NoSamplesError(f"{path}: {self.label} found no run in it")
        return list(runs)

    def claims(self, path: Path) -> set[Path]:
        """The plug-in's optional ``claims`` (none without one)."""
        found = self.load()
        claims = getattr(found, "claims", None)
        if claims is None:
            return set()
        try:
            return {Path(p) for p in claims(path)}
        except Exception as exc:  # noqa: BLE001
            raise InputError(f"{path}: {self.label} failed in claims: {_one_line(exc)}") from None


def _run_problem(run: ImportedRun) -> str | None:
    """What is wrong with a plug-in's run (its rows are checked later, as every run's are), or None."""
    import pandas as pd

    if not isinstance(run.agent, str) or not run.agent.strip():
        return f"agent {run.agent!r} (expected a non-empty string)"
    if not isinstance(run.task, str) or not run.task.strip():
        return f"task {run.task!r} (expected a non-empty string)"
    if not isinstance(run.rows, pd.DataFrame):
        return f"rows of type {type(run.rows).__name__} (expected a DataFrame)"
    if not isinstance(run.partial, bool):
        return f"partial of type {type(run.partial).__name__} (expected a bool)"
    if not isinstance(run.source, dict):
        return f"source of type {type(run.source).__name__} (expected a dict)"
    return None


def _entry_points() -> Iterable[Any]:
    from importlib.metadata import entry_points  # lazy: importlib.metadata costs an import scorekit does not pay

    return entry_points(group=GROUP)


@functools.lru_cache(maxsize=4)
def _plugins(builtin: tuple[str, ...], path: tuple[str, ...]) -> dict[str, Plugin]:
    """Each plug-in name and its entry points, looked up once per ``sys.path`` (``path``: where the
    installed distributions are found, so a path added later is looked at)."""
    found: dict[str, list[Any]] = {}
    for entry in _entry_points():
        if entry.name in builtin or entry.name == "auto":
            warnings.warn(f"importer plug-in {entry.name!r} ({_distribution(entry)}) is left out: "
                          f"{entry.name!r} is a built-in format name", UserWarning, stacklevel=2)
            continue
        found.setdefault(entry.name, []).append(entry)
    return {name: Plugin(name, entries) for name, entries in sorted(found.items())}


def plugin_names(builtin: Iterable[str]) -> list[str]:
    """The ``--from`` names the installed plug-ins add (those that take a built-in name left out)."""
    return list(_plugins(tuple(builtin), tuple(sys.path)))


def plugin(name: str, builtin: Iterable[str]) -> Plugin | None:
    """The plug-in of ``name``, or None when no installed plug-in has it."""
    return _plugins(tuple(builtin), tuple(sys.path)).get(name)
