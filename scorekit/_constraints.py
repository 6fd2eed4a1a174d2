"""Constraints declared as data, and the one validator that checks them.

A constraint says what a value must be — ``Interval(0, 1, closed="neither")``,
``Integral(min=1)``, ``OneOf("point", "wilson_lower")``, ``Boolean()``,
``Text()``, ``Optional(...)``, and for documents ``Section({...})``,
``MapOf(...)``, ``ListOf(...)`` — as scikit-learn's ``validate_params`` declares
its parameters. Two entry points check values against them and raise
:class:`~scorekit._errors.InvalidParameterError` with one line naming the place
and the bad value:

* :func:`validate` checks a Python argument, shown as Python spells it::

      confidence must be a finite number in (0, 1); got 1.5

* :func:`check_document` checks a parsed document (the policy), naming the
  dotted key path and the value as the user wrote it in YAML or JSON::

      gate.thresholds.pii: must be a finite number in [0, 1]; got 1.5

A constraint returns the value normalised (a number as ``float``, an integer as
``int``, a list of names as a sorted tuple); a ``Section`` may build an object
from its checked keys (``build=Gate``), so a whole document is checked and built
by one call.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, NoReturn

from ._errors import InvalidParameterError
from ._io import finite_float

__all__ = [
    "MAX_SAFE_INT",
    "Boolean",
    "Constraint",
    "Either",
    "Integral",
    "Interval",
    "ListOf",
    "MapOf",
    "OneOf",
    "Optional",
    "Section",
    "Text",
    "check_document",
    "is_integer",
    "join_path",
    "show_value",
    "validate",
]

#: Integers beyond ±(2^53−1) do not survive a round trip through JSON tools.
MAX_SAFE_INT = 2**53 - 1

_SHOWN_DIGITS = 30  # a longer integer is described by its length in messages


def show_value(value: Any) -> str:
    """The offending value as the user wrote it (YAML/JSON spelling where it differs from Python's).

    Examples
    --------
    >>> show_value(True), show_value(None), show_value("prod"), show_value(10**40), show_value([1])
    ('true', 'null', "'prod'", 'an integer of about 41 digits', 'a list')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value if len(value) <= 60 else value[:57] + "..."
        return repr(text)
    if isinstance(value, numbers.Integral):
        if abs(int(value)) >= 10**_SHOWN_DIGITS:  # repr would be a screenful (or beyond Python's digit limit)
            return f"an integer of about {int(math.log10(abs(int(value)))) + 1} digits"
        return repr(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    if isinstance(value, numbers.Number):
        return repr(value)
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a value of type {type(value).__name__}"


def join_path(path: str, key: Any) -> str:
    """``path.key`` (a key that is not a string is shown as the user wrote it)."""
    text = key if isinstance(key, str) else show_value(key)
    return f"{path}.{text}" if path else text


class _Style(NamedTuple):
    """How a message shows a value and joins the place to the reason."""

    show: Callable[[Any], str]
    separator: str
    null: str


_ARGUMENT = _Style(repr, " ", "None")
_DOCUMENT = _Style(show_value, ": ", "null")


def is_integer(value: Any) -> bool:
    """An integer of any kind (Python, NumPy), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


# --------------------------------------------------------------------------- constraints
class Constraint:
    """What a value must be. Subclasses define :meth:`describe` and :meth:`is_satisfied_by`
    (and :meth:`convert`), or override :meth:`check` for containers."""

    #: Words before "must be" in the message ("dimension name must be a non-empty string").
    subject: str | None = None

    def describe(self, style: _Style) -> str:
        """What the value must be, as the message says it ("a finite number in [0, 1])."""
        raise NotImplementedError

    def is_satisfied_by(self, value: Any) -> bool:
        raise NotImplementedError

    def convert(self, value: Any) -> Any:
        """The accepted value, normalised."""
        return value

    def check(self, value: Any, path: str, style: _Style) -> Any:
        """``value`` normalised, or :class:`InvalidParameterError` naming ``path``."""
        if not self.is_satisfied_by(value):
            self.fail(value, path, style)
        return self.convert(value)

    def fail(self, value: Any, path: str, style: _Style, reason: str | None = None) -> NoReturn:
        if reason is None:
            must = f"{self.subject} must be" if self.subject else "must be"
            reason = f"{must} {self.describe(style)}; got {style.show(value)}"
        raise InvalidParameterError(f"{path}{style.separator}{reason}" if path else reason, path=path, reason=reason)


_CLOSED = {"both": ("[", "]"), "left": ("[", ")"), "right": ("(", "]"), "neither": ("(", ")")}


@dataclass(frozen=True)
class Interval(Constraint):
    """A finite real number (not a bool) between ``low`` and ``high`` (``None``: unbounded above).

    ``closed`` is ``"both"``, ``"left"``, ``"right"`` or ``"neither"``. The value
    is returned as a ``float``.
    """

    low: float
    high: float | None = None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.closed not in _CLOSED:
            raise ValueError(f"closed must be one of {', '.join(_CLOSED)}; got {self.closed!r}")

    def describe(self, style: _Style) -> str:
        lo, hi = _CLOSED[self.closed]
        if self.high is None:
            return f"a finite number {'>=' if lo == '[' else '>'} {_fmt(self.low)}"
        return f"a finite number in {lo}{_fmt(self.low)}, {_fmt(self.high)}{hi}"

    def is_satisfied_by(self, value: Any) -> bool:
        x = finite_float(value)
        if x is None:
            return False
        lo, hi = _CLOSED[self.closed]
        above = x >= self.low if lo == "[" else x > self.low
        below = self.high is None or (x <= self.high if hi == "]" else x < self.high)
        return above and below

    def convert(self, value: Any) -> float:
        return float(value)


@dataclass(frozen=True)
class Integral(Constraint):
    """An integer (not a bool) ``>= min`` and ``<= max`` (``None``: unbounded), returned as ``int``.

    With ``max=MAX_SAFE_INT`` the bound is not spelt out unless it is broken
    ("an integer >= 1 and <= 2^53-1"): it only keeps a value exact in JSON.
    """

    min: int
    max: int | None = None

    def describe(self, style: _Style) -> str:
        if self.max is None or self.max == MAX_SAFE_INT:
            return f"an integer >= {self.min}"
        return f"an integer in [{self.min}, {self.max}]"

    def is_satisfied_by(self, value: Any) -> bool:
        return is_integer(value) and self.min <= value and (self.max is None or value <= self.max)

    def check(self, value: Any, path: str, style: _Style) -> int:
        if is_integer(value) and value >= self.min and self.max is not None and value > self.max:
            beyond = " and <= 2^53-1" if self.max == MAX_SAFE_INT else ""
            self.fail(value, path, style, f"must be {self.describe(style)}{beyond}; got {style.show(value)}")
        return int(super().check(value, path, style))


class OneOf(Constraint):
    """One of the given strings."""

    def __init__(self, *choices: str) -> None:
        self.choices = tuple(choices)

    def describe(self, style: _Style) -> str:
        return f"one of {', '.join(self.choices)}"

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and value in self.choices


class Boolean(Constraint):
    """``true`` or ``false`` (a real bool, not 0/1 or "yes")."""

    def describe(self, style: _Style) -> str:
        return "true or false"

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, bool)


@dataclass(frozen=True)
class Text(Constraint):
    """A string with something besides white space in it.

    ``subject`` names what the string is in the message ("judge name must be a
    non-empty string"); ``what`` is how the message describes it.
    """

    subject: str | None = None
    what: str = "a non-empty string"

    def describe(self, style: _Style) -> str:
        return self.what

    def is_satisfied_by(self, value: Any) -> bool:
        return isinstance(value, str) and bool(value.strip())


@dataclass(frozen=True)
class Optional(Constraint):
    """``None`` (YAML/JSON ``null``), or a value meeting ``inner``."""

    inner: Constraint

    def describe(self, style: _Style) -> str:
        return f"{style.null} or {self.inner.describe(style)}"

    def is_satisfied_by(self, value: Any) -> bool:
        return value is None or self.inner.is_satisfied_by(value)

    def convert(self, value: Any) -> Any:
        return None if value is None else self.inner.convert(value)


# --------------------------------------------------------------------------- containers (documents)
@dataclass(frozen=True)
class Section(Constraint):
    """A mapping with known keys, each checked by its constraint.

    An unknown key is an error naming it; ``required`` keys must be present
    (``missing`` is the message). Keys are checked in the order of ``fields``,
    or in the document's order with ``document_order``. ``null`` stands for an
    empty section unless ``null_is_empty`` is false. ``build`` turns the checked
    keys (a dict of the keys present) into the value returned.
    """

    fields: Mapping[str, Constraint]
    required: tuple[str, ...] = ()
    missing: str = "missing"
    what: str = "a mapping"
    subject: str | None = None
    null_is_empty: bool = True
    document_order: bool = False
    build: Callable[[dict[str, Any]], Any] | None = None

    def describe(self, style: _Style) -> str:
        return self.what

    def check(self, value: Any, path: str, style: _Style) -> Any:
        if value is None and self.null_is_empty:
            value = {}
        if not isinstance(value, Mapping):
            self.fail(value, path, style)
        for key in value:
            if not (isinstance(key, str) and key in self.fields):
                self.fail(value, join_path(path, key), style,
                          f"unknown key (expected one of: {', '.join(self.fields)})")
        for name in self.required:
            if name not in value:
                self.fail(value, join_path(path, name), style, self.missing)
        names = list(value) if self.document_order else [name for name in self.fields if name in value]
        out = {name: self.fields[name].check(value[name], join_path(path, name), style) for name in names}
        return self.build(out) if self.build is not None else out


@dataclass(frozen=True)
class MapOf(Constraint):
    """A mapping of any keys meeting ``key`` (a bad key is named at the mapping's
    own path) to values meeting ``value``; ``null`` is empty."""

    key: Constraint
    value: Constraint
    build: Callable[[dict[str, Any]], Any] | None = None

    def describe(self, style: _Style) -> str:
        return "a mapping"

    def check(self, value: Any, path: str, style: _Style) -> Any:
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            self.fail(value, path, style)
        out: dict[Any, Any] = {}
        for key, item in value.items():
            name = self.key.check(key, path, style)
            out[name] = self.value.check(item, join_path(path, name), style)
        return self.build(out) if self.build is not None else out


@dataclass(frozen=True)
class ListOf(Constraint):
    """A list of items meeting ``item`` (each named ``path[i]``), returned sorted without repeats.

    ``what`` describes the list in the message. With ``distinct`` (a noun) a
    repeated item is an error ("duplicate judge name 'a'"); without it repeats
    merge. ``single`` (a test such as :func:`is_integer`): a value passing it
    alone stands for a list of it. ``null`` is empty unless ``null_is_empty`` is
    false; ``non_empty`` refuses an empty list.
    """

    item: Constraint
    what: str
    distinct: str | None = None
    single: Callable[[Any], bool] | None = None
    null_is_empty: bool = True
    non_empty: bool = False

    def describe(self, style: _Style) -> str:
        return self.what

    def check(self, value: Any, path: str, style: _Style) -> tuple[Any, ...]:
        if value is None and self.null_is_empty:
            return ()
        if self.single is not None and self.single(value):
            value = [value]
        if not isinstance(value, (list, tuple)) or (self.non_empty and not value):
            self.fail(value, path, style)
        seen: set[Any] = set()
        for i, item in enumerate(value):
            checked = self.item.check(item, f"{path}[{i}]", style)
            if self.distinct is not None and checked in seen:
                self.fail(checked, f"{path}[{i}]", style, f"duplicate {self.distinct} {style.show(checked)}")
            seen.add(checked)
        return tuple(sorted(seen))


@dataclass(frozen=True)
class Either(Constraint):
    """A rule's name (``rule``), or a mapping checked by ``table`` that sets at least one key.

    A mapping with an unknown key is named by ``table``; any other value,
    an empty mapping included, is described by ``what``.
    """

    rule: Constraint
    table: Section
    what: str = ""

    def describe(self, style: _Style) -> str:
        return self.what

    def check(self, value: Any, path: str, style: _Style) -> Any:
        if self.rule.is_satisfied_by(value):
            return self.rule.convert(value)
        if isinstance(value, Mapping):
            out = self.table.check(value, path, style)
            if out:
                return out
        self.fail(value, path, style)


# --------------------------------------------------------------------------- entry points
def validate(value: Any, name: str, constraint: Constraint) -> Any:
    """Check the argument ``name`` of a public function; return it normalised.

    Raises
    ------
    InvalidParameterError
        ``"<name> must be <what>; got <repr(value)>"`` (both a ValueError and a TypeError).

    Examples
    --------
    >>> validate(0.9, "confidence", Interval(0, 1, closed="neither"))
    0.9
    >>> validate(True, "k", Integral(min=1))
    Traceback (most recent call last):
    ...
    scorekit._errors.InvalidParameterError: k must be an integer >= 1; got True
    """
    return constraint.check(value, name, _ARGUMENT)


def check_document(document: Any, constraint: Constraint, path: str = "") -> Any:
    """Check a parsed document (or one of its values at ``path``); return it normalised or built.

    Raises
    ------
    InvalidParameterError
        ``"<dotted.path>: must be <what>; got <value as written>"``, for the
        first problem in the order the constraints are declared.

    Examples
    --------
    >>> check_document({"min": 2}, Section({"min": Interval(0, 1)}))
    Traceback (most recent call last):
    ...
    scorekit._errors.InvalidParameterError: min: must be a finite number in [0, 1]; got 2
    """
    return constraint.check(document, path, _DOCUMENT)
