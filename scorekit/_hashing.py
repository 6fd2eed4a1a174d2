"""Hashes (SPEC §10): RFC 8785 canonical JSON of type-tagged structures, SHA-256.

Hash input form: every number is replaced by a type-tagged string — ``"i:1"``
for an int, ``"f:1.0"`` for a float (Python's shortest round-trip ``repr``) —
so ``1`` and ``1.0`` hash differently, as they match differently (SPEC §3). The
tagged structure is serialised as RFC 8785 (JCS) canonical JSON and hashed with
SHA-256 (lowercase hex).

Row-level hashes are Merkle-style so they can be computed while streaming and
in parallel:

* ``row_digest(obj)`` = SHA-256 of the canonical form of ``obj``;
* **suite** = hash of the *sorted, de-duplicated* list of the row digests of
  ``{"case_id", "dimension", "definition": {inputs and answer keys}}`` — row order
  and the number of trials do not change it;
* **results** = hash of the *sorted* list of the row digests of each row's
  ``{"id", "case_id", "dimension", "trial", "measured": {captured fields}}``;
* **evidence** = hash of the *sorted* list of the row digests of the scored
  evidence rows (``{"case_id", "control", "dimension", "id", "included",
  "label", "reason", "status", "trial"}``) — what was scored, in any row order;
* **policy** = hash of ``{"scoring_version", "policy"}`` (policy without its
  ``regression`` section).

A structure without numbers serialises under JCS exactly as Python's
``json.dumps(sort_keys=True, ensure_ascii=False, separators=(",", ":"))`` does,
except that JCS orders object keys by UTF-16 code units; the rare text with a
character beyond U+FFFF takes the ``rfc8785`` package's path instead, so the
bytes are always RFC 8785's (tests compare the two).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# The C form of canonical_bytes (scorekit/_speedups.c); None for the Python path (scorekit/_accel.py).
from ._accel import canonical as _c_canonical
from ._accel import evidence_canonical as _c_evidence
from ._accel import sha256_texts as _c_sha256_texts

__all__ = [
    "MEASURED_FIELDS",
    "SCORING_VERSION",
    "canonical_bytes",
    "evidence_digest",
    "evidence_sql",
    "results_digest",
    "results_sql",
    "list_hash",
    "packed_list_hash",
    "row_digest",
    "digest_blobs",
    "sha256_hex",
    "text_digests",
    "sql_bool",
    "sql_digest",
    "sql_row_digest",
    "sql_int",
    "sql_object",
    "sql_string",
    "sql_text",
    "sql_text_or_int",
    "SqlValue",
    "suite_sql",
    "tag_numbers",
]

# Bump when scoring rules change: a baseline scored by other rules is not comparable.
SCORING_VERSION = "scorekit-scoring/2"

# The captured measurements of a row (SPEC §10 results hash).
MEASURED_FIELDS: tuple[str, ...] = (
    "agent_output",
    "tool_calls",
    "agent_actions",
    "observed_state",
    "usage",
    "cost_usd",
    "latency_ms",
    "latency_s",
    "judge_votes",
    "status",
    "score",
    "run",
)

_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")



def tag_numbers(value: Any) -> Any:
    """Replace every number with its type-tagged string (``1`` → ``"i:1"``, ``1.0`` → ``"f:1.0"``)."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return value
    if kind is int:
        return "i:" + int.__repr__(value)
    if kind is float:
        return "f:" + float.__repr__(value)
    # Containers: strings and ints (the common leaves) are handled inline, without a call.
    if kind is dict:
        return {
            k: (v if (t := type(v)) is str else "i:" + int.__repr__(v) if t is int else tag_numbers(v))
            for k, v in value.items()
        }
    if kind is list or kind is tuple:
        return [v if (t := type(v)) is str else "i:" + int.__repr__(v) if t is int else tag_numbers(v) for v in value]
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return f"i:{int(value)!r}"
    if isinstance(value, float):
        return f"f:{float(value)!r}"
    if isinstance(value, dict):
        return {str(k): tag_numbers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tag_numbers(v) for v in value]
    raise TypeError(f"cannot hash a value of type {type(value).__name__}")


_ENCODE = json.JSONEncoder(
    ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False, check_circular=False
).encode


def _jcs(tagged: Any) -> bytes:
    """RFC 8785 bytes of a number-free structure."""
    text = _ENCODE(tagged)
    if text.isascii():
        return text.encode("ascii")
    if _BEYOND_BMP.search(text) is None:
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: let the reference implementation decide
            pass
    import rfc8785  # lazy: the reference implementation, for the rare hard case

    return rfc8785.dumps(tagged)


def canonical_bytes(value: Any) -> bytes:
    """The hash input form of ``value``: RFC 8785 of its type-tagged structure.

    The C helper writes it directly when it is built and ``value`` holds only
    plain JSON types; it answers None for anything else (a subclass, a lone
    surrogate, a key beyond U+FFFF), which takes the Python path below. Tests
    check the two paths give the same bytes as the ``rfc8785`` package.
    """
    if _c_canonical is not None:
        data = _c_canonical(value)
        if data is not None:
            return data
    try:
        return _jcs(tag_numbers(value))
    except RecursionError:  # nesting the JSON parsers accept (up to ~1000 levels) is deeper than the stack
        return _deep_canonical_bytes(value)


def _utf16_order(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _deep_canonical_bytes(value: Any) -> bytes:
    """:func:`canonical_bytes` without recursion, for structures nested too deeply for the stack.

    The same bytes as the recursive path (a test compares them): numbers tagged
    by :func:`tag_numbers`, strings escaped as JSON/JCS escape them, object keys
    (strings) in UTF-16 code-unit order (RFC 8785), no whitespace. Text that is
    not valid Unicode (a lone surrogate) is refused with the error the
    ``rfc8785`` package raises for it on the recursive path.
    """
    parts: list[str] = []
    todo: list[tuple[bool, Any]] = [(False, value)]  # (literal text?, item); the next item is last
    while todo:
        literal, item = todo.pop()
        if literal:
            parts.append(item)
        elif isinstance(item, dict):
            keys = [k if type(item) is dict else str(k) for k in item]
            if not all(type(k) is str for k in keys):
                raise TypeError("cannot hash an object key that is not a string")
            pairs = sorted(zip(keys, item.values(), strict=True), key=lambda pair: _utf16_order(pair[0]))
            todo.append((True, "}"))
            for i in range(len(pairs) - 1, -1, -1):
                todo.append((False, pairs[i][1]))
                todo.append((True, ("{" if i == 0 else ",") + _encode_str(pairs[i][0]) + ":"))
            if not pairs:
                todo.append((True, "{"))
        elif isinstance(item, (list, tuple)):
            todo.append((True, "]"))
            for i in range(len(item) - 1, -1, -1):
                todo.append((False, item[i]))
                todo.append((True, "[" if i == 0 else ","))
            if not item:
                todo.append((True, "["))
        else:
            tagged = tag_numbers(item)  # a tagged string, a string, None or a bool
            parts.append(_encode_str(tagged) if type(tagged) is str else _ENCODE(tagged))
    try:
        return "".join(parts).encode("utf-8")
    except UnicodeEncodeError:
        import rfc8785  # lazy: its error type, as the recursive path raises it

        raise rfc8785.CanonicalizationError("input contains non-UTF-8 codepoints") from None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def row_digest(value: Any) -> str:
    """SHA-256 (hex) of the hash input form of one row-level structure."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()


def list_hash(digests: Iterable[str], *, sort: bool, unique: bool = False) -> str:
    """SHA-256 of the canonical JSON list of row digests (hex strings need no escaping)."""
    items = set(digests) if unique else digests
    items = sorted(items) if sort else list(items)
    if not items:
        return hashlib.sha256(b"[]").hexdigest()
    return hashlib.sha256(('["' + '","'.join(items) + '"]').encode("ascii")).hexdigest()


_encode_str = json.encoder.encode_basestring  # C-accelerated JSON string escaping (ensure_ascii=False)


def _scalar_json(value: Any) -> str | None:
    """Canonical text of a scalar in the hash input form, or None if not a scalar."""
    kind = type(value)
    if kind is str:
        return _encode_str(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return '"i:' + int.__repr__(value) + '"'
    if kind is float:
        return '"f:' + float.__repr__(value) + '"'
    return None


def results_digest(row_id: str, case_id: str, dimension: str, trial: Any, measured: dict[str, Any]) -> bytes:
    """Row digest (32 raw bytes) of ``{"case_id", "dimension", "id", "measured",
    "trial"}``; the engine packs them (hot path).

    With the C helper, the structure is serialised there; without it, rows
    whose measurements are all scalars (an output, a cost, a latency) are
    written as canonical text directly and anything nested takes the general
    path. A test checks all paths give the same digest.
    """
    structure = {"case_id": case_id, "dimension": dimension, "id": row_id, "measured": measured, "trial": trial}
    if _c_canonical is not None:
        data = _c_canonical(structure)
        if data is not None:
            return hashlib.sha256(data).digest()
    parts = []
    for key in sorted(measured):
        text = _scalar_json(measured[key])
        if text is None:
            return hashlib.sha256(canonical_bytes(structure)).digest()
        parts.append(_encode_str(key) + ":" + text)
    text = (
        f'{{"case_id":{_encode_str(case_id)},"dimension":{_encode_str(dimension)},"id":{_encode_str(row_id)},'
        f'"measured":{{{",".join(parts)}}},"trial":{_scalar_json(trial)}}}'
    )
    return _text_digest(text, lambda: structure)


def _text_digest(text: str, structure: Callable[[], Any]) -> bytes:
    """SHA-256 of canonical text written by hand; text with a character beyond
    U+FFFF (where JCS key order is by UTF-16 units) takes :func:`canonical_bytes`."""
    if text.isascii():
        return hashlib.sha256(text.encode("ascii")).digest()
    if _BEYOND_BMP.search(text) is not None:
        return hashlib.sha256(canonical_bytes(structure())).digest()
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def evidence_digest(
    row_id: str | None,
    dimension: str | None,
    case_id: str | None,
    trial: int | None,
    status: str,
    reason: str | None,
    label: str,
    control: bool,
    included: bool,
) -> bytes:
    """Row digest (32 raw bytes) of one evidence row: what :func:`row_digest`
    gives, as bytes, for ``{"case_id", "control", "dimension", "id", "included",
    "label", "reason", "status", "trial"}`` (a test checks they agree); the
    engine packs them (hot path)."""
    if _c_evidence is not None:
        data = _c_evidence(case_id, control, dimension, row_id, included, label, reason, status, trial)
        if data is not None:
            return hashlib.sha256(data).digest()
    scalar = _scalar_json
    text = (
        f'{{"case_id":{scalar(case_id)},"control":{"true" if control is True else scalar(control)},'
        f'"dimension":{scalar(dimension)},"id":{scalar(row_id)},'
        f'"included":{"true" if included is True else scalar(included)},"label":{_encode_str(label)},'
        f'"reason":{"null" if reason is None else scalar(reason)},"status":{_encode_str(status)},'
        f'"trial":{scalar(trial)}}}'
    )
    return _text_digest(
        text,
        lambda: {"case_id": case_id, "control": control, "dimension": dimension, "id": row_id, "included": included,
                 "label": label, "reason": reason, "status": status, "trial": trial},
    )


# Digests hashed at a time by packed_list_hash (a few MB of hex, whatever the row count).
HASH_BLOCK = 1 << 16


def packed_list_hash(packed: bytes | bytearray | memoryview, *, unique: bool = False) -> str:
    """:func:`list_hash` (sorted; each digest once with ``unique``) of row digests packed as
    32 raw bytes each.

    The engine keeps digests packed (no string per row, one buffer to send
    between processes); sorting and writing the list happen here at C speed.
    Lowercase hex orders like the raw bytes, so sorting the bytes sorts the
    hex strings. The sort order takes 16 bytes a digest; the list is written
    and hashed :data:`HASH_BLOCK` digests at a time.
    """
    import binascii

    import numpy as np  # lazy, though pandas has loaded it already

    size = memoryview(packed).nbytes
    if size % 32:
        raise ValueError(f"packed digests must be 32 bytes each; got {size} bytes")
    count = size // 32
    if count == 0:
        return hashlib.sha256(b"[]").hexdigest()
    rows = np.frombuffer(packed, dtype=np.uint8).reshape(count, 32)
    # Big-endian words order like the bytes; compared in native byte order
    # they sort several times faster.
    words = np.frombuffer(packed, dtype=">u8").reshape(count, 4)
    leading = words[:, 0].astype(np.uint64)
    order = np.argsort(leading)
    leading = leading[order]
    tied = count > 1 and bool((leading[1:] == leading[:-1]).any())
    del leading
    if tied:  # equal first 8 bytes (repeated rows): all 32
        order = np.lexsort([words[:, i].astype(np.uint64) for i in (3, 2, 1, 0)])
        if unique:  # sorted, so a repeat follows its first
            ordered = words[order]
            order = order[np.concatenate([[True], (ordered[1:] != ordered[:-1]).any(axis=1)])]
            del ordered
            count = len(order)
    digest = hashlib.sha256(b'["')
    for start in range(0, count, HASH_BLOCK):
        if start:
            digest.update(b'","')
        body = binascii.hexlify(rows[order[start : start + HASH_BLOCK]].tobytes(), b",", 32)
        digest.update(body.replace(b",", b'","'))
    digest.update(b'"]')
    return digest.hexdigest()


# --------------------------------------------------------------------------- the SQL twin
# The row forms above written as DuckDB SQL, so rows that live in DuckDB are hashed there and never
# cross into Python (SPEC §16): each ``*_sql`` function takes SQL expressions for the fields and gives
# the SQL of the same canonical text (``sha256`` of it is the row digest, in lowercase hex). A test
# (tests/test_hashing.py) compares them with the Python forms on random rows.

# JSON escapes of the control characters, as json.encoder.encode_basestring and RFC 8785 write them.
_SHORT_ESCAPES = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}
_NEEDS_ESCAPE = "'[\\x00-\\x1f\"\\\\]'"


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _escaped(expr: str) -> str:
    """SQL: the VARCHAR ``expr`` escaped as a JSON string's content (``\\`` and ``"`` first, then each
    control character as ``\\n``... or ``\\u00xx``, lowercase hex, as Python and RFC 8785 write them).
    DuckDB text is valid UTF-8, so every other character is written as itself."""
    escaped = f"replace(replace({expr}, '\\', '\\\\'), '\"', '\\\"')"
    for code in range(0x20):
        escape = _SHORT_ESCAPES.get(code) or f"\\u{code:04x}"
        escaped = f"replace({escaped}, chr({code}), {_sql_literal(escape)})"
    return escaped


@dataclass(frozen=True)
class SqlValue:
    """A JSON value of the hash input form, as SQL: the pieces DuckDB concatenates into its canonical
    text (``pieces(escape)``; with ``escape`` False they hold the strings as they are, valid only when
    none needs escaping), the VARCHAR expressions whose text it holds (``strings``), and ``present``:
    SQL true where the value is there at all (None: always; an absent value leaves its key out of the
    object that holds it)."""

    pieces: Callable[[bool], list[str]]
    strings: tuple[str, ...] = ()
    present: str | None = None


def sql_string(expr: str) -> SqlValue:
    """The VARCHAR ``expr`` as a JSON string (``null`` for NULL)."""
    return SqlValue(lambda escape: [f"CASE WHEN {expr} IS NULL THEN 'null' ELSE '\"' END",
                                    _escaped(expr) if escape else expr,
                                    f"CASE WHEN {expr} IS NULL THEN '' ELSE '\"' END"], (expr,))


def sql_int(expr: str) -> SqlValue:
    """The integer ``expr`` in the hash input form (``"i:7"``; ``null`` for NULL)."""
    return SqlValue(lambda escape: [f"CASE WHEN {expr} IS NULL THEN 'null' ELSE '\"i:' END",
                                    f"CAST({expr} AS VARCHAR)", f"CASE WHEN {expr} IS NULL THEN '' ELSE '\"' END"])


def sql_bool(expr: str) -> SqlValue:
    """The BOOLEAN ``expr`` (``true``, ``false``, ``null``)."""
    return SqlValue(lambda escape: [f"CASE WHEN {expr} THEN 'true' WHEN NOT {expr} THEN 'false' ELSE 'null' END"])


def sql_text_or_int(text: str, integer: str) -> SqlValue:
    """The VARCHAR ``text`` as a JSON string where it is not NULL, else the integer ``integer`` in the hash
    input form; absent where both are NULL (a measured field a row does not have)."""
    return SqlValue(lambda escape: [f"CASE WHEN {text} IS NOT NULL THEN '\"' WHEN {integer} IS NOT NULL THEN '\"i:' "
                                    "ELSE '' END",
                                    f"coalesce({_escaped(text) if escape else text}, CAST({integer} AS VARCHAR))",
                                    f"CASE WHEN {text} IS NOT NULL OR {integer} IS NOT NULL THEN '\"' ELSE '' END"],
                    (text,), f"({text} IS NOT NULL OR {integer} IS NOT NULL)")


def sql_object(fields: dict[str, SqlValue]) -> SqlValue:
    """An object of the values ``fields``, its keys in RFC 8785 order (UTF-16 code units). A value that
    may be absent leaves its key out where it is; such a key must be followed by one always present."""
    items = sorted(fields.items(), key=lambda pair: _utf16_order(pair[0]))
    if items and items[-1][1].present is not None:
        raise ValueError("the last key of an object must always be present")

    def pieces(escape: bool) -> list[str]:
        out = ["'{'"]
        for key, value in items:
            name = _sql_literal(_encode_str(key) + ":")
            if value.present is None:
                out += [name, *value.pieces(escape), "','"]
            else:  # the key, its value and the comma after it, or nothing
                out += [f"CASE WHEN {value.present} THEN {name} ELSE '' END", *value.pieces(escape),
                        f"CASE WHEN {value.present} THEN ',' ELSE '' END"]
        if len(out) > 1:
            out.pop()  # the comma after the last value
        return [*out, "'}'"]

    return SqlValue(pieces, tuple(s for _, value in items for s in value.strings))


def sql_text(value: SqlValue) -> str:
    """SQL: the canonical text of ``value``, in one ``concat``. A row none of whose strings needs JSON
    escaping (one regular expression over them all) takes the pieces as they are; another, the escaped ones."""
    plain = "concat(" + ", ".join(value.pieces(False)) + ")"
    if not value.strings:
        return plain
    escaped = "concat(" + ", ".join(value.pieces(True)) + ")"
    return (f"CASE WHEN regexp_matches(concat({', '.join(value.strings)}), {_NEEDS_ESCAPE}) THEN {escaped} "
            f"ELSE {plain} END")


def evidence_sql(*, row_id: str, dimension: str, case_id: str, trial: str, status: str, reason: str, label: str,
                 control: str, included: str) -> str:
    """SQL twin of :func:`evidence_digest`'s text: SQL expressions in, the canonical text's SQL out."""
    return sql_text(sql_object({
        "case_id": sql_string(case_id), "control": sql_bool(control), "dimension": sql_string(dimension),
        "id": sql_string(row_id), "included": sql_bool(included), "label": sql_string(label),
        "reason": sql_string(reason), "status": sql_string(status), "trial": sql_int(trial)}))


def results_sql(*, row_id: str, case_id: str, dimension: str, trial: str, measured: dict[str, SqlValue]) -> str:
    """SQL twin of :func:`results_digest`'s text: ``measured`` maps each measured field to its value
    (:func:`sql_string`, :func:`sql_text_or_int`...; absent where the row lacks it)."""
    return sql_text(sql_object({
        "case_id": sql_string(case_id), "dimension": sql_string(dimension), "id": sql_string(row_id),
        "measured": sql_object(measured), "trial": sql_int(trial)}))


def suite_sql(*, case_id: str, dimension: str) -> str:
    """SQL twin of the suite row form of a case without a definition (``{"case_id", "definition": {},
    "dimension"}``, :func:`row_digest`)."""
    return sql_text(sql_object({"case_id": sql_string(case_id), "definition": sql_object({}),
                                "dimension": sql_string(dimension)}))


def sql_digest(text: str) -> str:
    """SQL: the row digest (lowercase hex SHA-256) of canonical text given as SQL."""
    return f"sha256({text})"


def sql_row_digest(text: str) -> str:
    """SQL: what :func:`text_digests` turns into row digests, of canonical text given as SQL: the text
    itself where the C helper hashes it (with the CPU's SHA instructions where it has them: 10M texts
    of 170 bytes in 1.7 s on one core, where DuckDB's ``sha256`` took 3.4 s on two), else DuckDB's
    SHA-256 of it as 32 bytes."""
    return text if _c_sha256_texts is not None else f"unhex({sql_digest(text)})"


def text_digests(column: Any) -> Any:
    """The row digests, as (n, 32) bytes in a new numpy array, of an Arrow column of
    :func:`sql_row_digest` values (its NULLs left out): each text hashed by the C helper straight from
    the column's buffers, or the 32-byte digests DuckDB gave."""
    import numpy as np

    if _c_sha256_texts is None:
        return digest_blobs(column)
    column, bounds, data, width = _text_buffers(column)
    out = np.empty((len(column), 32), dtype=np.uint8)
    _c_sha256_texts(bounds, data if data is not None else b"", width, out.data, True)
    return out


def digest_blobs(column: Any) -> Any:
    """An Arrow column of 32-byte digests (NULLs left out) as (n, 32) bytes in a new numpy array;
    ``ValueError`` for a value of another length."""
    import numpy as np

    column, bounds, data, _width = _text_buffers(column)
    if (np.diff(bounds) != 32).any():
        raise ValueError("a value that is not a 32-byte digest")
    return np.frombuffer(data, dtype=np.uint8, count=32 * len(column), offset=int(bounds[0])).reshape(-1, 32).copy()


def _text_buffers(column: Any) -> tuple[Any, Any, Any, int]:
    """An Arrow text or bytes column without its NULLs, its n + 1 offsets (numpy), data buffer and offset width."""
    import numpy as np
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_string_view(column.type) or pa.types.is_binary_view(column.type):
        column = column.cast(pa.large_binary())
    if column.null_count:
        column = column.drop_null()
    wide = pa.types.is_large_string(column.type) or pa.types.is_large_binary(column.type)
    if not (wide or pa.types.is_string(column.type) or pa.types.is_binary(column.type)):
        raise TypeError(f"a column of text or bytes, not {column.type}")
    _validity, offsets, data = column.buffers()
    width = 8 if wide else 4
    bounds = np.frombuffer(offsets, dtype=np.int64 if wide else np.int32, count=len(column) + 1,
                           offset=width * column.offset)
    return column, bounds, data, width
