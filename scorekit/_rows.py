"""Read result rows (JSON Lines, a JSON array of row objects, CSV, Parquet, DataFrame, list of dicts) into one typed table.

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

A ``.json``/``.jsonl`` file is read by its content: one row object per line
(JSON Lines, the fast path), or one JSON array of row objects, pretty-printed
or not (SPEC §2). Each array element is checked exactly as a JSON Lines row
(strict: duplicate keys, NaN/Infinity, unsafe integers), and its problems are
located by the **line the element starts on** (``file:LINE: field: message``),
so an editor jumps to it. A JSON document that is not an array of rows (a
single object, another tool's format such as an Inspect AI log, promptfoo
output or τ-bench results), an empty array or a document with a syntax error
is a file-level error naming what it is.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from ._counts import STATUS_DTYPE, STATUSES
from ._errors import InputError, Problem
from ._files import FileProblem, check_regular, read_bounded
from ._jsonstrict import DuplicateKeyError, unique_object
from .scorers._calls import call_shape_problem

try:  # the C helper (scorekit/_speedups.c); None when it was not built
    from ._speedups import duplicate_key as _c_duplicate_key, text_is_clean as _c_text_is_clean
except ImportError:  # pragma: no cover - a build without a C compiler takes the Python paths
    _c_duplicate_key = _c_text_is_clean = None

__all__ = ["FIELDS", "MATCH_MODES", "RowTable", "read_row_table", "read_rows"]

MAX_SAFE_INT = 2**53 - 1
MATCH_MODES = ("ordered", "exact", "set")
CONTROL_TAGS = frozenset({"known-bad", "negative-example"})


# --------------------------------------------------------------------------- field checks
# Each check returns None when the value is acceptable, else a short message.
def _is_str(v: Any) -> str | None:
    return None if isinstance(v, str) else f"expected a string, got {_kind(v)}"


def _is_nonempty_str(v: Any) -> str | None:
    if not isinstance(v, str):
        return f"expected a string, got {_kind(v)}"
    return None if v.strip() else "must not be empty"


def _is_count(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return f"expected a non-negative integer, got {_kind(v)}"
    return None if v >= 0 else f"must be >= 0, got {v}"


def _is_nonneg_number(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"expected a number, got {_kind(v)}"
    if isinstance(v, float) and not math.isfinite(v):
        return f"{v!r} is not a finite number (NaN/Infinity are not valid JSON)"
    return None if v >= 0 else f"must be >= 0, got {v!r}"


def _is_unit_score(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return f"expected a number in [0, 1], got {_kind(v)}"
    if isinstance(v, float) and not math.isfinite(v):
        return f"{v!r} is not a finite number (NaN/Infinity are not valid JSON)"
    return None if 0 <= v <= 1 else f"must be in [0, 1], got {v!r}"


def _is_run(v: Any) -> str | None:
    if isinstance(v, str):
        return None if v.strip() else "must not be empty"
    if isinstance(v, bool) or not isinstance(v, int):
        return f"expected an integer or a string, got {_kind(v)}"
    return None if v >= 0 else f"must be >= 0, got {v}"


def _is_bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else f"expected true or false, got {_kind(v)}"


def _is_str_list(v: Any) -> str | None:
    if not isinstance(v, list):
        return f"expected a list of strings, got {_kind(v)}"
    for i, item in enumerate(v):
        if not isinstance(item, str):
            return f"item {i}: expected a string, got {_kind(item)}"
    return None


def _is_status(v: Any) -> str | None:
    if v in STATUSES:
        return None
    return f"unknown status {v!r}; expected one of {', '.join(STATUSES)}"


def _is_match(v: Any) -> str | None:
    if v in MATCH_MODES:
        return None
    return f"unknown match mode {v!r}; expected one of {', '.join(MATCH_MODES)}"


def _is_number_or_object(v: Any) -> str | None:
    if isinstance(v, dict) or (isinstance(v, (int, float)) and not isinstance(v, bool)):
        return None
    return f"expected a number or an object, got {_kind(v)}"


def _is_tool_calls(v: Any) -> str | None:
    """A list of calls in a shape real logs use (see :mod:`scorekit.scorers._calls`);
    arguments whose JSON text does not parse are the agent's mistake, not the row's."""
    if not isinstance(v, list):
        return f"expected a list of {{name, arguments}} objects, got {_kind(v)}"
    for i, call in enumerate(v):
        if not isinstance(call, dict):
            return f"item {i}: expected an object, got {_kind(call)}"
        problem = call_shape_problem(call)
        if problem:
            return f"item {i}: {problem}"
    return None


def _is_names_or_calls(v: Any) -> str | None:
    """A list whose items are a name or a {name, arguments?} object (actions, expected calls)."""
    if not isinstance(v, list):
        return f"expected a list, got {_kind(v)}"
    for i, item in enumerate(v):
        if isinstance(item, str):
            continue
        if not isinstance(item, dict):
            return f"item {i}: expected a string or an object, got {_kind(item)}"
        if not isinstance(item.get("name"), str):
            return f"item {i}: 'name' must be a string"
        if "arguments" in item and not isinstance(item["arguments"], dict):
            return f"item {i}: 'arguments' must be an object, got {_kind(item['arguments'])}"
    return None


def _is_forbidden_actions(v: Any) -> str | None:
    if not isinstance(v, list):
        return f"expected a list, got {_kind(v)}"
    for i, item in enumerate(v):
        if isinstance(item, str):
            continue
        if isinstance(item, list) and item and all(isinstance(x, str) for x in item):
            continue
        return f"item {i}: expected an action name or a non-empty list of names"
    return None


def _is_votes(v: Any) -> str | None:
    # Vote *values* are judged at scoring time (an invalid value makes the panel
    # invalid, SPEC §4); only the container shape is a row-level matter.
    if not isinstance(v, list):
        return f"expected a list of vote objects, got {_kind(v)}"
    for i, vote in enumerate(v):
        if not isinstance(vote, dict):
            return f"item {i}: expected an object, got {_kind(vote)}"
    return None


def _is_tool_schemas(v: Any) -> str | None:
    if not isinstance(v, dict):
        return f"expected an object mapping tool names to JSON Schemas, got {_kind(v)}"
    for name, schema in v.items():
        if not isinstance(schema, (dict, bool)):
            return f"tool {name!r}: a JSON Schema must be an object or a boolean"
    return None


def _any(v: Any) -> str | None:
    return None


# Field → check. Fields not listed are kept as they are.
FIELDS: dict[str, Callable[[Any], str | None]] = {
    "id": _is_nonempty_str,
    "dimension": _is_nonempty_str,
    "case_id": _is_nonempty_str,
    "trial": _is_count,
    "status": _is_status,
    "score": _is_unit_score,
    "evaluator": _is_nonempty_str,
    "agent": _is_nonempty_str,
    "run": _is_run,
    "tags": _is_str_list,
    "reason": _is_str,
    "input": _any,
    "context": _any,
    "agent_output": _is_str,
    "tool_calls": _is_tool_calls,
    "agent_actions": _is_names_or_calls,
    "observed_state": _any,
    "usage": _is_number_or_object,
    "cost_usd": _is_nonneg_number,
    "latency_ms": _is_nonneg_number,
    "latency_s": _is_nonneg_number,
    "judge_votes": _is_votes,
    "must_include": _is_str_list,
    "must_not_include": _is_str_list,
    "allowed_tools": _is_str_list,
    "forbidden_tools": _is_str_list,
    "tool_schemas": _is_tool_schemas,
    "expected_tool_calls": _is_names_or_calls,
    "expected_actions": _is_names_or_calls,
    "forbidden_actions": _is_forbidden_actions,
    "match": _is_match,
    "expected_state": _any,
    "canary": _is_nonempty_str,
    "should_refuse": _is_bool,
    "cost_budget_usd": _is_nonneg_number,
    "latency_budget_ms": _is_nonneg_number,
    "judge_criteria": _is_str,
    "pii_allowed": _is_str_list,
}
ALIASES = {"trial_id": "trial"}
_FLOAT_FIELDS = ("cost_usd", "latency_ms", "latency_s", "cost_budget_usd", "latency_budget_ms", "score")
_STR_FIELDS = ("id", "dimension", "case_id", "evaluator", "reason", "agent_output", "canary", "judge_criteria", "agent")
# Fields that are JSON text in a CSV cell (everything structured).
_CSV_JSON_FIELDS = frozenset(
    name for name, check in FIELDS.items() if check not in (_is_str, _is_nonempty_str, _is_status, _is_match)
) - {"trial", *_FLOAT_FIELDS, "should_refuse"}


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
# Fields where JSON null is a value ("None only matches None", SPEC §3), not absence.
NULL_IS_VALUE = frozenset({"expected_state", "observed_state"})


def _bad_numbers(value: Any, path: str) -> Iterable[tuple[str, str]]:
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
            yield from _bad_numbers(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _bad_numbers(item, f"{path}[{i}]")


# --------------------------------------------------------------------------- result
@dataclass
class RowTable:
    """Rows read from one source, before scoring.

    Attributes
    ----------
    frame : DataFrame
        The rows that normalised cleanly, typed (see :func:`read_rows`).
    lines : ndarray of int
        Source line (or 1-based row position) of each row of ``frame``.
    problems : list of Problem
        Every row-level problem, in source order.
    invalid : list of dict
        One record per rejected row: ``line``, and ``id`` / ``dimension`` /
        ``case_id`` when they could be read, so the engine can still list it.
    source : str
        File name (or ``<DataFrame>``/``<rows>``) used in messages.
    """

    frame: pd.DataFrame
    lines: np.ndarray
    problems: list[Problem] = field(default_factory=list)
    invalid: list[dict[str, Any]] = field(default_factory=list)
    source: str = "<rows>"


# --------------------------------------------------------------------------- parsing per format
def _reject_constant(name: str) -> float:
    return float(name.lower().replace("infinity", "inf"))  # checked by _bad_numbers


def _decode(data: bytes, source: str) -> str:
    _check_utf8(data, source)
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")


def _check_utf8(data: bytes, source: str) -> None:
    """Raise InputError unless ``data`` is UTF-8, without building one big string."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 20
    try:
        for start in range(0, len(data), step):
            decoder.decode(data[start : start + step])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        offset = start + exc.start
        raise InputError(f"{source}: not UTF-8 text (byte {offset}: {exc.reason})") from None


_DIGITS_TO_ZERO = bytes.maketrans(b"123456789E", b"000000000e")
_SUSPECT_TEXT = (b"NaN", b"Infinity", b"0" * 16, b"e000", b"e+000")


class FileLines(Sequence[bytes]):
    """The lines of a JSON Lines file, held as one ``bytes`` object plus offsets.

    One large buffer instead of 100,000 small ``bytes`` objects: the parser takes
    a short-lived slice per row, and when the file is dropped its memory goes
    back to the system at once (small objects would pin allocator arenas for
    the rest of the run). Slicing gives a view over the same buffer, so a forked
    worker shares it. Lines are split at b"\\n" exactly as ``bytes.split``.
    """

    __slots__ = ("data", "starts", "ends")

    def __init__(self, data: bytes, starts: np.ndarray | None = None, ends: np.ndarray | None = None) -> None:
        if starts is None or ends is None:
            newlines = _newline_positions(data)
            starts = np.concatenate(([0], newlines + 1))
            ends = np.concatenate((newlines, [len(data)]))
        self.data, self.starts, self.ends = data, starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return FileLines(self.data, self.starts[index], self.ends[index])
        return self.data[self.starts[index] : self.ends[index]]

    def __iter__(self) -> Iterator[bytes]:
        data = self.data
        for start, end in zip(self.starts.tolist(), self.ends.tolist()):
            yield data[start:end]

    def is_clean(self) -> bool:
        """:func:`text_is_clean` over these lines, 1 MiB at a time (no full copy)."""
        if not len(self):
            return True
        first, last = int(self.starts[0]), int(self.ends[-1])
        if _c_text_is_clean is not None:
            return _c_text_is_clean(memoryview(self.data)[first:last])
        step, overlap = 1 << 20, max(map(len, _SUSPECT_TEXT))
        return all(
            text_is_clean(self.data[start : min(start + step + overlap, last)])
            for start in range(first, last, step)
        )


def _newline_positions(data: bytes) -> np.ndarray:
    """Offsets of every b"\\n" in ``data`` (vectorised, 8 MiB at a time)."""
    step = 1 << 23
    found = [
        np.flatnonzero(np.frombuffer(data, dtype=np.uint8, count=min(step, len(data) - start), offset=start) == 10)
        + start
        for start in range(0, len(data), step)
    ]
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


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


def _may_repeat_a_key(raw: bytes, value: Any) -> bool:
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


def _fast_decoder() -> tuple[Callable[[bytes], Any] | None, Any]:
    """orjson's ``loads`` and error type, or ``(None, ())`` when it is not installed.

    Used only on text :func:`text_is_clean` passed (no NaN/Infinity, no number
    of 16 or more digits), where it returns exactly what :mod:`json` returns —
    on such text the only difference would be integers beyond 64 bits, which
    orjson turns into floats. Anything it refuses (a lone surrogate, deep
    nesting, bad JSON) is parsed again by :mod:`json`, which names the problem,
    so results never depend on whether orjson is installed; it parses about
    twice as fast.
    """
    try:
        import orjson  # lazy: an accelerator, not needed for `import scorekit`
    except ImportError:  # pragma: no cover - a base dependency; the fallback keeps working without it
        return None, ()
    return orjson.loads, orjson.JSONDecodeError


def _jsonl_records(
    lines: Sequence[bytes], first: int = 1, clean: bool | None = None
) -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
    """Yield (line, parsed value or None, error or None, needs the number walk, raw text).

    ``lines`` are the file's lines (``first`` is the number of the first). With
    ``clean`` (see :func:`text_is_clean`) the plain C decoder runs; otherwise
    number hooks note NaN/Infinity, overflowing floats and integers beyond
    ±(2^53−1), so only a row that has one pays for the walk that names its
    field. Blank lines are skipped.
    """
    suspect = [False]

    def constant(name: str) -> float:
        suspect[0] = True
        return _reject_constant(name)

    def parse_float(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            suspect[0] = True
        return value

    def parse_int(text: str) -> int:
        if len(text) > 15:
            suspect[0] = True
        return int(text)

    if clean is None:
        clean = lines.is_clean() if isinstance(lines, FileLines) else text_is_clean(b"\n".join(lines))
    if clean:
        decoder = json.JSONDecoder(parse_constant=constant)
    else:
        decoder = json.JSONDecoder(parse_constant=constant, parse_float=parse_float, parse_int=parse_int)
    decode = decoder.decode
    strict_decode = json.JSONDecoder(parse_constant=constant, object_pairs_hook=unique_object).decode
    fast_loads, fast_error = _fast_decoder() if clean else (None, ())
    for number, raw in enumerate(lines, start=first):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw or raw.isspace():
            continue
        suspect[0] = False
        try:
            line = None
            if fast_loads is not None:
                try:
                    value = fast_loads(raw)
                except fast_error:  # refused: the standard decoder parses it or names the problem
                    line = raw.decode("utf-8")
                    value = decode(line)
            else:
                line = raw.decode("utf-8")  # the whole file was checked to be UTF-8
                value = decode(line)
            # A repeated key (a second "status", "agent_output", ...) in any
            # object: JSON keeps the last value, silently. A possible repeat is
            # confirmed by an exact parse that names it.
            if type(value) is dict and _may_repeat_a_key(raw, value):
                strict_decode(raw.decode("utf-8") if line is None else line)
        except DuplicateKeyError as exc:
            yield number, value if isinstance(value, dict) else None, [(exc.key, "duplicate key in one object; "
                                                                       "JSON would silently keep only the last value")], False, raw
            continue
        except (ValueError, RecursionError) as exc:
            if isinstance(exc, json.JSONDecodeError):
                msg = exc.msg
            elif isinstance(exc, RecursionError):
                msg = "nested too deeply"
            else:
                msg = str(exc)
            yield number, None, f"not valid JSON ({msg})", False, raw
            continue
        if b"\\u" in raw and _ESCAPED_SURROGATE.search(raw):
            suspect[0] = True  # an escaped lone surrogate: the walk names it
        yield number, value, None, suspect[0], raw


def _looks_like_jsonl(data: bytes) -> bool:
    for line in data[:65536].split(b"\n"):
        if line.strip():
            return line.lstrip()[:1] in (b"{", b"[")
    return data[:65536].strip() == b"" and bool(data.strip())


# --------------------------------------------------------------------------- JSON documents (arrays of rows)
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
_JSON_SPACE = " \t\r\n"


def _zero(_text: str) -> int:
    return 0


# Structure only: numbers are not converted (no digit limit, no overflow), duplicate keys are not looked at.
_SCAN = json.JSONDecoder(parse_int=_zero, parse_float=_zero, parse_constant=_zero)


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in _JSON_SPACE:
        i += 1
    return i


def _json_document(data: bytes, name: str) -> Source | None:
    """The rows of ``data`` when it is one JSON document; None when it is JSON Lines.

    A file is one document when its first value is a JSON array and nothing
    follows it, when its first value spans several lines (JSON Lines holds one
    value per line), or when its first line is a lone ``[`` or ``{``. Only the
    first line is parsed for a JSON Lines file.

    Raises
    ------
    InputError
        A document that is not an array of rows (a single object, another
        tool's format), an empty array, a document with a syntax error (its
        line and column), or pretty-printed values one after the other.
    """
    start = _NOT_SPACE.search(data)
    if start is None:
        return None
    first_end = data.find(b"\n", start.start())
    first_line = data[start.start(): len(data) if first_end < 0 else first_end]
    try:
        first = _SCAN.decode(first_line.decode("utf-8"))
    except (ValueError, RecursionError):
        first = _NOT_PARSED
    if first is not _NOT_PARSED:
        if type(first) is list and (first_end < 0 or _NOT_SPACE.search(data, first_end) is None):
            return _json_array(data.decode("utf-8"), name)  # a one-line array, the whole file
        return None  # JSON Lines: the fast path reads it
    text = data.decode("utf-8")
    offset = _skip_space(text, 0)
    try:
        value, end = _SCAN.raw_decode(text, offset)
    except (json.JSONDecodeError, RecursionError) as exc:
        if first_line.strip() not in (b"[", b"{"):
            return None  # a broken first row (no JSON Lines row is a lone bracket): JSON Lines reports it
        if isinstance(exc, RecursionError):
            raise InputError(f"{name}: not valid JSON (nested too deeply)") from None
        raise InputError(f"{name}:{exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})") from None
    if _skip_space(text, end) < len(text):
        last = text.count("\n", 0, end) + 1
        raise InputError(f"{name}: not JSON Lines (its first value spans lines 1-{last}; JSON Lines holds one row "
                         "object per line) and not one JSON array of rows")
    if type(value) is list:
        return _json_array(text, name)
    raise InputError(f"{name}: {_describe_document(value)}, not result rows; a results file is JSON Lines (one row "
                     "object per line) or a JSON array of row objects")


_NOT_PARSED = object()


def _describe_document(value: Any) -> str:
    """What a JSON document that is not rows is, for the message (another tool's format by its keys)."""
    if isinstance(value, dict):
        keys = set(value)
        if isinstance(value.get("eval"), dict) and ("samples" in keys or "results" in keys or "version" in keys):
            return "an Inspect AI eval log (another tool's format)"
        if "evalId" in keys or (isinstance(value.get("results"), dict) and "results" in value["results"]):
            return "a promptfoo eval output (another tool's format)"
        if "simulations" in keys and "tasks" in keys:
            return "a τ²-bench results file (another tool's format)"
        if {"schema_version", "decision", "dimensions"} <= keys:
            return "a scorekit scorecard.json (a report)"
        if {"content_sha256", "signature"} <= keys:
            return "a scorekit signature envelope"
        if "jsonrpc" in keys or isinstance(value.get("tools"), list):
            return "tool definitions or a JSON-RPC message (give them to the policy's tool_contracts)"
        shown = ", ".join(repr(k) for k in sorted(map(str, keys))[:6]) + (", ..." if len(keys) > 6 else "")
        return f"a single JSON object (keys {shown})" if keys else "an empty JSON object"
    return f"a single JSON {_kind(value)}"


def _json_array(text: str, name: str) -> Source:
    """A JSON array document (``text`` parsed as one already) as a row source: each element is a
    row, located by the line it starts on."""
    elements: list[bytes] = []
    lines: list[int] = []
    line, counted = 1, 0
    looks_like_tau = True
    i = _skip_space(text, _skip_space(text, 0) + 1)  # past "["
    while text[i] != "]":
        value, end = _SCAN.raw_decode(text, i)
        line += text.count("\n", counted, i)
        counted = i
        lines.append(line)
        # One line per element (a raw line break can only be white space between tokens here), so
        # each element is read exactly as a JSON Lines row: same checks, same problems.
        elements.append(text[i:end].encode("utf-8").replace(b"\n", b" ").replace(b"\r", b" "))
        looks_like_tau = looks_like_tau and isinstance(value, dict) and "task_id" in value and "reward" in value \
            and "dimension" not in value
        i = _skip_space(text, end)
        if text[i] == ",":
            i = _skip_space(text, i + 1)
    if not elements:
        raise InputError(f"{name}: an empty JSON array, no rows")
    if looks_like_tau:
        raise InputError(f"{name}: τ-bench results (another tool's format: task_id, trial, reward), not result rows")

    def items() -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
        # The row text is not kept (None): the engine has no file lines to read it again from.
        for number, value, error, deep, _raw in _jsonl_records(elements, 1):
            yield lines[number - 1], value, error, deep, None

    return Source(name, "json", items)


def _csv_value(name: str, text: str) -> Any:
    """Convert one CSV cell to the type its field expects (JSON for structured fields)."""
    if name in _CSV_JSON_FIELDS:
        stripped = text.strip()
        if stripped[:1] in ("[", "{", '"') or stripped in ("true", "false", "null") or _is_json_number(stripped):
            return json.loads(stripped, parse_constant=_reject_constant)
        if name in ("tags", "must_include", "must_not_include", "allowed_tools", "forbidden_tools"):
            return [part.strip() for part in text.split(";") if part.strip()]
        return text
    if name == "trial":
        return int(text) if re.fullmatch(r"[+-]?\d+", text.strip()) else text
    if name in _FLOAT_FIELDS:
        try:
            return json.loads(text.strip(), parse_constant=_reject_constant)
        except ValueError:
            return text
    if name == "should_refuse":
        return {"true": True, "false": False}.get(text.strip().lower(), text)
    return text


def _is_json_number(text: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?([eE][+-]?\d+)?", text) is not None


def _allow_long_csv_cells() -> None:
    """Agent outputs can be long: lift the csv module's 128 KiB cell limit."""
    limit = 2**31 - 1
    while True:
        try:
            csv.field_size_limit(limit)
            return
        except OverflowError:  # pragma: no cover - platforms with a 32-bit C long
            limit //= 2


def _csv_records(text: str, source: str) -> Iterator[tuple[int, Any, Any, bool, str | None]]:
    _allow_long_csv_cells()
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames:
        raise InputError(f"{source}: empty CSV file (no header)")
    seen = False
    while True:
        start = reader.line_num + 1  # a quoted cell may span lines: name the first
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            yield start, None, f"not valid CSV ({exc})", True, None
            continue
        seen = True
        if None in record:
            yield start, None, "more cells than header columns", True, None
            continue
        row: dict[str, Any] = {}
        errors: list[tuple[str, str]] = []
        for name, cell in record.items():
            if cell is None or cell == "":
                continue  # empty cell = absent field
            try:
                row[name] = _csv_value(ALIASES.get(name, name), cell)
            except ValueError as exc:
                errors.append((name, f"not valid JSON ({getattr(exc, 'msg', exc)})"))
            except RecursionError:  # as a JSON Lines row nested as deeply is reported
                errors.append((name, "not valid JSON (nested too deeply)"))
        if errors:
            # Keep the identity of the row so the problem can name it.
            yield start, {k: v for k, v in row.items() if k in ("id", "dimension", "case_id")}, errors, True, None
        else:
            yield start, row, None, True, None
    if not seen:
        raise InputError(f"{source}: CSV file has a header but no rows")


def _frame_records(frame: pd.DataFrame) -> Iterator[tuple[int, Any, Any, bool, str | None]]:
    columns = [str(c) for c in frame.columns]
    for position, values in enumerate(frame.itertuples(index=False, name=None), start=1):
        row = {}
        for name, value in zip(columns, values):
            if _is_missing_scalar(value):
                continue  # pandas writes "absent" as NaN/None/NA
            value = _to_python(value)
            if name in ("trial", "trial_id") and isinstance(value, float) and value.is_integer():
                value = int(value)  # a column with gaps is float64 in pandas
            row[name] = value
        yield position, row, None, True, None


def _is_missing_scalar(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def _to_python(value: Any) -> Any:
    """NumPy/pandas scalars and arrays (from Parquet/DataFrames) → plain Python values."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_to_python(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {k: _to_python(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_python(v) for v in value]
    return value


def _parquet_records(path: Path, source: str) -> Iterator[tuple[int, Any, Any, bool, str | None]]:
    try:
        import pyarrow.parquet as pq  # lazy: pyarrow is heavy

        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise InputError(f"{source}: not a readable Parquet file ({exc})") from None
    if table.num_rows == 0:
        raise InputError(f"{source}: empty file, no rows")
    # Parquet writes an absent field as null (_check_row drops nulls) and gives
    # every struct all of its fields, null where a row had none: drop those too.
    # Structured fields may also be stored as JSON text, as in CSV.
    return ((i, _parquet_row(row), None, True, None) for i, row in enumerate(table.to_pylist(), start=1))


def _drop_null_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_null_keys(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_null_keys(v) for v in value]
    return value


def _parquet_row(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in row.items():
        if isinstance(value, str) and ALIASES.get(name, name) in _CSV_JSON_FIELDS:
            try:
                value = _csv_value(ALIASES.get(name, name), value)
            except (ValueError, RecursionError):
                pass  # left as text: the field check reports the wrong type
        out[name] = _drop_null_keys(value)
    return out


# --------------------------------------------------------------------------- normalise
_CHECK_PLANS: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, Any], ...]]] = {}


def _check_plan(keys: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, Any], ...]]:
    """The field checks a row with these keys needs, cached per key layout: names
    checked as non-empty strings, names checked as strings, other (name, check)."""
    plan = _CHECK_PLANS.get(keys)
    if plan is None:
        checks = [(name, FIELDS[name]) for name in keys if name in FIELDS and FIELDS[name] is not _any]
        plan = (
            tuple(name for name, check in checks if check is _is_nonempty_str),
            tuple(name for name, check in checks if check is _is_str),
            tuple((name, check) for name, check in checks if check not in (_is_nonempty_str, _is_str)),
        )
        if len(_CHECK_PLANS) < 4096:
            _CHECK_PLANS[keys] = plan
    return plan


def _check_row(value: Any, deep: bool = True) -> tuple[dict[str, Any] | None, list[tuple[str, str]]]:
    """Validate one parsed row; return the normalised row (or None) and its problems.

    ``deep`` walks every nested value for NaN/Infinity and unsafe integers; the
    JSON Lines reader turns it off for lines whose text cannot contain them.
    """
    if not isinstance(value, dict):
        return None, [("row", f"expected a JSON object, got {_kind(value)}")]
    row = value
    problems: list[tuple[str, str]] = []
    if "trial_id" in row:
        if row.get("trial") is not None:
            if row["trial_id"] != row["trial"]:
                problems.append(("trial_id", "conflicts with 'trial'"))
            row = {k: v for k, v in row.items() if k != "trial_id"}
        else:
            row = {("trial" if k == "trial_id" else k): v for k, v in row.items()}
    if None in row.values():  # null = absent, except where null is a value
        row = {k: v for k, v in row.items() if v is not None or k in NULL_IS_VALUE}
    if "id" not in row:
        problems.append(("id", "required field is missing"))
    if "dimension" not in row:
        problems.append(("dimension", "required field is missing"))
    nonempty, plain, other = _check_plan(tuple(row))
    found: list[tuple[str, str]] = []
    # The common string checks inline (a call per field costs more than the
    # check); any doubt calls the real check, which words the message.
    for name in nonempty:
        val = row[name]
        if type(val) is not str or not val or val.isspace():
            message = _is_nonempty_str(val)
            if message:
                found.append((name, message))
    for name in plain:
        if type(row[name]) is not str:
            message = _is_str(row[name])
            if message:
                found.append((name, message))
    for name, check in other:
        message = check(row[name])
        if message:
            found.append((name, message))
    if found:
        order = {name: i for i, name in enumerate(row)}
        found.sort(key=lambda problem: order[problem[0]])  # field order, as the row has them
        problems.extend(found)
    if deep:
        for path, message in _bad_numbers(row, ""):
            problems.append((path.lstrip("."), message))
    if "evaluator" not in row:
        if "status" in row and "status" not in {p[0] for p in problems}:
            problems.append(("evaluator", "a pre-scored status needs the evaluator that produced it"))
        elif "score" in row and "status" not in row and "score" not in {p[0] for p in problems}:
            problems.append(("evaluator", "a score needs the evaluator that produced it"))
    if not problems:
        return row, problems
    # One message per field, in field order, so reports stay short and deterministic.
    seen: set[str] = set()
    unique = []
    for name, message in problems:
        if name not in seen:
            seen.add(name)
            unique.append((name, message))
    return (None if unique else row), unique


def _build_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows) if rows else pd.DataFrame({"id": [], "dimension": []})
    n = len(frame)
    for name in _STR_FIELDS:
        if name in frame.columns:
            frame[name] = frame[name].astype("str") if frame[name].notna().all() else _str_with_na(frame[name])
    if "case_id" not in frame.columns:
        frame["case_id"] = frame["id"]
    else:
        frame["case_id"] = frame["case_id"].fillna(frame["id"])
    if "trial" in frame.columns:
        frame["trial"] = frame["trial"].astype("Int64")
    else:
        frame["trial"] = pd.array([pd.NA] * n, dtype="Int64")
    frame["status"] = (
        pd.Categorical(frame["status"], dtype=STATUS_DTYPE)
        if "status" in frame.columns
        else pd.Categorical([None] * n, dtype=STATUS_DTYPE)
    )
    for name in _FLOAT_FIELDS:
        if name in frame.columns:
            frame[name] = frame[name].astype("float64")
    if "should_refuse" in frame.columns:
        frame["should_refuse"] = frame["should_refuse"].astype("boolean")
    tags = frame["tags"] if "tags" in frame.columns else pd.Series([None] * n, dtype=object)
    frame["control"] = np.fromiter(
        (isinstance(t, list) and not CONTROL_TAGS.isdisjoint(t) for t in tags), dtype=bool, count=n
    )
    leading = ["id", "dimension", "case_id", "trial", "status"]
    return frame[leading + [c for c in frame.columns if c not in leading]]


def _str_with_na(series: pd.Series) -> pd.Series:
    return series.astype(pd.StringDtype(na_value=np.nan))


def _normalise(records: Iterator[tuple[int, Any, Any, bool, str | None]], source: str) -> RowTable:
    # Every row once, in source order: (line, identity, normalised row or None, its problems).
    entries: list[tuple[int, dict[str, Any], dict[str, Any] | None, list[Problem]]] = []
    for line, value, error, deep, _raw in records:
        row_id = value.get("id") if isinstance(value, dict) and isinstance(value.get("id"), str) else None
        if error is not None:
            field_errors = error if isinstance(error, list) else [("row", error)]
            row = None
        else:
            row, field_errors = _check_row(value, deep)
        found = [Problem(source, line, name, message, row_id) for name, message in field_errors] if row is None else []
        entries.append((line, _identity(value, line), row, found))
    # The rules across rows live in _validate, as evaluate() applies them.
    from ._validate import case_definition_conflicts, definition_key, duplicate_identities

    valid = [row is not None for _, _, row, _ in entries]
    marked, duplicate_problems = duplicate_identities(
        [row["id"] if row is not None else ident.get("id") for _, ident, row, _ in entries],
        [row.get("case_id", row["id"]) if row is not None else ident.get("case_id") for _, ident, row, _ in entries],
        [row["dimension"] if row is not None else ident.get("dimension") for _, ident, row, _ in entries],
        [row.get("trial") if row is not None else None for _, _, row, _ in entries],
        valid,
        [line for line, _, _, _ in entries],
        source,
    )
    by_position = dict(zip((p for p in marked if valid[p]), duplicate_problems))
    # One definition per (case_id, dimension), over the rows still valid.
    kept = [pos for pos, (_, _, row, _) in enumerate(entries) if row is not None and pos not in by_position]
    kept_rows = [entries[pos][2] for pos in kept]
    conflict, conflict_problems = case_definition_conflicts(
        [row.get("case_id", row["id"]) for row in kept_rows],  # type: ignore[union-attr]
        [row["dimension"] for row in kept_rows],  # type: ignore[index]
        [definition_key(row) for row in kept_rows],  # type: ignore[arg-type]
        [entries[pos][0] for pos in kept],
        [row["id"] for row in kept_rows],  # type: ignore[index]
        source,
        lambda i: kept_rows[i],  # type: ignore[arg-type,return-value]
    )
    by_position.update({kept[i]: problem for i, problem in zip(np.flatnonzero(conflict), conflict_problems)})
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[Problem] = []
    invalid: list[dict[str, Any]] = []
    for pos, (line, ident, row, found) in enumerate(entries):
        if pos in by_position:
            found, row = [by_position[pos]], None
        if row is None:
            problems.extend(found)
            invalid.append(ident)
            continue
        rows.append(row)
        lines.append(line)
    return RowTable(
        frame=_build_frame(rows),
        lines=np.asarray(lines, dtype=np.int64),
        problems=problems,
        invalid=invalid,
        source=source,
    )


def _identity(value: Any, line: int) -> dict[str, Any]:
    out: dict[str, Any] = {"line": line}
    if isinstance(value, dict):
        for name in ("id", "dimension", "case_id"):
            if isinstance(value.get(name), str):
                out[name] = value[name]
    return out


# --------------------------------------------------------------------------- public
@dataclass
class Source:
    """A readable source of rows: its name and an iterator factory over its rows.

    For JSON Lines, ``lines`` holds the file's lines, so the engine may split
    the work between processes.
    """

    name: str
    kind: str
    _items: Callable[[], Iterator[tuple[int, Any, Any, bool, str | None]]]
    lines: Sequence[bytes] | None = None

    def items(self) -> Iterator[tuple[int, Any, Any, bool, str | None]]:
        """(line, value, error, needs the number walk, raw JSON text or None) per row."""
        return self._items()


def open_source(source: Any, *, format: str | None = None) -> Source:
    """Open a results source without reading its rows yet (file-level checks only).

    Raises
    ------
    InputError
        When the source cannot be read as rows at all.
    """
    if isinstance(source, pd.DataFrame):
        return Source("<DataFrame>", "frame", lambda: _frame_records(source))
    if isinstance(source, (list, tuple)):
        return Source("<rows>", "list", lambda: ((i, v, None, True, None) for i, v in enumerate(source, start=1)))
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"source must be a path, a DataFrame or a list of dicts; got {type(source).__name__}"
        )
    path = Path(source)
    name = str(source)
    try:  # a regular file only: /dev/zero or a FIFO would exhaust memory or hang (results are not capped)
        check_regular(path)
        fmt = (format or _format_from_suffix(path)).lower()
        if fmt == "parquet":
            records = _parquet_records(path, name)
            return Source(name, "parquet", lambda: records)
        data = read_bounded(path, None)
    except FileProblem as problem:
        if problem.kind == "missing":
            raise InputError(f"{name}: no such file") from None
        raise InputError(problem.message(name, "results file")) from None
    if not data or data.isspace():
        raise InputError(f"{name}: empty file, no rows")
    if fmt == "csv":
        text = _decode(data, name)
        return Source(name, "csv", lambda: _csv_records(text, name))
    if fmt not in ("jsonl", "json", "auto"):  # JSON Lines or a JSON array: told apart by the content
        raise ValueError(f"format must be 'jsonl', 'json', 'csv' or 'parquet'; got {format!r}")
    _check_utf8(data, name)
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data or data.isspace():
        raise InputError(f"{name}: empty file, no rows")
    if not _looks_like_jsonl(data):
        raise InputError(f"{name}: not JSON Lines (the first non-blank line does not start an object)")
    document = _json_document(data, name)  # a JSON array of rows (SPEC §2), or another JSON document
    if document is not None:
        return document
    lines = FileLines(data)  # split at b"\n" only: U+2028 etc. inside JSON strings never split a row
    del data
    # Whether the numbers need checking is decided per chunk, by whoever parses it.
    return Source(name, "jsonl", lambda: _jsonl_records(lines, 1), lines=lines)


def read_row_table(source: Any, *, format: str | None = None) -> RowTable:
    """Read rows from any supported source, collecting row-level problems.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame or list of dict
        A ``.jsonl``/``.json``/``.ndjson``, ``.csv`` or ``.parquet`` file, or rows
        already in memory.
    format : {"jsonl", "json", "csv", "parquet"}, optional
        Overrides detection from the file suffix ("jsonl" and "json" both read
        JSON Lines or a JSON array, by content).

    Raises
    ------
    InputError
        Only when the source cannot be read as rows at all.
    """
    src = open_source(source, format=format)
    return _normalise(src.items(), src.name)


def _format_from_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    return "auto"


def read_rows(source: Any, *, format: str | None = None) -> pd.DataFrame:
    """Read evaluation result rows into one typed DataFrame.

    Parameters
    ----------
    source : str, os.PathLike, DataFrame or list of dict
        JSON Lines (``.jsonl``), a JSON array of row objects (``.json``; problems
        name the line each element starts on), CSV (``.csv``; structured cells
        hold JSON text), Parquet (``.parquet``), or rows already in memory. A
        UTF-8 BOM is accepted.
    format : {"jsonl", "json", "csv", "parquet"}, optional
        Overrides detection from the file suffix ("jsonl" and "json" both read
        JSON Lines or a JSON array, by content).

    Returns
    -------
    DataFrame
        One row per result row, columns first ``id``, ``dimension``, ``case_id``
        (defaults to ``id``), ``trial`` (``Int64``, ``trial_id`` accepted),
        ``status`` (categorical of PASS/FAIL/ERROR/ABSTAIN, missing when the row
        is not pre-scored), then the other fields as given, plus ``control``
        (bool: the row is tagged ``known-bad``/``negative-example``).

    Raises
    ------
    InputError
        When any row cannot be normalised; ``err.problems`` lists every problem
        as ``file:line: field: message``. Also for a file that cannot be read as
        rows (missing, empty, not UTF-8, not JSON Lines/CSV/Parquet).

    Examples
    --------
    >>> import scorekit as sk
    >>> rows = sk.read_rows([{"id": "r1", "dimension": "pii", "status": "PASS", "evaluator": "h"}])
    >>> rows.loc[0, "status"], rows.loc[0, "case_id"]
    ('PASS', 'r1')
    """
    table = read_row_table(source, format=format)
    if table.problems:
        shown = table.problems[:20]
        more = len(table.problems) - len(shown)
        lines = "\n".join(f"  {p}" for p in shown)
        if more:
            lines += f"\n  ... and {more} more"
        raise InputError(
            f"{len(table.invalid)} row(s) in {table.source} cannot be used:\n{lines}",
            problems=table.problems,
        )
    return table.frame
