"""Reading a user's input file: one place for the checks and the one-line messages.

Every file scorekit reads from a user — results, policies, thresholds manifests,
keys, scorecards (``scorecard.json`` and ``SCORECARD.md``) and signature
envelopes — goes through :func:`read_bounded` (or :func:`read_input_bytes`, which
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
  <what>: <reason>``, ``<path>: not UTF-8 (invalid byte at offset N)``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ._errors import FileProblem, InputError

__all__ = [
    "DEFAULT_LIMIT",
    "KEY_LIMIT",
    "SCORECARD_JSON_LIMIT",
    "SIGNATURE_LIMIT",
    "FileProblem",
    "check_regular",
    "decode_utf8",
    "read_bounded",
    "read_input_bytes",
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

# O_NONBLOCK: opening a FIFO for reading blocks until a writer appears; with it
# the open returns at once and the fstat below refuses the FIFO. It changes
# nothing for a regular file. Windows has neither flag (nor FIFOs to open).
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)


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


def read_bounded(path: str | os.PathLike[str], limit: int | None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (``None``: no cap).

    Raises
    ------
    FileProblem
        Missing, a directory, not a regular file (checked before and after
        opening), larger than ``limit``, or unreadable.
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


def decode_utf8(data: bytes, name: str, error: type[Exception] = InputError) -> str:
    """``data`` as text (a UTF-8 BOM is dropped), or ``error`` naming the first bad byte.

    Examples
    --------
    >>> decode_utf8(b"\\xef\\xbb\\xbfpurpose: release", "policy.yml")
    'purpose: release'
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{name}: not UTF-8 (invalid byte at offset {exc.start})") from None
