"""Strict JSON: one place that refuses duplicate keys, NaN/Infinity and unreadable numbers.

Python's ``json`` silently keeps the last of two equal keys; a results row, a
policy or a scorecard with a duplicated key is ambiguous, so every reader of
scorekit passes :func:`unique_object` as ``object_pairs_hook`` and turns
:class:`DuplicateKeyError` into its own message.

:func:`loads_strict` is the whole strict reading of a JSON document that
scorekit signs or verifies (a ``scorecard.json``, a signature envelope): beyond
duplicate keys it refuses ``NaN``/``Infinity``, numbers that overflow to
infinity, integers longer than Python converts (``sys.get_int_max_str_digits``,
4300 digits by default) and nesting deeper than the parser's stack — each as a
:class:`StrictJSONError` with one plain sentence, never a traceback.
"""

from __future__ import annotations

import json
import math
import numbers
import sys
from typing import Any

from ._errors import DuplicateKeyError, StrictJSONError

__all__ = ["DuplicateKeyError", "StrictJSONError", "finite_float", "loads_strict", "unique_object"]


def finite_float(value: Any) -> float | None:
    """``value`` as a finite float, or None: not a real number (a bool is not one),
    NaN/Infinity, or an integer too large for a float (``math.isfinite`` would raise
    OverflowError on it). Every check of a user's number goes through this.

    Examples
    --------
    >>> finite_float(3), finite_float(float("nan")), finite_float(10**400), finite_float(True)
    (3.0, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        x = float(value)
    except OverflowError:  # an integer of 309 or more digits
        return None
    return x if math.isfinite(x) else None


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` building a dict, raising DuplicateKeyError on a repeated key."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKeyError(key)
            seen.add(key)
    return out


def _reject_constant(name: str) -> Any:
    raise StrictJSONError(f"{name} is not a JSON number (non-finite numbers cannot be signed)", "constant", name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(
            f"number {text} overflows to infinity (non-finite numbers cannot be signed)", "overflow", text
        )
    return value


def loads_strict(text: str) -> Any:
    """Parse ``text`` as strict JSON.

    Raises
    ------
    json.JSONDecodeError
        The text is not JSON (it carries the line and column).
    StrictJSONError
        A duplicate key, NaN/Infinity, a number overflowing to infinity, an
        integer with more digits than Python converts, or nesting too deep.

    Examples
    --------
    >>> loads_strict('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> loads_strict('{"a": 1' + '0' * 5000 + '}')
    Traceback (most recent call last):
    ...
    scorekit._errors.StrictJSONError: an integer with more than 4300 digits is too long to read as a number
    """
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          object_pairs_hook=unique_object)
    except (StrictJSONError, json.JSONDecodeError):  # a DuplicateKeyError is a StrictJSONError
        raise
    except RecursionError:
        raise StrictJSONError("nested too deeply", "too_deep") from None
    except ValueError as exc:  # int() refused a literal beyond the interpreter's digit limit
        limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
        raise StrictJSONError(f"an integer with more than {limit} digits is too long to read as a number",
                              "too_long", " ".join(str(exc).splitlines())) from None
