"""One exception hierarchy for everything scorekit raises on purpose.

``ScorekitError`` is the root. The subclasses also derive from the built-in
exception a Python user would expect (``ValueError`` for bad input), so generic
``except ValueError`` code keeps working.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "HistoryError",
    "InputError",
    "PolicyError",
    "Problem",
    "ScorekitError",
    "SignatureError",
]


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with one input row, located as ``file:line: field: message``.

    ``line`` is the 1-based line of a JSON Lines/CSV file, or the 1-based row
    position for a DataFrame, Parquet file or list of dicts. ``field`` is the
    offending field, or ``"row"`` when the whole row is the problem.
    """

    source: str
    line: int
    field: str
    message: str
    row_id: str | None = None

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.field}: {self.message}"


class ScorekitError(Exception):
    """Base class of every error scorekit raises deliberately."""


class InputError(ScorekitError, ValueError):
    """Input rows or an input file cannot be used.

    Attributes
    ----------
    problems : list of Problem
        Every row-level problem found (empty for file-level errors such as a
        missing file).
    """

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.problems: list[Problem] = list(problems or [])


class PolicyError(ScorekitError, ValueError):
    """A policy file or mapping is malformed (unknown key, bad value)."""


class SignatureError(ScorekitError):
    """A signature cannot be created or checked."""


class HistoryError(ScorekitError):
    """The history database is missing, corrupt or not a scorekit database."""
