"""Every exception scorekit raises on purpose, in one place.

``ScorekitError`` is the root. A subclass also derives from the built-in
exception a Python user would expect (``ValueError`` for bad input, also
``TypeError`` for a bad argument), so generic ``except ValueError`` code keeps
working. The tree::

    ScorekitError
    ├── InputError (ValueError) ........... input rows or an input file cannot be used
    │   ├── NoSamplesError ................ another tool's results file that holds no sample (§15)
    │   ├── ScorecardFileError ............ a SCORECARD.md that is not a scorecard file at all
    │   └── ScorecardInvalidError ......... a SCORECARD.md that parsed but breaks the schema
    ├── PolicyError (ValueError) .......... a policy or thresholds manifest is malformed
    ├── InvalidParameterError (ValueError, TypeError)
    │                                       an argument or a policy value breaks its constraint
    ├── SignatureError .................... a signature cannot be created or checked
    ├── HistoryError ...................... the history database cannot be used
    ├── EvidenceNotInMemoryError .......... card.evidence above evidence_rows_in_memory (§16)
    ├── ScorecardSchemaError (ValueError) . a scorecard dictionary breaks scorecard.schema.json
    ├── FileProblem ....................... why a file cannot be read (internal; callers word it)
    ├── StoredMismatch .................... a stored number that does not recompute (internal; callers word it)
    ├── StrictJSONError (ValueError) ...... JSON scorekit refuses to read as a document
    │   └── DuplicateKeyError ............. an object with the same key twice
    └── BaselineError ..................... the gate's baseline cannot be resolved (internal)

The public names (``scorekit.InputError``, ``scorekit.PolicyError``,
``scorekit.SignatureError``, ``scorekit.HistoryError``, ``scorekit.ScorekitError``,
``scorekit.release.ScorecardFileError``/``ScorecardInvalidError``,
``scorekit.reports.ScorecardSchemaError``) stay importable where they are
documented; they are these classes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "BaselineError",
    "DuplicateKeyError",
    "EvidenceNotInMemoryError",
    "FileProblem",
    "HistoryError",
    "InputError",
    "InvalidParameterError",
    "NoSamplesError",
    "PolicyError",
    "Problem",
    "ScorecardFileError",
    "ScorecardInvalidError",
    "ScorecardSchemaError",
    "ScorekitError",
    "SignatureError",
    "StoredMismatch",
    "StrictJSONError",
    "one_line",
]


def one_line(text: object) -> str:
    """``text`` with every run of white space (line breaks included) as one space."""
    return " ".join(str(text).split())


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


# --------------------------------------------------------------------------- inputs
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


class NoSamplesError(InputError):
    """Another tool's results file (SPEC §15) that holds no sample to import.

    An input error when the file was named; in a directory such a file is
    skipped with a note, and only a directory left with nothing is an error.
    """


class ScorecardFileError(InputError):
    """The file cannot be used as a scorecard at all.

    Missing, a directory, unreadable, not UTF-8, no front matter, unclosed front
    matter, invalid YAML, or front matter that is not a mapping. ``str(exc)`` is
    one line naming the path and what is wrong.
    """

    def __init__(self, source: str, reason: str) -> None:
        self.source = str(source)
        self.reason = one_line(reason)
        super().__init__(f"{self.source}: {self.reason}")


class ScorecardInvalidError(InputError):
    """A scorecard that parsed but breaks the schema.

    Attributes
    ----------
    problems : list of str
        Every problem found, each ``"field.path: message"``.
    source : str
        The path (or ``"<text>"``) of the card.
    """

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = str(source)
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        first = one_line(problems[0]) if problems else "no problem recorded"
        super().__init__(f"{self.source}: invalid scorecard: {first}{more}")
        # The schema problems are strings ("field.path: message"), not row Problems:
        # the public attribute differs from InputError's on purpose (mypy sees an override).
        self.problems: list[str] = list(problems)  # type: ignore[assignment]  # see the comment above


class PolicyError(ScorekitError, ValueError):
    """A policy file or mapping is malformed (unknown key, bad value)."""


class InvalidParameterError(ScorekitError, ValueError, TypeError):
    """A value breaks the constraint declared for it (see :mod:`scorekit._constraints`).

    Both a ``ValueError`` and a ``TypeError`` (as scikit-learn's
    ``InvalidParameterError``): a wrong type and a value out of range are one
    kind of mistake. ``path`` is the parameter's name or the dotted key path of
    a policy value; ``reason`` the message without it.
    """

    def __init__(self, message: str, *, path: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason or message


# --------------------------------------------------------------------------- outputs and tools
class SignatureError(ScorekitError):
    """A signature cannot be created or checked."""


class HistoryError(ScorekitError):
    """The history database is missing, corrupt or not a scorekit database."""


class EvidenceNotInMemoryError(ScorekitError):
    """``card.evidence`` of an evaluation whose rows are above ``evidence_rows_in_memory`` (SPEC §16).

    The rows were written as an ``evidence/`` Parquet dataset and not built in
    memory; ``card.evidence_dataset()`` reads them. The message is one line
    saying so.
    """


class ScorecardSchemaError(ScorekitError, ValueError):
    """A scorecard dictionary does not match ``scorecard.schema.json``.

    Attributes
    ----------
    errors : list of tuple
        ``(json_path, message)`` for every violation found (``$.dimensions[0].rate``).
    """

    def __init__(self, message: str, errors: list[tuple[str, str]] | None = None) -> None:
        super().__init__(message)
        self.errors: list[tuple[str, str]] = list(errors or [])


class BaselineError(ScorekitError):
    """The release gate's baseline cannot be resolved (the gate reports it: exit 1)."""


# --------------------------------------------------------------------------- files and JSON (internal)
_MIB = 1 << 20


class StoredMismatch(ScorekitError):
    """A field of stored evidence (a scorecard.json, a history record) that disagrees with its own counts.

    Raised by the checks of :mod:`scorekit._stored` and :mod:`scorekit.history._check` (SPEC §20)
    and worded by them into an InputError or a HistoryError naming the file or database.
    ``field`` is the JSON path or the column, ``problem`` what is wrong, ``record`` the history
    record it belongs to (None for a scorecard).
    """

    def __init__(self, field: str, problem: str, record: Any = None) -> None:
        super().__init__(field, problem)
        self.field, self.problem = field, problem
        self.record: Any = record


class FileProblem(ScorekitError):
    """Why a file cannot be read as an input file (raised by :mod:`scorekit._io`).

    ``kind`` is ``missing``, ``directory``, ``special`` (not a regular file:
    ``detail`` says what it is, e.g. "a FIFO"), ``too_large`` (``detail`` is the
    cap in bytes) or ``unreadable`` (``detail`` is the system's reason). Each
    reader turns it into its own error with :meth:`message`.
    """

    def __init__(self, kind: str, detail: str | int = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail != "" else kind)
        self.kind = kind
        self.detail = detail

    def message(self, name: str, what: str) -> str:
        """The one-line message naming the file ``name`` as a ``what``."""
        if self.kind == "missing":
            return f"{name}: {what} not found"
        if self.kind == "directory":
            return f"{name}: is a directory, not a {what}"
        if self.kind == "special":
            return f"{name}: not a regular file ({self.detail}), not a {what}"
        if self.kind == "too_large":
            limit = int(self.detail)
            size = f"{limit // _MIB} MiB" if limit % _MIB == 0 else f"{limit} bytes"
            return f"{name}: too large for a {what} (more than {size})"
        return f"{name}: cannot read {what}: {self.detail}"


class StrictJSONError(ScorekitError, ValueError):
    """The text is JSON Python would accept (or choke on) but scorekit refuses to read.

    ``kind`` says why, for a reader that words it itself: ``duplicate_key``
    (``detail`` is the key), ``constant`` (``NaN``/``Infinity``: ``detail`` is the
    token), ``overflow`` (a number beyond the float range: ``detail`` is its
    text), ``too_long`` (an integer beyond Python's digit limit: ``detail`` is
    Python's message) or ``too_deep``.
    """

    def __init__(self, message: str, kind: str = "", detail: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail


class DuplicateKeyError(StrictJSONError):
    """An object has the same key twice; ``key`` names it."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate object key {key!r}", "duplicate_key", key)
        self.key = key
