"""Files in and out, in one place: reading a user's file, strict JSON, atomic writes.

Reading a user's file
---------------------
Every file scorekit reads from a user — results, policies, thresholds manifests,
keys, scorecards (``scorecard.json`` and ``SCORECARD.md``), signature
envelopes, a doc root's README and ``package.json``, the history database's
header — goes through :func:`read_bounded` (or :func:`read_input_bytes`, which
adds the standard messages), so:

* only a **regular file** is read: the path is resolved (symlinks followed) and
  checked with ``os.stat`` before opening, and the open file is checked again
  with ``os.fstat`` (it is opened with ``O_NONBLOCK``, so a FIFO with no writer
  cannot hang the reader); ``/dev/zero``, ``/dev/urandom``, a FIFO, a socket or a
  symlink to one is refused;
* a file that cannot be that large is read only up to its cap (policies and
  manifests :data:`DEFAULT_LIMIT`, keys :data:`KEY_LIMIT`, envelopes
  :data:`SIGNATURE_LIMIT`, ``scorecard.json`` :data:`SCORECARD_JSON_LIMIT`);
  results files are not capped (they are regular files of any size);
* a missing file, a directory, a special file, an oversized or undecodable file
  reads the same everywhere: ``<path>: <what> not found``, ``<path>: is a
  directory, not a <what>``, ``<path>: not a regular file (a FIFO), not a <what>``,
  ``<path>: too large for a <what> (more than 16 MiB)``, ``<path>: cannot read
  <what>: <reason>``, ``<path>: not UTF-8 (invalid byte at offset N)``
  (:class:`~scorekit._errors.FileProblem` words the first five).

Strict JSON
-----------
Python's ``json`` silently keeps the last of two equal keys, reads ``NaN`` and
``Infinity`` and turns ``1e999`` into infinity. :func:`loads_strict` is the one
strict reading of JSON text in scorekit: a duplicate key, ``NaN``/``Infinity``,
a number that overflows to infinity, an integer longer than Python converts
(``sys.get_int_max_str_digits``, 4300 digits by default) and nesting deeper than
a fixed limit are each a :class:`~scorekit._errors.StrictJSONError` (its
``kind`` says which, so each reader words it), never a traceback.

The nesting limit is checked on the text before any decoder sees it
(:func:`nesting_exceeds`): the decoders (``json``, ``orjson``) and every walk
over a parsed value after them (number checks, hashing, schema validation)
recurse once per level, so the depth at which they fail depends on the stack
they run on. A results row may nest arrays and objects :data:`ROW_NESTING`
levels deep (the row object is level 1), a whole document (a policy, a
scorecard, another tool's log) :data:`DOCUMENT_NESTING`. A reader whose
value checks name a non-finite number themselves relaxes only that
(``nonfinite="overflow"`` or ``"keep"``); duplicate keys are always refused.
:func:`read_json_strict` reads and parses a file in one step.

Writing
-------
:func:`atomic_write` is the one way scorekit writes a file: a temporary file in
the same folder, then ``os.replace``, so a reader never sees half a report, key
or envelope, and a failed write leaves the old file (or none) in place.
"""

from __future__ import annotations

import codecs
import json
import math
import numbers
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._errors import DuplicateKeyError, FileProblem, InputError, StrictJSONError

__all__ = [
    "DEFAULT_LIMIT",
    "DOCUMENT_NESTING",
    "KEY_LIMIT",
    "MAX_DECOMPRESSED_VAR",
    "ROW_NESTING",
    "SCORECARD_JSON_LIMIT",
    "SIGNATURE_LIMIT",
    "atomic_write",
    "atomic_write_bytes",
    "atomic_write_dir",
    "check_regular",
    "check_utf8",
    "constant_as_float",
    "decode_utf8",
    "finite_float",
    "loads_strict",
    "max_decompressed",
    "nesting_exceeds",
    "nesting_offset",
    "owned_temporary_directory",
    "read_bounded",
    "read_input_bytes",
    "read_json_strict",
    "unique_object",
]

_MIB = 1 << 20
#: Cap of a file that is a few kilobytes in practice (policy, thresholds manifest).
DEFAULT_LIMIT = 16 * _MIB
#: Cap of a PEM or base64 key file.
KEY_LIMIT = _MIB
#: Cap of a detached signature envelope.
SIGNATURE_LIMIT = _MIB
#: Cap of a ``scorecard.json`` (it holds no rows, but lists every validation problem).
SCORECARD_JSON_LIMIT = 256 * _MIB

#: The environment variable capping the total bytes decompressed from one archive (SPEC §20).
MAX_DECOMPRESSED_VAR = "SCOREKIT_MAX_DECOMPRESSED"
#: Its default: 2 GiB.
MAX_DECOMPRESSED_DEFAULT = 2 << 30

# O_NONBLOCK: opening a FIFO for reading blocks until a writer appears; with it
# the open returns at once and the fstat below refuses the FIFO. It changes
# nothing for a regular file. Windows has neither flag (nor FIFOs to open).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


# --------------------------------------------------------------------------- reading a user's file
def _reason(exc: OSError) -> str:
    return " ".join(str(exc.strerror or exc).splitlines())


def _special(mode: int) -> FileProblem:
    if stat.S_ISFIFO(mode):
        what = "a FIFO"
    elif stat.S_ISCHR(mode):
        what = "a character device"
    elif stat.S_ISBLK(mode):
        what = "a block device"
    elif stat.S_ISSOCK(mode):
        what = "a socket"
    else:
        what = "a special file"
    return FileProblem("special", what)


def _classify(st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise FileProblem("directory")
    if not stat.S_ISREG(st.st_mode):
        raise _special(st.st_mode)


def check_regular(path: str | os.PathLike[str]) -> os.stat_result:
    """``os.stat`` of ``path`` (symlinks resolved), or :class:`FileProblem` unless it is a regular file.

    Examples
    --------
    >>> check_regular("/dev/null")
    Traceback (most recent call last):
    ...
    scorekit._errors.FileProblem: special: a character device
    """
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise FileProblem("missing") from None
    except OSError as exc:  # a symlink loop, a folder on the way we may not enter
        raise FileProblem("unreadable", _reason(exc)) from None
    except ValueError as exc:  # an embedded NUL byte in the path
        raise FileProblem("unreadable", str(exc)) from None
    _classify(st)
    return st


def read_bounded(path: str | os.PathLike[str], limit: int | None, *, head: bool = False) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``None``: no cap).

    With ``head`` the first ``limit`` bytes are returned however large the file
    is (a file header); without it a larger file is refused.

    Raises
    ------
    FileProblem
        Missing, a directory, not a regular file (checked before and after
        opening), larger than ``limit`` (unless ``head``), or unreadable.
    """
    check_regular(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise FileProblem("missing") from None
    except IsADirectoryError:
        raise FileProblem("directory") from None
    except OSError as exc:
        if os.path.isdir(path):  # Windows raises PermissionError for a directory
            raise FileProblem("directory") from None
        raise FileProblem("unreadable", _reason(exc)) from None
    with os.fdopen(fd, "rb") as handle:
        try:
            st = os.fstat(fd)
            _classify(st)  # the path was swapped for something else after the stat
            if head and limit is not None:
                return handle.read(limit)
            if limit is not None and st.st_size > limit:
                raise FileProblem("too_large", limit)
            data = handle.read() if limit is None else handle.read(limit + 1)
        except FileProblem:
            raise
        except OSError as exc:
            raise FileProblem("unreadable", _reason(exc)) from None
    if limit is not None and len(data) > limit:  # it grew while being read
        raise FileProblem("too_large", limit)
    return data


def read_input_bytes(
    path: str | os.PathLike[str],
    what: str,
    error: type[Exception] = InputError,
    *,
    name: str | None = None,
    limit: int | None = DEFAULT_LIMIT,
) -> bytes:
    """The bytes of ``path`` (see :func:`read_bounded`), or ``error`` with a one-line message naming it as ``what``.

    ``name`` is the path as the user wrote it (default: ``str(path)``).

    Examples
    --------
    >>> read_input_bytes("no/such/policy.yml", "policy file")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: no/such/policy.yml: policy file not found
    """
    name = str(path) if name is None else name
    try:
        return read_bounded(Path(path), limit)
    except FileProblem as problem:
        raise error(problem.message(name, what)) from None


def max_decompressed() -> int:
    """The cap on the total bytes decompressed from one archive: ``SCOREKIT_MAX_DECOMPRESSED`` or 2 GiB.

    Raises
    ------
    InputError
        The variable is set to something other than a whole number of bytes >= 1.

    Examples
    --------
    >>> max_decompressed() >= 1
    True
    """
    text = os.environ.get(MAX_DECOMPRESSED_VAR)
    if text is None or not text.strip():
        return MAX_DECOMPRESSED_DEFAULT
    value = text.strip()
    if not (value.isascii() and value.isdigit()) or len(value) > 30 or int(value) < 1:
        raise InputError(f"{MAX_DECOMPRESSED_VAR}={text[:40]!r}: expected a whole number of bytes >= 1 "
                         f"(default {MAX_DECOMPRESSED_DEFAULT}, 2 GiB)")
    return int(value)


def _not_utf8(name: str, offset: int, error: type[Exception]) -> Exception:
    return error(f"{name}: not UTF-8 (invalid byte at offset {offset})")


def decode_utf8(data: bytes, name: str, error: type[Exception] = InputError) -> str:
    """``data`` as text (a UTF-8 BOM is dropped), or ``error`` naming the first bad byte.

    Examples
    --------
    >>> decode_utf8(b"\\xef\\xbb\\xbfpurpose: release", "policy.yml")
    'purpose: release'
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:  # the codec counts from after a BOM: name the byte in the file
        raise _not_utf8(name, exc.start + (len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0),
                        error) from None


def check_utf8(data: bytes, name: str, error: type[Exception] = InputError) -> None:
    """Raise ``error`` (the message of :func:`decode_utf8`) unless ``data`` is UTF-8,
    without building one big string (a results file of any size is checked 1 MiB at a time).

    Examples
    --------
    >>> check_utf8(b'{"id": "caf\\xc3\\xa9"}', "rows.jsonl")
    >>> check_utf8(b'{"id": "caf\\xe9"}', "rows.jsonl")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: rows.jsonl: not UTF-8 (invalid byte at offset 11)
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    step = 1 << 20
    start = 0
    try:
        for start in range(0, len(data), step):
            decoder.decode(data[start : start + step])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise _not_utf8(name, start + exc.start, error) from None


# --------------------------------------------------------------------------- strict JSON
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


def constant_as_float(token: str) -> float:
    """``NaN``, ``Infinity`` or ``-Infinity`` as the float it spells, for a reader that
    names such a number itself (the results reader reports it by field)."""
    return float(token.lower().replace("infinity", "inf"))


def _refuse_constant(token: str) -> Any:
    raise StrictJSONError(f"{token} is not a JSON number (non-finite numbers cannot be signed)", "constant", token)


def _finite_number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise StrictJSONError(
            f"number {text} overflows to infinity (non-finite numbers cannot be signed)", "overflow", text
        )
    return value


#: Levels of arrays and objects a results row may nest (the row object is level 1).
ROW_NESTING = 64
#: Levels of arrays and objects a whole JSON document may nest (a policy, a scorecard, another tool's log).
DOCUMENT_NESTING = 128

# Quotes and brackets; what a bracket does to the depth (an opening one 2, a closing one 0: see below).
_NOT_MARKS = bytes(b for b in range(256) if b not in b'"[]{}')
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
# A JSON string (a backslash escapes the next byte), or a bracket.
_STRUCTURE = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{\]}]')


def _as_bytes(text: str | bytes) -> bytes:
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text


def nesting_exceeds(text: str | bytes, limit: int) -> bool:
    """True when the JSON ``text`` nests arrays and objects more than ``limit`` levels deep.

    Decided without recursion and without parsing (bytes operations and one cumulative sum), so
    it runs before any decoder: brackets inside strings do not count. On text that is not JSON
    it never counts fewer levels than a decoder reaches before its error.

    Examples
    --------
    >>> nesting_exceeds('{"a": [[1]], "b": "[[[[[\\\\"}', 3), nesting_exceeds('[[[[]]]]', 3)
    (False, True)
    """
    data = _as_bytes(text)
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    if b"\\" in data:  # an escaped backslash, then an escaped quote: neither ends a string
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    # Between the 2k-th and (2k+1)-th quote is a string: the brackets outside them are the structure.
    structure = b"".join(data.translate(None, _NOT_MARKS).split(b'"')[::2])
    if len(structure) <= limit:
        return False
    import numpy as np  # lazy: `import scorekit` stays light

    # After k brackets the depth is (opening ones among them) - (closing ones) = 2 * opening - k.
    steps = np.cumsum(np.frombuffer(structure.translate(_STEPS), dtype=np.uint8), dtype=np.int64)
    return bool((steps - np.arange(1, len(steps) + 1)).max() > limit)


def nesting_offset(text: str | bytes, limit: int) -> int | None:
    """The byte offset in ``text`` (UTF-8) of the bracket that nests deeper than ``limit`` levels,
    or None (:func:`nesting_exceeds` is the fast test; this one locates, for a message)."""
    data = _as_bytes(text)
    if not nesting_exceeds(data, limit):
        return None
    depth = 0
    for match in _STRUCTURE.finditer(data):
        byte = data[match.start()]
        if byte in b"[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif byte in b"]}":
            depth -= 1
    return None  # pragma: no cover - nesting_exceeds counted the same brackets


# One decoder per strictness, built once: json.loads with hooks would build one per call.
_DECODERS: dict[str, Callable[[str], Any]] = {
    "refuse": json.JSONDecoder(
        parse_constant=_refuse_constant, parse_float=_finite_number, object_pairs_hook=unique_object
    ).decode,
    "overflow": json.JSONDecoder(parse_constant=_refuse_constant, object_pairs_hook=unique_object).decode,
    "keep": json.JSONDecoder(parse_constant=constant_as_float, object_pairs_hook=unique_object).decode,
}


def loads_strict(text: str, *, nonfinite: str = "refuse", max_depth: int = DOCUMENT_NESTING) -> Any:
    """Parse ``text`` as strict JSON.

    Parameters
    ----------
    text : str
    nonfinite : {"refuse", "overflow", "keep"}
        ``refuse`` (a document scorekit signs or verifies): ``NaN``/``Infinity``
        and numbers overflowing to infinity are errors. ``overflow``: ``1e999``
        is read as ``inf`` for a value check to name (a policy), ``NaN`` and
        ``Infinity`` are still errors. ``keep``: all three are read as floats
        (the results reader names them by field).
    max_depth : int
        Levels of arrays and objects the text may nest (:func:`nesting_exceeds`, checked first).

    Raises
    ------
    json.JSONDecodeError
        The text is not JSON (it carries the line and column).
    StrictJSONError
        A duplicate key (:class:`~scorekit._errors.DuplicateKeyError`),
        NaN/Infinity, a number overflowing to infinity, an integer with more
        digits than Python converts, or nesting too deep; ``kind`` says which.

    Examples
    --------
    >>> loads_strict('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> loads_strict('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    scorekit._errors.DuplicateKeyError: duplicate object key 'a'
    >>> loads_strict('{"a": 1' + '0' * 5000 + '}')
    Traceback (most recent call last):
    ...
    scorekit._errors.StrictJSONError: an integer with more than 4300 digits is too long to read as a number
    """
    decode = _DECODERS[nonfinite]
    if nesting_exceeds(text, max_depth):
        raise StrictJSONError("nested too deeply", "too_deep")
    try:
        return decode(text)
    except (StrictJSONError, json.JSONDecodeError):
        raise
    except RecursionError:
        raise StrictJSONError("nested too deeply", "too_deep") from None
    except ValueError as exc:  # int() refused a literal beyond the interpreter's digit limit
        limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
        raise StrictJSONError(
            f"an integer with more than {limit} digits is too long to read as a number",
            "too_long",
            " ".join(str(exc).splitlines()),
        ) from None


def read_json_strict(
    path: str | os.PathLike[str],
    what: str,
    error: type[Exception],
    *,
    limit: int = SCORECARD_JSON_LIMIT,
) -> Any:
    """Read the JSON file ``path`` strictly (:func:`loads_strict`), or ``error`` with one line naming it.

    ``what`` names the file in messages ("scorecard", "signature envelope").
    Missing, not a regular file, larger than ``limit`` bytes, unreadable, not
    UTF-8 or not strict JSON are each ``error``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.json"
    >>> _ = p.write_text('{"a": NaN}')
    >>> read_json_strict(p, "scorecard", InputError)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: .../x.json: the scorecard cannot be used: NaN is not a JSON number ...
    """
    path = Path(path)
    text = decode_utf8(read_input_bytes(path, what, error, limit=limit), str(path), error)
    try:
        return loads_strict(text)
    except StrictJSONError as exc:
        raise error(f"{path}: the {what} cannot be used: {exc}") from None
    except json.JSONDecodeError as exc:
        raise error(f"{path}:{exc.lineno}: the {what} is not valid JSON ({exc.msg})") from None


# --------------------------------------------------------------------------- writing
def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], object], *, mode: int | None = None) -> Path:
    """Write ``path`` atomically: ``write(tmp)`` fills a temporary file in the same
    directory, which then replaces ``path`` (``os.replace``). A reader never sees
    half a file; on error the temporary file is removed and ``path`` is untouched.

    The file gets permissions ``mode`` (default: ``0o666`` less the umask, as
    ``open`` would give). The temporary file is created ``0o600``, so no other
    user can read a secret (a private key) while it is being written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "report.md"
    >>> atomic_write(p, lambda tmp: tmp.write_text("# ok")).read_text()
    '# ok'
    """
    path = Path(path)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        write(tmp)
        os.chmod(tmp, (0o666 & ~_UMASK) if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes | str, *, mode: int | None = None) -> Path:
    """:func:`atomic_write` of ``data`` (text is written as UTF-8) to ``path``; return the path.

    >>> import tempfile, pathlib
    >>> atomic_write_bytes(pathlib.Path(tempfile.mkdtemp()) / "a.md", "# ok").read_bytes()
    b'# ok'
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    return atomic_write(path, lambda tmp: tmp.write_bytes(payload), mode=mode)


def owned_temporary_directory(owner: object, prefix: str) -> tuple[Path, Any]:
    """A new temporary directory removed, with what is in it, when ``owner`` is garbage
    collected (or at exit): the directory and its ``weakref.finalize``.

    >>> class Owner: pass
    >>> owner = Owner()
    >>> path, _ = owned_temporary_directory(owner, "doc-")
    >>> path.is_dir()
    True
    >>> del owner
    >>> path.exists()
    False
    """
    import shutil
    import weakref

    path = Path(tempfile.mkdtemp(prefix=prefix))
    return path, weakref.finalize(owner, shutil.rmtree, str(path), True)


def atomic_write_dir(path: str | os.PathLike[str], fill: Callable[[Path], object]) -> Path:
    """Write the directory ``path`` whole: ``fill(tmp)`` fills a new temporary directory
    beside it, which then takes its place; a directory already at ``path`` is moved
    aside first and removed after. A reader never sees a half-filled directory (for
    an instant there may be none); on error ``path`` is left as it was.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp()) / "evidence"
    >>> sorted(p.name for p in atomic_write_dir(d, lambda tmp: (tmp / "a").write_text("1")).iterdir())
    ['a']
    """
    import shutil

    path = Path(path)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    old: Path | None = None
    try:
        fill(tmp)
        os.chmod(tmp, 0o777 & ~_UMASK)
        if path.exists() or path.is_symlink():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent))
            os.replace(path, old / path.name)
        os.replace(tmp, path)
    except BaseException:
        if old is not None and not path.exists():
            os.replace(old / path.name, path)
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    return path


def _read_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; written files get the usual permissions (read once, at import).
_UMASK = _read_umask()
