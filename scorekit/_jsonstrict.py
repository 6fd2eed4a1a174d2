"""Strict JSON objects: one place that refuses duplicate keys.

Python's ``json`` silently keeps the last of two equal keys; a results row, a
policy or a scorecard with a duplicated key is ambiguous, so every reader of
scorekit passes :func:`unique_object` as ``object_pairs_hook`` and turns
:class:`DuplicateKeyError` into its own message.
"""

from __future__ import annotations

from typing import Any

__all__ = ["DuplicateKeyError", "unique_object"]


class DuplicateKeyError(ValueError):
    """An object has the same key twice; ``key`` names it."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key


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
