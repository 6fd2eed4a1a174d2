"""``scorecard.json``: the scorecard dictionary as JSON, validated against the shipped schema.

The schema (``scorekit/schemas/scorecard.schema.json``, JSON Schema 2020-12)
documents every key other tools rely on (SPEC §12). ``jsonschema`` is imported
only when a scorecard is validated.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path
from typing import Any

from .._errors import ScorecardSchemaError
from .._io import atomic_write_bytes

__all__ = [
    "SCHEMA_RESOURCE",
    "ScorecardSchemaError",
    "load_schema",
    "read_scorecard_json",
    "render_json",
    "validate_scorecard_json",
    "write_json",
]

#: Where the schema lives inside the package.
SCHEMA_RESOURCE = "schemas/scorecard.schema.json"
_MAX_LISTED = 20


@functools.lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """The scorecard JSON Schema shipped in the package (a fresh copy is not made: do not mutate)."""
    text = resources.files("scorekit").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)  # the package's own schema: an object
    return schema


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    # The shipped schema is checked against its metaschema by the test suite;
    # checking it again on every run costs ~0.1 s.
    return Draft202012Validator(load_schema())


def _json_path(parts: Any) -> str:
    out = "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and part.isidentifier():
            out += f".{part}"
        else:
            out += f"[{json.dumps(str(part), ensure_ascii=False)}]"
    return out


# Long lists whose item schemas check JSON types only (no value constraints): the
# 100,000-row benchmark has ~8,000 case ids in its findings, and jsonschema spends
# ~10 µs per item. A list of strings is validated through its first item, a list
# of records through one record per (key, Python type) signature; only if that
# compact copy fails is the full data validated again, for exact error paths.
# Sound because removing items can only remove errors (no minItems, contains or
# uniqueItems on these lists) and items of one signature pass or fail together;
# tests/reports/test_json.py checks that the schema keeps these item
# schemas type-only.
COMPACTED_STRING_LISTS = (
    ("scope", "required_dimensions"),
    ("scope", "dimensions"),
    ("scope", "missing_dimensions"),
    ("dimensions", "*", "flaky_cases"),
    ("findings", "*", "case_ids"),
    ("judges",),
)
COMPACTED_RECORD_LISTS = (("validation", "problems"), ("controls",), ("findings", "*", "details"))
_COMPACT_FROM = 16


def _signature(item: Any) -> Any:
    if isinstance(item, dict):
        return tuple(sorted((str(k), type(v).__name__) for k, v in item.items()))
    return ("", type(item).__name__)


def _compact_list(value: Any, records: bool) -> Any:
    if not isinstance(value, list) or len(value) < _COMPACT_FROM:
        return value
    if not records:
        return value[:1] if all(isinstance(v, str) for v in value) else value
    seen: dict[Any, Any] = {}
    for item in value:
        seen.setdefault(_signature(item), item)
    return list(seen.values())


def _compact_at(node: Any, path: tuple[str, ...], records: bool) -> Any:
    """A copy of ``node`` with the list at ``path`` compacted (copies only along the path)."""
    if not path:
        return _compact_list(node, records)
    head, rest = path[0], path[1:]
    if head == "*":
        if not isinstance(node, list):
            return node
        return [_compact_at(item, rest, records) for item in node]
    if not isinstance(node, dict) or head not in node:
        return node
    copy = dict(node)
    copy[head] = _compact_at(node[head], rest, records)
    return copy


def _compact(data: Any) -> Any:
    for path in COMPACTED_STRING_LISTS:
        data = _compact_at(data, path, records=False)
    for path in COMPACTED_RECORD_LISTS:
        data = _compact_at(data, path, records=True)
    return data


def validate_scorecard_json(data: Any) -> None:
    """Raise :class:`ScorecardSchemaError` unless ``data`` matches the scorecard schema.

    The message names the JSON path of each violation, e.g.
    ``$.dimensions[0].rate: 'high' is not of type 'number', 'null'``.

    Examples
    --------
    >>> import scorekit as sk
    >>> card = sk.evaluate(sk.example_path(), policy=sk.example_path(file="policy.yml"))
    >>> validate_scorecard_json(card.to_dict())  # no error
    """
    validator = _validator()
    if validator.is_valid(_compact(data)):
        return
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if not errors:  # pragma: no cover - the compact copy fails only if the data fails
        return
    found = [(_json_path(e.absolute_path), e.message) for e in errors]
    lines = [f"  {path}: {message}" for path, message in found[:_MAX_LISTED]]
    if len(found) > _MAX_LISTED:
        lines.append(f"  … and {len(found) - _MAX_LISTED} more")
    raise ScorecardSchemaError(
        f"scorecard does not match {SCHEMA_RESOURCE} ({len(found)} problem{'s' if len(found) != 1 else ''}):\n"
        + "\n".join(lines),
        found,
    )


def read_scorecard_json(path: str | Path, *, error: type[Exception] = ScorecardSchemaError) -> Any:
    """A stored ``scorecard.json``, read strictly, checked against the shipped schema and recomputed.

    Unreadable, not UTF-8 or not strict JSON is an :class:`~scorekit.InputError`; a file that
    does not match the schema is ``error``, in one line naming the file, the first mismatch
    and how many more there are. A file whose derived numbers (rates, intervals, verdicts,
    decision) do not recompute from its own counts is an :class:`~scorekit.InputError`
    naming the file and the field (:func:`scorekit._stored.check_scorecard`, SPEC §20).
    """
    from .._errors import InputError
    from .._io import read_json_strict
    from .._stored import check_scorecard

    data = read_json_strict(path, "scorecard", InputError)
    try:
        validate_scorecard_json(data)
    except ScorecardSchemaError as exc:
        where, what = exc.errors[0] if exc.errors else ("$", str(exc))
        more = f" and {len(exc.errors) - 1} more" if len(exc.errors) > 1 else ""
        message = f"{path}: not a scorecard.json of this scorekit: {where}: {what}{more}"
        if issubclass(error, ScorecardSchemaError):
            raise error(message, exc.errors) from None
        raise error(message) from None
    check_scorecard(data, path)
    return data


def render_json(data: dict[str, Any], *, validate: bool = True) -> str:
    """``data`` as ``scorecard.json`` text (indent 2, UTF-8, no NaN), validated first."""
    if validate:
        validate_scorecard_json(data)
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _encode(text: str) -> bytes:
    """UTF-8 bytes of ``scorecard.json`` text."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate cannot be UTF-8: fall back to \uXXXX escapes (still exact JSON).
        return (json.dumps(json.loads(text), indent=2, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def write_json(data: dict[str, Any], path: str | Path, *, validate: bool = True) -> Path:
    """Write ``scorecard.json`` atomically; return its path."""
    payload = _encode(render_json(data, validate=validate))
    return atomic_write_bytes(path, payload)
