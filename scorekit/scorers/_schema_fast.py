"""A fast, one-sided check of the common JSON Schema subset used by tool contracts.

:func:`surely_valid` returns True only when ``instance`` is certainly valid
under ``schema`` by JSON Schema 2020-12 as :mod:`jsonschema` applies it (no
format assertion). Anything it does not fully understand — a keyword outside
the subset, an ``enum``, a float where an integer is required — returns False,
which means "ask jsonschema", never "invalid". So a tool call whose arguments
are fine costs a few dictionary lookups instead of a full validation, and every
verdict of *invalid* still comes from jsonschema.

Subset: ``type`` (one name or a list), ``properties``, ``required``,
``additionalProperties`` (a boolean), ``items`` (one schema), ``minItems``,
``maxItems``, ``minLength``, ``maxLength``, ``pattern``, ``minimum``,
``maximum``, and the annotations ``title``, ``description``, ``default``,
``examples``, ``$comment``, ``$schema``, ``format``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = ["surely_valid"]

_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "$schema", "format"})
_KNOWN = _ANNOTATIONS | {
    "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "minLength", "maxLength", "pattern", "minimum", "maximum",
}


def _is_type(instance: Any, name: Any) -> bool:
    kind = type(instance)
    if name == "object":
        return kind is dict
    if name == "array":
        return kind is list
    if name == "string":
        return kind is str
    if name == "integer":
        return kind is int  # 1.0 is an integer to JSON Schema too: left to jsonschema
    if name == "number":
        return kind is int or kind is float
    if name == "boolean":
        return kind is bool
    if name == "null":
        return instance is None
    return False


@lru_cache(maxsize=256)
def _pattern(text: str) -> re.Pattern[str] | None:
    try:
        return re.compile(text)
    except re.error:
        return None


def _number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _length_within(schema: dict[str, Any], low_key: str, high_key: str, length: int) -> bool:
    """``length`` satisfies the schema's integer bounds (False also for bounds that are not integers)."""
    low, high = schema.get(low_key, 0), schema.get(high_key)
    if type(low) is not int or (high is not None and type(high) is not int):
        return False
    return length >= low and (high is None or length <= high)


def surely_valid(schema: Any, instance: Any) -> bool:
    """True when ``instance`` is certainly valid under ``schema``; False: undecided."""
    if schema is True:
        return True
    if type(schema) is not dict:
        return False
    for key in schema:
        if key not in _KNOWN:
            return False
    if "type" in schema:
        wanted = schema["type"]
        if type(wanted) is list:
            if not any(_is_type(instance, name) for name in wanted):
                return False
        elif not _is_type(instance, wanted):
            return False
    kind = type(instance)
    if kind is dict:
        properties = schema.get("properties", {})
        if type(properties) is not dict:
            return False
        required = schema.get("required", [])
        if type(required) is not list or any(name not in instance for name in required):
            return False
        extra = schema.get("additionalProperties", True)
        if extra is not True and extra is not False:
            return False
        for name, value in instance.items():
            sub = properties.get(name)
            if sub is None:
                if extra is False:
                    return False
            elif not surely_valid(sub, value):
                return False
    elif kind is list:
        if not _length_within(schema, "minItems", "maxItems", len(instance)):
            return False
        if "items" in schema:
            items = schema["items"]
            if not all(surely_valid(items, value) for value in instance):
                return False
    elif kind is str:
        if not _length_within(schema, "minLength", "maxLength", len(instance)):
            return False
        if "pattern" in schema:
            pattern = schema["pattern"]
            compiled = _pattern(pattern) if type(pattern) is str else None
            if compiled is None or compiled.search(instance) is None:
                return False
    elif kind is int or kind is float:
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and not _number(low)) or (high is not None and not _number(high)):
            return False
        if (low is not None and instance < low) or (high is not None and instance > high):
            return False
    return True
