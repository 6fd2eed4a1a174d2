"""The one switch between the optional C helper and the Python paths.

``scorekit/_speedups.c`` (compiled into the wheels, see ``hatch_build.py``)
speeds up the hot per-row steps: canonical JSON for the hashes, the
case-definition key, the duplicate-key and number screens. Every function it
has, the Python code has too, with the same results (tests/test_speedups.py
compares them with hypothesis). This module decides once, at import, which is
used: the C helper when it was built, unless ``SCOREKIT_PURE_PYTHON`` is set
(any value but empty or ``0``) in the environment. Each name below is the C
function, or None for the Python path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["BUILT", "ENABLED", "canonical", "definition_text", "describe", "duplicate_key", "evidence_canonical",
           "exact_key", "sha256_texts", "text_is_clean"]


def _load() -> tuple[Any, bool]:
    try:
        from . import _speedups
    except ImportError:  # a build without a C compiler (the sdist's fallback)
        return None, False
    if os.environ.get("SCOREKIT_PURE_PYTHON", "") not in ("", "0"):
        return None, True
    return _speedups, True


_C, BUILT = _load()
ENABLED = _C is not None


def _get(name: str) -> Any:
    return getattr(_C, name, None) if _C is not None else None


# Typed as scorekit/_speedups.pyi says (tests/test_speedups.py checks the stub against the module).
canonical: Callable[[object], bytes | None] | None = _get("canonical")
evidence_canonical: Callable[[object, object, object, object, object, object, object, object, object],
                             bytes | None] | None = _get("evidence_canonical")
definition_text: Callable[[ReadableBuffer, tuple[bytes, ...]], bytes | None] | None = _get("definition_text")
exact_key: Callable[[object], bytes | None] | None = _get("exact_key")
duplicate_key: Callable[[ReadableBuffer], int] | None = _get("duplicate_key")
text_is_clean: Callable[[ReadableBuffer], bool] | None = _get("text_is_clean")
sha256_texts: Callable[[ReadableBuffer, ReadableBuffer, int, ReadableBuffer, bool], None] | None = \
    _get("sha256_texts")


def describe() -> str:
    """Which path runs, for ``scorekit --version`` and benchmarks."""
    if ENABLED:
        return "with the C helper"
    if BUILT:
        return "pure Python: SCOREKIT_PURE_PYTHON is set (the C helper is built but not used)"
    return "pure Python: the C helper scorekit/_speedups.c was not compiled"
