"""Screens over a row's JSON text and value: numbers JSON tools cannot carry, repeated keys.

JSON keeps the last of two equal keys silently, and Python reads ``NaN``,
``Infinity``, ``1e999`` and integers beyond ±(2^53−1) that other tools cannot
represent. Checking every number of 100,000 rows would cost more than reading
them, so the readers screen first:

* :func:`text_is_clean` (and :func:`span_is_clean` over part of a buffer): a
  whole-file test that no number can be NaN/Infinity, overflow or exceed 2^53;
  a clean file skips the per-number walk;
* :func:`bad_numbers`: the exact walk over one row, naming each bad number's
  field (and lone surrogates in text);
* :func:`may_repeat_a_key`: whether a row's text can repeat a key; only then is
  it parsed again strictly (:func:`scorekit._io.loads_strict`) to name the key;
* :func:`has_escaped_surrogate`: a ``\\uD800``-style escape the walk must name;
* :func:`nested_too_deeply`: a row given as values (Parquet, a DataFrame, a list
  of dicts) nesting more than :data:`~scorekit._io.ROW_NESTING` levels, found
  without recursion before any walk over it (text is checked before it is
  parsed, :func:`scorekit._io.nesting_exceeds`).

The optional C helper (``scorekit/_speedups.c``) does the first and third in
one pass each; without it the Python paths give the same answers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

# the C helper (scorekit/_speedups.c); None for the Python path (scorekit/_accel.py)
from .._accel import duplicate_key as _c_duplicate_key
from .._accel import text_is_clean as _c_text_is_clean
from .._io import ROW_NESTING

__all__ = [
    "MAX_SAFE_INT",
    "NESTED_TOO_DEEPLY",
    "bad_numbers",
    "has_escaped_surrogate",
    "may_repeat_a_key",
    "nested_too_deeply",
    "plain_json",
    "span_is_clean",
    "text_is_clean",
]

MAX_SAFE_INT = 2**53 - 1
#: The problem of a row given as values that nests more than ROW_NESTING levels.
NESTED_TOO_DEEPLY = f"nested too deeply (more than {ROW_NESTING} levels of lists and objects)"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def bad_numbers(value: Any, path: str) -> Iterable[tuple[str, str]]:
    """Yield (path, message) for NaN/Infinity, integers beyond ±(2^53−1) and lone
    surrogates, recursively."""
    if isinstance(value, str):
        if not value.isascii() and _LONE_SURROGATE.search(value):
            yield path, "text contains a lone UTF-16 surrogate (not valid Unicode)"
        return
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            yield path, f"{value!r} is not a finite number (NaN/Infinity are not valid JSON)"
    elif isinstance(value, int):
        if abs(value) > MAX_SAFE_INT:
            yield path, f"integer {value} is beyond ±(2^53−1) and cannot be represented exactly"
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and not key.isascii() and _LONE_SURROGATE.search(key):
                yield f"{path}.{key!r}", "key contains a lone UTF-16 surrogate (not valid Unicode)"
            yield from bad_numbers(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from bad_numbers(item, f"{path}[{i}]")
    else:
        yield path, f"expected a JSON value, got a Python {type(value).__name__}"


_PLAIN = frozenset((str, int, float, bool, type(None)))


def plain_json(value: Any) -> tuple[Any, list[tuple[str, str]]]:
    """``value`` with its JSON data as plain Python types, and the (path, message) of each key that is no JSON key.

    A subclass of dict, list, str, int or float (a dict subclass with attributes, an ``OrderedDict``,
    a str enum) becomes its plain value, a tuple a list, a NumPy scalar or array its Python value;
    ``value`` itself is returned when it already is plain (the common case: nothing is copied). What
    JSON cannot hold at all (a set, a date, an object) is left for :func:`bad_numbers` to name; a key
    that is not a string is named here (JSON would turn ``1`` into ``"1"``, a different row).

    Examples
    --------
    >>> from collections import OrderedDict
    >>> plain_json({"a": OrderedDict(b=(1, 2))})
    ({'a': {'b': [1, 2]}}, [])
    >>> plain_json({"a": {1: "x"}})[1]
    [('.a', 'key 1 is not a string (JSON object keys are)')]
    """
    problems: list[tuple[str, str]] = []
    if _is_plain(value):
        return value, problems
    return _plain(value, "", problems), problems


def _is_plain(value: Any) -> bool:
    """Whether ``value`` holds only exact dict (with str keys), list, str, int, float, bool and None: one
    walk without recursion or copies (a row's nesting was bounded before)."""
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return False
            extend(item.values())
        elif kind is list:
            extend(item)
        elif kind not in _PLAIN:
            return False
    return True


def _plain(value: Any, path: str, problems: list[tuple[str, str]]) -> Any:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is dict or isinstance(value, dict):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                if not isinstance(key, str):
                    problems.append((path, f"key {key!r} is not a string (JSON object keys are)"))
                    continue
                key = str(key)
            out[key] = _plain(item, f"{path}.{key}", problems)
        return out
    if kind is list or isinstance(value, (list, tuple)):
        return [_plain(item, f"{path}[{i}]", problems) for i, item in enumerate(value)]
    if type(value).__module__ == "numpy" and hasattr(value, "tolist"):  # np.bool_, np.float32, an array
        return _plain(value.tolist(), path, problems)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value  # no JSON value: bad_numbers names it


def nested_too_deeply(value: Any, limit: int = ROW_NESTING) -> bool:
    """True when ``value`` nests containers (dicts, lists, tuples, NumPy arrays: one level per
    dimension) more than ``limit`` levels deep, ``value`` itself being level 1; without recursion,
    so before any walk that recurses.

    Examples
    --------
    >>> nested_too_deeply({"input": [[1]]}, 3), nested_too_deeply({"input": [[[1]]]}, 3)
    (False, True)
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children, levels = item.values(), 1
        elif isinstance(item, (list, tuple)):
            children, levels = item, 1
        elif type(item).__module__ == "numpy" and getattr(item, "ndim", False):
            children, levels = (item.ravel() if item.dtype == object else ()), item.ndim
        else:
            continue
        if depth + levels - 1 > limit:
            return True
        stack.extend((child, depth + levels) for child in children if not isinstance(child, (str, int, float)))
    return False


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789E", b"000000000e")
_SUSPECT_TEXT = (b"NaN", b"Infinity", b"0" * 16, b"e000", b"e+000")


def span_is_clean(data: bytes, first: int, last: int) -> bool:
    """:func:`text_is_clean` over ``data[first:last]``, 1 MiB at a time (no full copy)."""
    if _c_text_is_clean is not None:
        return _c_text_is_clean(memoryview(data)[first:last])
    step, overlap = 1 << 20, max(map(len, _SUSPECT_TEXT))
    return all(
        text_is_clean(data[start : min(start + step + overlap, last)])
        for start in range(first, last, step)
    )


def text_is_clean(text: bytes) -> bool:
    """True when no number in ``text`` can be NaN/Infinity, overflow, or exceed 2^53.

    A cheap whole-file test (C-speed translate + substring search): a clean file
    skips the per-number checks entirely; a suspicious one (even a false alarm,
    e.g. "NaN" inside a string) takes the exact path that names the field.
    """
    if _c_text_is_clean is not None:
        return _c_text_is_clean(text)
    folded = text.translate(_DIGITS_TO_ZERO)
    return not any(marker in folded for marker in _SUSPECT_TEXT)


# Whitespace between a key and its colon hides the key from the count below.
_SPACED_KEY = re.compile(rb'"[ \t\r]+:')
_CONTAINERS = (dict, list)


def _count_keys(value: Any) -> int:
    """How many object keys ``value`` holds, at every depth."""
    count, stack = 0, [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            count += len(item)
            stack.extend(v for v in item.values() if type(v) in _CONTAINERS)
        else:
            stack.extend(v for v in item if type(v) in _CONTAINERS)
    return count


def may_repeat_a_key(raw: bytes, value: Any) -> bool:
    """False when ``raw`` (the valid JSON text ``value`` was parsed from)
    provably repeats no key in any object; True means "parse again strictly
    to find out" (the strict parse names the key).

    JSON keeps the last of two equal keys silently, so a repeat is seen only in
    the text. The C helper scans the text object by object. Without it: when
    the text has no backslash and no whitespace before a colon, every key is
    written ``"key":`` and nothing else is, so the text repeats a key exactly
    when it has more ``":`` than the parsed value has keys.
    """
    if _c_duplicate_key is not None:
        return _c_duplicate_key(raw) != 0
    if b"\\" in raw or _SPACED_KEY.search(raw):
        return True
    return raw.count(b'":') != _count_keys(value)


_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def has_escaped_surrogate(raw: bytes) -> bool:
    """True when ``raw`` may hold an escaped lone surrogate (``\\ud800``): the walk names it.

    The caller tests ``b"\\u" in raw`` first (most rows have no escape at all).
    """
    return _ESCAPED_SURROGATE.search(raw) is not None
