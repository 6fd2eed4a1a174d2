"""The format readers: a results source (JSON Lines, a JSON array of rows, CSV, Parquet,
a DataFrame, a list of dicts) opened as :class:`Source`, whose items are the rows.

:func:`open_source` does the file-level checks (a regular file, not empty,
UTF-8, a format it can read) and raises :class:`~scorekit.InputError` when the
source cannot be read as rows at all; each row is then an item
``(line, value, error, needs the number walk, raw JSON text or None)`` for the
normaliser (:mod:`scorekit._rows._normalise`) or the engine
(:mod:`scorekit._ingest`) to check.

A ``.json``/``.jsonl`` file is read by its content: one row object per line
(JSON Lines, the fast path), or one JSON array of row objects, pretty-printed
or not (SPEC §2). Each array element is read exactly as a JSON Lines row and
located by the **line the element starts on**. A JSON document that is not an
array of rows (a single object, another tool's format such as an Inspect AI
log, promptfoo output or τ-bench results), an empty array or a document with a
syntax error is a file-level error naming what it is.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._errors import DuplicateKeyError, FileProblem, InputError
from .._io import (
    ROW_NESTING,
    check_regular,
    check_utf8,
    constant_as_float,
    decode_utf8,
    loads_strict,
    nesting_exceeds,
    nesting_offset,
    read_bounded,
)
from ._fields import ALIASES, BOOL_FIELDS, CSV_JSON_FIELDS, FLOAT_FIELDS, kind
from ._screens import (
    NESTED_TOO_DEEPLY,
    has_escaped_surrogate,
    may_repeat_a_key,
    nested_too_deeply,
    span_is_clean,
    text_is_clean,
)

__all__ = ["FileLines", "FileRef", "Source", "csv_records", "frame_records", "jsonl_records", "line_spans",
           "open_source", "parquet_item"]


@dataclass(frozen=True)
class FileRef:
    """The JSON Lines file a :class:`FileLines` reads its lines back from: its
    path, its name in messages, where its text starts (past a byte order mark),
    and its (size, mtime, inode) when it was checked."""

    path: str
    name: str
    base: int
    stamp: tuple[int, int, int]

    def read(self, first: int, last: int) -> bytes:
        """Bytes [first, last) of the text; refused when the file changed since it was checked."""
        changed = InputError(f"{self.name}: the file changed while it was being scored")
        try:
            with open(self.path, "rb") as fh:
                if _stamp(os.fstat(fh.fileno())) != self.stamp:
                    raise changed
                fh.seek(self.base + first)
                data = fh.read(last - first)
        except OSError:
            raise changed from None
        if len(data) != last - first:  # pragma: no cover - the stamp catches a truncated file
            raise changed
        return data


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ino)


# Lines read back from the file at a time by a FileLines that is not held in memory.
_LINES_PER_READ = 1 << 16


class FileLines(Sequence[bytes]):
    """The lines of a JSON Lines file, held as one ``bytes`` object plus offsets.

    One large buffer instead of 100,000 small ``bytes`` objects: the parser takes
    a short-lived slice per row, and when the file is dropped its memory goes
    back to the system at once (small objects would pin allocator arenas for
    the rest of the run). Slicing gives a view over the same buffer, so a forked
    worker shares it. Lines are split at b"\\n" exactly as ``bytes.split``.

    A large file is not held (``data`` None, ``file`` set): only the offsets
    are, and lines are read back from the file when needed (:meth:`load`),
    :data:`_LINES_PER_READ` at a time when iterated.
    """

    __slots__ = ("data", "starts", "ends", "file")

    def __init__(self, data: bytes | None, starts: np.ndarray | None = None, ends: np.ndarray | None = None,
                 file: FileRef | None = None) -> None:
        if starts is None or ends is None:
            if data is None:
                raise ValueError("FileLines without data needs its starts and ends")
            newlines = _newline_positions(data)
            starts = np.concatenate(([0], newlines + 1))
            ends = np.concatenate((newlines, [len(data)]))
        self.data, self.starts, self.ends, self.file = data, starts, ends, file

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return FileLines(self.data, self.starts[index], self.ends[index], self.file)
        if self.data is None:
            position = range(len(self))[index]
            return self[position : position + 1].load().data
        return self.data[self.starts[index] : self.ends[index]]

    def __iter__(self) -> Iterator[bytes]:
        if self.data is None:
            for start in range(0, len(self), _LINES_PER_READ):
                yield from self[start : start + _LINES_PER_READ].load()
            return
        data = self.data
        for start, end in zip(self.starts.tolist(), self.ends.tolist(), strict=True):
            yield data[start:end]

    def load(self) -> FileLines:
        """These lines held in memory (read back from the file when they are not)."""
        if self.data is not None:
            return self
        if not len(self):
            return FileLines(b"", self.starts, self.ends)
        assert self.file is not None  # set whenever data is not
        first, last = int(self.starts[0]), int(self.ends[-1])
        return FileLines(self.file.read(first, last), self.starts - first, self.ends - first)

    def is_clean(self) -> bool:
        """:func:`~scorekit._rows._screens.text_is_clean` over these lines (no full copy)."""
        if not len(self):
            return True
        if self.data is None:  # no marker spans a line, so line blocks are checked apart
            return all(self[start : start + _LINES_PER_READ].load().is_clean()
                       for start in range(0, len(self), _LINES_PER_READ))
        return span_is_clean(self.data, int(self.starts[0]), int(self.ends[-1]))


def _newline_positions(data: bytes) -> np.ndarray:
    """Offsets of every b"\\n" in ``data`` (vectorised, 8 MiB at a time)."""
    step = 1 << 23
    found = [
        np.flatnonzero(np.frombuffer(data, dtype=np.uint8, count=min(step, len(data) - start), offset=start) == 10)
        + start
        for start in range(0, len(data), step)
    ]
    return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


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


def jsonl_records(
    lines: Sequence[bytes], first: int = 1, clean: bool | None = None
) -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
    """Yield (line, parsed value or None, error or None, needs the number walk, raw text).

    ``lines`` are the file's lines (``first`` is the number of the first). With
    ``clean`` (see :func:`text_is_clean`) the plain C decoder runs; otherwise
    number hooks note NaN/Infinity, overflowing floats and integers beyond
    ±(2^53−1), so only a row that has one pays for the walk that names its
    field. A line nesting more than :data:`~scorekit._io.ROW_NESTING` levels is
    an invalid row before any decoder sees it. Blank lines are skipped.
    """
    suspect = [False]

    def constant(name: str) -> float:
        suspect[0] = True
        return constant_as_float(name)

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
    fast_loads, fast_error = _fast_decoder() if clean else (None, ())
    for number, raw in enumerate(lines, start=first):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw or raw.isspace():
            continue
        if nesting_exceeds(raw, ROW_NESTING):  # before any decoder, whose own limit depends on its stack
            yield number, None, "not valid JSON (nested too deeply)", False, raw
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
            if type(value) is dict and may_repeat_a_key(raw, value):
                loads_strict(raw.decode("utf-8") if line is None else line, nonfinite="keep")
        except DuplicateKeyError as exc:
            yield (
                number,
                value if isinstance(value, dict) else None,
                [(exc.key, "duplicate key in one object; JSON would silently keep only the last value")],
                False,
                raw,
            )
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
        if b"\\u" in raw and has_escaped_surrogate(raw):
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
    first, first_line, first_end = _first_line(data, start.start())
    if first is not _NOT_PARSED:
        if type(first) is list and (first_end < 0 or _NOT_SPACE.search(data, first_end) is None):
            return _json_array(data.decode("utf-8"), name)  # a one-line array, the whole file
        return None  # JSON Lines: the fast path reads it
    deep = nesting_offset(data, ROW_NESTING + 1)  # an array of rows nests one level more than its rows
    if deep is not None:
        if first_line.strip() not in (b"[", b"{"):
            return None  # JSON Lines: its row that nests too deeply is reported on its line
        line = data.count(b"\n", 0, deep) + 1
        raise InputError(f"{name}:{line}: not valid JSON (nested too deeply)")
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


def _first_line(data: bytes, start: int) -> tuple[Any, bytes, int]:
    """(the first line's value or _NOT_PARSED, the line, where it ends or -1) of
    ``data`` whose first non-blank byte is at ``start``."""
    first_end = data.find(b"\n", start)
    first_line = data[start: len(data) if first_end < 0 else first_end]
    if nesting_exceeds(first_line, ROW_NESTING + 1):
        return _NOT_PARSED, first_line, first_end
    try:
        first = _SCAN.decode(first_line.decode("utf-8"))
    except (ValueError, RecursionError):
        first = _NOT_PARSED
    return first, first_line, first_end


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
    return f"a single JSON {kind(value)}"


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
        for number, value, error, deep, _raw in jsonl_records(elements, 1):
            yield lines[number - 1], value, error, deep, None

    return Source(name, "json", items)



def _csv_value(name: str, text: str) -> Any:
    """Convert one CSV cell to the type its field expects (JSON for structured fields)."""
    if name in CSV_JSON_FIELDS:
        stripped = text.strip()
        if stripped[:1] in ("[", "{", '"') or stripped in ("true", "false", "null") or _is_json_number(stripped):
            return loads_strict(stripped, nonfinite="keep", max_depth=ROW_NESTING - 1)  # a field of a row
        if name in ("tags", "must_include", "must_not_include", "allowed_tools", "forbidden_tools"):
            return [part.strip() for part in text.split(";") if part.strip()]
        return text
    if name == "trial":
        return int(text) if re.fullmatch(r"[+-]?\d+", text.strip()) else text
    if name in FLOAT_FIELDS:
        try:
            return loads_strict(text.strip(), nonfinite="keep", max_depth=ROW_NESTING - 1)
        except ValueError:
            return text
    if name in BOOL_FIELDS:
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


def csv_records(text: str, source: str) -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
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
            except DuplicateKeyError as exc:
                errors.append((name, _repeated_key(exc.key)))
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


def frame_records(frame: pd.DataFrame) -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
    columns = [str(c) for c in frame.columns]
    for position, values in enumerate(frame.itertuples(index=False, name=None), start=1):
        if nested_too_deeply(values, ROW_NESTING):  # before _to_python walks the values (the row is level 1)
            yield position, _named(columns, values), [("row", NESTED_TOO_DEEPLY)], True, None
            continue
        row = {}
        for name, value in zip(columns, values, strict=True):
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


def _parquet_records(path: Path, source: str) -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
    try:
        import pyarrow.parquet as pq  # lazy: pyarrow is heavy

        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises several unrelated types for bad files
        raise InputError(f"{source}: not a readable Parquet file ({exc})") from None
    if table.num_rows == 0:
        raise InputError(f"{source}: empty file, no rows")
    # Parquet writes an absent field as null (check_row drops nulls) and gives
    # every struct all of its fields, null where a row had none: drop those too.
    # Structured fields may also be stored as JSON text, as in CSV.
    return (parquet_item(i, row) for i, row in enumerate(table.to_pylist(), start=1))


def _named(columns: Sequence[str], values: Sequence[Any]) -> dict[str, str]:
    """The identity fields among a row's values that are text (to name an unreadable row)."""
    return {name: value for name, value in zip(columns, values, strict=True)
            if name in ("id", "dimension", "case_id") and isinstance(value, str)}


def _listed_item(position: int, value: Any) -> tuple[int, Any, Any, bool, None]:
    """A row of a list of dicts; one nesting too deeply is refused before anything walks it."""
    if nested_too_deeply(value, ROW_NESTING):
        named = _named(list(value), list(value.values())) if isinstance(value, dict) else None
        return position, named, [("row", NESTED_TOO_DEEPLY)], True, None
    return position, value, None, True, None


def parquet_item(position: int, row: dict[str, Any]) -> tuple[int, Any, Any, bool, None]:
    if nested_too_deeply(row, ROW_NESTING):  # before _drop_null_keys walks the values
        return position, _named(list(row), list(row.values())), [("row", NESTED_TOO_DEEPLY)], True, None
    out, errors = _parquet_row(row)
    if errors:  # keep the identity of the row so the problem can name it
        return position, {k: v for k, v in out.items() if k in ("id", "dimension", "case_id")}, errors, True, None
    return position, out, None, True, None


def _drop_null_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_null_keys(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_null_keys(v) for v in value]
    return value


def _parquet_row(row: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    out: dict[str, Any] = {}
    errors: list[tuple[str, str]] = []
    for name, value in row.items():
        if isinstance(value, str) and ALIASES.get(name, name) in CSV_JSON_FIELDS:
            try:
                value = _csv_value(ALIASES.get(name, name), value)
            except DuplicateKeyError as exc:
                errors.append((name, _repeated_key(exc.key)))
            except (ValueError, RecursionError):
                pass  # left as text: the field check reports the wrong type
        out[name] = _drop_null_keys(value)
    return out, errors


def _repeated_key(key: str) -> str:
    """The problem of a structured cell (CSV, Parquet text) whose JSON repeats ``key``."""
    return f"duplicate key {key!r} in one object; JSON would silently keep only the last value"


# --------------------------------------------------------------------------- the source
@dataclass
class Source:
    """A readable source of rows: its name and an iterator factory over its rows.

    For JSON Lines, ``lines`` holds the file's lines, so the engine may split
    the work between processes; opened without them (``open_source(...,
    offsets=False)``), ``file`` names the checked file instead, whose lines are
    cut into byte ranges by :func:`line_spans` when they are read.
    """

    name: str
    kind: str
    _items: Callable[[], Iterator[tuple[int, Any, Any, bool, bytes | None]]]
    lines: Sequence[bytes] | None = None
    file: FileRef | None = None

    def items(self) -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
        """(line, value, error, needs the number walk, raw JSON text or None) per row."""
        return self._items()


def open_source(source: Any, *, format: str | None = None, offsets: bool = True) -> Source:
    """Open a results source without reading its rows yet (file-level checks only).

    With ``offsets`` False, a JSON Lines file of any size is checked block by block
    and nothing per line is kept: its source has ``file``, no ``lines``.

    Raises
    ------
    InputError
        When the source cannot be read as rows at all.
    """
    if isinstance(source, pd.DataFrame):
        return Source("<DataFrame>", "frame", lambda: frame_records(source))
    if isinstance(source, (list, tuple)):
        return Source("<rows>", "list", lambda: (_listed_item(i, v) for i, v in enumerate(source, start=1)))
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
        if fmt in ("jsonl", "json", "auto") and (not offsets or os.path.getsize(path) >= STREAM_BYTES):
            streamed = _streamed_jsonl(path, name, offsets)
            if streamed is not None:
                return streamed
        try:  # before the read: a change from here on is caught when the lines are read back
            stamp = _stamp(os.stat(path))
        except OSError:  # gone: the read says so
            stamp = (-1, -1, -1)
        data = read_bounded(path, None)
    except FileProblem as problem:
        if problem.kind == "missing":
            raise InputError(f"{name}: no such file") from None
        raise InputError(problem.message(name, "results file")) from None
    if not data or data.isspace():
        raise InputError(f"{name}: empty file, no rows")
    if fmt == "csv":
        text = decode_utf8(data, name)
        return Source(name, "csv", lambda: csv_records(text, name))
    if fmt not in ("jsonl", "json", "auto"):  # JSON Lines or a JSON array: told apart by the content
        raise ValueError(f"format must be 'jsonl', 'json', 'csv' or 'parquet'; got {format!r}")
    check_utf8(data, name)
    base = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    data = data[base:]
    if not data or data.isspace():
        raise InputError(f"{name}: empty file, no rows")
    if not _looks_like_jsonl(data):
        raise InputError(f"{name}: not JSON Lines (the first non-blank line does not start an object)")
    document = _json_document(data, name)  # a JSON array of rows (SPEC §2), or another JSON document
    if document is not None:
        return document
    if not offsets:
        return _spanned(FileRef(os.path.abspath(path), name, base, stamp))
    lines = FileLines(data)  # split at b"\n" only: U+2028 etc. inside JSON strings never split a row
    del data
    # Whether the numbers need checking is decided per chunk, by whoever parses it.
    return Source(name, "jsonl", lambda: jsonl_records(lines, 1), lines=lines)


def _format_from_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    return "auto"


# A JSON Lines file at least this large is checked block by block and not held:
# its lines are read back from the file when they are scored (and when the
# evidence is written). Holding the file costs its size for the whole run; reading
# back costs no measurable time (the file is in the page cache): `scorekit run` on
# bench_evaluate's 100,000 rows (45.6 MiB) peaks at 266 MiB held, 213 MiB streamed,
# the same CPU time (6.9/5.9 s held, 6.7/6.3 s streamed, alternated).
STREAM_BYTES = 16 << 20
_BLOCK = 1 << 23  # read at a time; a multiple of check_utf8's 1 MiB step, so its offsets are the same
_UTF8_STEP = 1 << 20


def _streamed_jsonl(path: Path, name: str, offsets: bool = True) -> Source | None:
    """The rows of the JSON Lines file ``path`` read one block at a time (the
    checks of the in-memory path, with the same messages), its lines left in
    the file (their offsets kept with ``offsets``, else nothing per line); None
    when the file is anything else (a JSON document, empty, not UTF-8,
    unreadable...): then the in-memory path reads it and says what is wrong."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    newlines: list[np.ndarray] = []
    head = b""
    base, offset, blank = 0, 0, True
    try:
        with open(path, "rb") as fh:
            stamp = _stamp(os.fstat(fh.fileno()))
            while block := fh.read(_BLOCK):
                for step in range(0, len(block), _UTF8_STEP):
                    decoder.decode(block[step : step + _UTF8_STEP])
                if not offset:
                    base = 3 if block.startswith(b"\xef\xbb\xbf") else 0
                    head = block[base:]
                    block = head
                blank = blank and not block.strip()
                if offsets:
                    found = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
                    newlines.append(found + (offset - base if offset else 0))
                offset += len(block) + (base if not offset else 0)
            decoder.decode(b"", final=True)
            if _stamp(os.fstat(fh.fileno())) != stamp or offset != stamp[0]:
                return None  # it changed while being read: the in-memory path reads what is there
    except (OSError, UnicodeDecodeError):
        return None
    start = _NOT_SPACE.search(head)
    if blank or start is None or not _looks_like_jsonl(head):
        return None
    first, _, first_end = _first_line(head, start.start())
    if first is _NOT_PARSED or first_end < 0 or (type(first) is list and _NOT_SPACE.search(head, first_end) is None):
        return None  # perhaps one JSON document
    if not offsets:
        return _spanned(FileRef(os.path.abspath(path), name, base, stamp))
    size = offset - base
    found = np.concatenate(newlines)
    lines = FileLines(None, np.concatenate(([0], found + 1)), np.concatenate((found, [size])),
                      FileRef(os.path.abspath(path), name, base, stamp))
    return Source(name, "jsonl", lambda: jsonl_records(lines, 1), lines=lines)


# Bytes and lines of a file not split into lines read back at a time when its rows are iterated.
_SPAN_BYTES = 1 << 23
_SPAN_BLOCK = 1 << 20  # read at a time by line_spans: the most its newline positions take is 8 times this


def _spanned(ref: FileRef) -> Source:
    """The JSON Lines file ``ref`` as a source holding nothing per line: its rows read back a
    range of whole lines at a time (:func:`line_spans`)."""
    def items() -> Iterator[tuple[int, Any, Any, bool, bytes | None]]:
        for start, stop, _, first in line_spans(ref, range(_SPAN_BYTES, ref.stamp[0], _SPAN_BYTES), _LINES_PER_READ):
            yield from jsonl_records(FileLines(ref.read(start, stop)), first)

    return Source(ref.name, "jsonl", items, file=ref)


def _line_end(block: bytes, j: int, need: int, count: int, at: int | None) -> int:
    """Where in ``block`` from ``j`` (which has ``count`` b"\\n") a range ends: at its ``need``-th
    b"\\n", or at the first from ``at`` on (None: no target) if sooner; -1 if neither is here."""
    cut = block.find(b"\n", max(j, at)) if at is not None and at < len(block) else -1
    if count >= need:
        capped = j + int(np.flatnonzero(np.frombuffer(block, dtype=np.uint8, offset=j) == 10)[need - 1])
        cut = capped if cut < 0 else min(cut, capped)
    return cut


def line_spans(ref: FileRef, targets: Iterable[int], max_lines: int = sys.maxsize,
               ) -> Iterator[tuple[int, int, int, int]]:
    """(start, stop, CRC-32 of its bytes, number of its first line) of each range of whole lines
    of the JSON Lines text of ``ref`` (byte offsets past its byte order mark; ``stop`` is where its
    last line ends, before that line's b"\\n"), in order, covering every line: a range ends at the
    first line end at or after each of ``targets`` (increasing byte offsets) less one, and after
    ``max_lines`` lines at most. Lines are split at b"\\n" as :class:`FileLines` splits them, so a
    range read back as ``FileLines`` numbers its lines from its first exactly as the whole file's.
    The file is read once, :data:`_SPAN_BLOCK` at a time: nothing is kept per line. Refused
    (:class:`~scorekit.InputError` naming the file) when the file changed since it was checked."""
    changed = InputError(f"{ref.name}: the file changed while it was being scored")
    size = ref.stamp[0] - ref.base
    wanted = iter(targets)
    target = next(wanted, None)
    start, first, lines, crc, pos, spans = 0, 1, 1, 0, 0, 0  # lines: those begun in the range so far
    try:
        with open(ref.path, "rb") as fh:
            if _stamp(os.fstat(fh.fileno())) != ref.stamp:
                raise changed
            fh.seek(ref.base)
            while pos < size:
                block = fh.read(min(_SPAN_BLOCK, size - pos))
                if not block:
                    raise changed
                view, j = memoryview(block), 0
                while True:
                    while target is not None and target <= start:
                        target = next(wanted, None)
                    count = block.count(b"\n", j)
                    at = None if target is None else target - 1 - pos
                    cut = _line_end(block, j, max_lines - lines + 1, count, at)
                    if cut < 0:
                        crc = zlib.crc32(view[j:], crc)
                        lines += count
                        break
                    crc = zlib.crc32(view[j:cut], crc)
                    lines += block.count(b"\n", j, cut)
                    yield start, pos + cut, crc, first
                    spans += 1
                    first += lines
                    start, lines, crc, j = pos + cut + 1, 1, 0, cut + 1
                pos += len(block)
            if _stamp(os.fstat(fh.fileno())) != ref.stamp:
                raise changed
    except OSError:
        raise changed from None
    if start < size or not spans:
        yield start, size, crc, first
