"""Reading a user's input file: one place for the one-line messages.

Policies, thresholds manifests, keys, scorecards and signature envelopes are all
read through :func:`read_input_bytes` and :func:`decode_utf8`, so a missing
file, a directory or an undecodable file reads the same everywhere:
``<path>: <what> not found``, ``<path>: is a directory, not a <what>``,
``<path>: cannot read <what>: <reason>``, ``<path>: not UTF-8 (invalid byte at offset N)``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ._errors import InputError

__all__ = ["decode_utf8", "read_input_bytes"]


def read_input_bytes(
    path: str | os.PathLike[str], what: str, error: type[Exception] = InputError, *, name: str | None = None
) -> bytes:
    """The bytes of ``path``, or ``error`` with a one-line message naming it as ``what``.

    ``name`` is the path as the user wrote it (default: ``str(path)``).

    Examples
    --------
    >>> read_input_bytes("no/such/policy.yml", "policy file")
    Traceback (most recent call last):
    ...
    scorekit._errors.InputError: no/such/policy.yml: policy file not found
    """
    p = Path(path)
    name = str(path) if name is None else name
    try:
        return p.read_bytes()
    except FileNotFoundError:
        raise error(f"{name}: {what} not found") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory, not a {what}") from None
    except OSError as exc:
        if p.is_dir():  # Windows raises PermissionError for a directory
            raise error(f"{name}: is a directory, not a {what}") from None
        reason = " ".join(str(exc.strerror or exc).splitlines())
        raise error(f"{name}: cannot read {what}: {reason}") from None


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
