"""The optional C helper (scorekit/_speedups.c) against the Python paths it replaces."""

from __future__ import annotations

import json
import os
from collections import OrderedDict

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shared import c_helper_built, python_paths

from scorekit import _hashing
from scorekit._errors import DuplicateKeyError
from scorekit._io import unique_object
from scorekit._rows import FileLines, _screens

if not c_helper_built():
    if os.environ.get("CI"):
        raise AssertionError("CI must build the C helper scorekit._speedups (see hatch_build.py)")
    pytest.skip("the C helper scorekit._speedups is not built", allow_module_level=True)

from scorekit import _speedups  # noqa: E402

TEXT = st.text(max_size=8)
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT
    | st.sampled_from(["i:1", "f:1.0", "1", "true", "null"])
)
JSON = st.recursive(
    SCALARS,
    lambda c: st.lists(c, max_size=4) | st.tuples(c, c) | st.dictionaries(TEXT, c, max_size=4),
    max_leaves=16,
)


def python_canonical(value):
    return _hashing._jcs(_hashing.tag_numbers(value))


def _may_decline(value) -> bool:
    """What the C form declines by design: a key beyond U+FFFF (JCS orders keys by
    UTF-16 units) or a lone surrogate anywhere; everything else it must write."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if any(0xD800 <= ord(ch) <= 0xDFFF for ch in node):
                return True
        elif isinstance(node, dict):
            if any(isinstance(k, str) and any(ord(ch) > 0xFFFF for ch in k) for k in node):
                return True
            stack.extend(node)
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return False


@settings(max_examples=500)
@given(JSON)
def test_canonical_is_the_python_hash_form_or_declines(value):
    data = _speedups.canonical(value)
    if not _may_decline(value):
        assert data is not None, value  # the C path ran: a decline here would hide a bug
    try:
        expected = python_canonical(value)
    except Exception:  # a lone surrogate the reference implementation refuses
        assert data is None
    else:
        assert data is None or data == expected


def test_canonical_declines_what_it_does_not_write_exactly():
    class Text(str):
        pass

    assert _speedups.canonical({"\U0001f600": 1, "z": 2}) is None  # JCS orders such keys by UTF-16 units
    assert _speedups.canonical(["\ud800"]) is None  # a lone surrogate
    assert _speedups.canonical(Text("x")) is None and _speedups.canonical(OrderedDict(a=1)) is None
    assert _speedups.canonical({1: "x"}) is None and _speedups.canonical({1.5}) is None
    deep: list = []
    for _ in range(300):
        deep = [deep]
    assert _speedups.canonical(deep) is None
    # ...and the public function still answers, through the Python path.
    assert _hashing.canonical_bytes({"\U0001f600": 1, "z": 2}) == b'{"z":"i:2","\xf0\x9f\x98\x80":"i:1"}'


def test_canonical_writes_numbers_as_their_python_repr():
    assert _speedups.canonical([1, -0.0, 1e16, 1.5e-7, 2**80, float("inf"), True, None]) == (
        b'["i:1","f:-0.0","f:1e+16","f:1.5e-07","i:1208925819614629174706176","f:inf",true,null]'
    )
    assert _speedups.canonical({"b": "\x00\x1f\"\\\n\r\t\b\f\x7f", "a": "é"}) == (
        '{"a":"é","b":"\\u0000\\u001f\\"\\\\\\n\\r\\t\\b\\f\x7f"}'.encode()
    )


def strictly_equal(a, b) -> bool:
    """Equal values of equal types at every depth (1, 1.0, True and "1" all differ; so do 0.0 and -0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strictly_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(strictly_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return repr(a) == repr(b)  # -0.0 and 0.0 differ, as they do in JSON text
    return a == b


SMALL = st.recursive(
    st.sampled_from([0, 1, 1.0, True, False, None, "1", "i:1", "", "a", -0.0, 0.0]),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "i:1"]), c, max_size=2),
    max_leaves=6,
)


@settings(max_examples=500)
@given(SMALL, SMALL)
def test_exact_key_is_equal_exactly_for_strictly_equal_values(a, b):
    ka, kb = _speedups.exact_key(a), _speedups.exact_key(b)
    assert ka is not None and kb is not None
    assert (ka == kb) == strictly_equal(a, b)


def test_exact_key_ignores_object_key_order_only():
    assert _speedups.exact_key({"a": 1, "b": [2]}) == _speedups.exact_key({"b": [2], "a": 1})
    assert _speedups.exact_key([1, 2]) != _speedups.exact_key([2, 1])
    assert _speedups.exact_key([1]) != _speedups.exact_key((1,))


# --------------------------------------------------------------------------- duplicate keys
def has_duplicate(text: str) -> bool:
    try:
        json.loads(text, object_pairs_hook=unique_object)
    except DuplicateKeyError:
        return True
    return False


KEYS = st.sampled_from(["a", "b", "id", "status", "a\\u0062", "\\u0061", "é", "x y"])


@st.composite
def json_texts(draw, depth: int = 0):
    """JSON text whose objects may repeat a key, spelt plainly or escaped, with any spacing."""
    space = draw(st.sampled_from(["", " ", "\t"]))
    kind = draw(st.sampled_from(["object", "array", "scalar"] if depth < 3 else ["scalar"]))
    if kind == "scalar":
        return draw(st.sampled_from(['1', '"s"', '"a\\":"', '"{\\"a\\":1}"', "null", "true", '"\\\\"']))
    if kind == "array":
        items = draw(st.lists(json_texts(depth + 1), max_size=3))
        return "[" + ("," + space).join(items) + "]"
    keys = draw(st.lists(KEYS, max_size=4))
    members = [f'"{key}"{space}:{space}{draw(json_texts(depth + 1))}' for key in keys]
    return "{" + space + ("," + space).join(members) + space + "}"


@settings(max_examples=400)
@given(json_texts())
def test_duplicate_key_never_misses_a_repeat(text):
    json.loads(text)  # the strategy writes valid JSON
    verdict = _speedups.duplicate_key(text.encode())
    assert verdict in (0, 1, -1)
    if has_duplicate(text):
        assert verdict != 0, text
    elif verdict == 1:
        raise AssertionError(f"a repeat reported where there is none: {text}")


@settings(max_examples=400)
@given(json_texts())
def test_the_python_check_never_misses_a_repeat_either(text):
    assume(text.startswith("{"))
    if has_duplicate(text):
        with python_paths():
            assert _screens.may_repeat_a_key(text.encode(), json.loads(text)), text


def test_duplicate_key_gives_up_rather_than_guess():
    many = "{" + ",".join(f'"k{i}":1' for i in range(100)) + "}"
    assert _speedups.duplicate_key(many.encode()) == -1
    assert _speedups.duplicate_key(("[" * 300 + "]" * 300).encode()) == -1
    assert _speedups.duplicate_key(b'{"a":1,"\\u0061":2}') == -1
    assert _speedups.duplicate_key(b'{"a":{"x":1},"b":{"x":1}}') == 0
    assert _speedups.duplicate_key(b'{"a":{"x":1,"x":2}}') == 1


# --------------------------------------------------------------------------- number screen
PIECES = st.sampled_from(["0", "7", "9" * 8, "e", "E", "+", "-", ".", "N", "a", "NaN", "I", "nfinity", "Infinity",
                          "x", " ", '"', "é", "1" * 15])


@settings(max_examples=600)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_text_is_clean_in_c_agrees_with_python(text):
    data = text.encode()
    with python_paths():
        expected = _screens.text_is_clean(data)
    assert _speedups.text_is_clean(data) is expected
    assert _speedups.text_is_clean(memoryview(b"[" + data + b"]")[1:-1]) is expected


def test_file_lines_screen_the_whole_file_at_once(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 200_000 + b'{"a": 1e400}\n')
    lines = FileLines(path.read_bytes())
    assert not lines.is_clean() and lines[:200_000].is_clean()


# --------------------------------------------------------------------------- memory
def test_no_utf8_copy_is_left_inside_the_strings_it_reads():
    import sys

    text, key = "café " * 200, "clé"
    before = sys.getsizeof(text), sys.getsizeof(key)
    _speedups.canonical({key: [text]})
    _speedups.exact_key({key: [text]})
    assert (sys.getsizeof(text), sys.getsizeof(key)) == before


def test_repeated_calls_leak_nothing():
    import gc
    import tracemalloc

    values = [
        {"clé": ["café", 1, 2.5, None], "z": {"ß": True}},
        {"a": 1, "é": "\ud800"},  # declined half-way through a dict with a non-ASCII key
        {f"k{i}é": i for i in range(40)},  # more keys than the stack array holds
        [[[["x" * 3000, "ü" * 3000]]]],
    ]

    def run():
        for _ in range(300):
            for value in values:
                _speedups.canonical(value)
                _speedups.exact_key(value)
            _speedups.evidence_canonical("c", False, "d", "é", True, "labeled", None, "PASS", 3)
            _speedups.duplicate_key(b'{' + b",".join(b'"k%d":1' % i for i in range(70)) + b'}')

    run()
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        run()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert grown < 64 * 1024, grown


# --------------------------------------------------------------------------- definition keys from the text
from scorekit._validate import DEFINITION_FIELDS, text_definition_key  # noqa: E402

DEFINITION_VALUES = st.sampled_from([1, 1.0, True, "1", "i:1", None, [1], [1.0], {"a": 1}, {"a": 1.0}, "x,\"input\":2",
                                     "}", "]", "\\", {"b": [1, {"c": "]"}]}, [], {}])
ROW_FIELDS = st.sampled_from(["input", "must_include", "expected_state", "tool_schemas", "cost_budget_usd",
                              "context", "agent_output", "id", "trial"])


@st.composite
def row_texts(draw):
    row = draw(st.dictionaries(ROW_FIELDS, DEFINITION_VALUES, max_size=5))
    separators = draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")]))
    return row, json.dumps(row, separators=separators, ensure_ascii=draw(st.booleans()))


@settings(max_examples=800)
@given(row_texts(), row_texts())
def test_equal_text_keys_mean_strictly_equal_definitions(first, second):
    (row_a, text_a), (row_b, text_b) = first, second
    key_a, key_b = text_definition_key(text_a.encode()), text_definition_key(text_b.encode())
    assert key_a is not None and key_b is not None
    definition = lambda row: {k: v for k, v in row.items() if k in DEFINITION_FIELDS}  # noqa: E731
    if key_a == key_b:
        assert strictly_equal(definition(row_a), definition(row_b)), (text_a, text_b)
    if text_a == text_b:
        assert key_a == key_b


def test_text_keys_decline_what_the_text_does_not_show():
    assert text_definition_key(b'{"inp\\u0075t": "x"}') is None  # an escaped key's name
    assert text_definition_key(b"[1, 2]") is None
    assert text_definition_key(b'{"input": "x"}') == text_definition_key(b'{"input" : "x" }')
    assert text_definition_key(b'{"input": "x"}') != text_definition_key(b'{"input": "y"}')
    assert text_definition_key(b'{"id": "a", "input": "x"}') == text_definition_key(b'{"id": "b", "input": "x"}')


def test_equal_definitions_written_differently_are_no_conflict(tmp_path):
    import scorekit as sk

    rows = [
        '{"id": "a", "case_id": "c", "dimension": "task_completion", "must_include": ["x"], "input": "q", '
        '"agent_output": "x"}',
        '{"input":"q","must_include":[ "x" ],"id":"b","case_id":"c","dimension":"task_completion","agent_output":"x",'
        '"trial":1}',
        '{"id": "d", "case_id": "c", "dimension": "task_completion", "must_include": ["y"], "input": "q", '
        '"agent_output": "y", "trial": 2}',
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(rows[:2]) + "\n", encoding="utf-8")
    assert sk.evaluate(path).validation.invalid == 0
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    problems = sk.evaluate(path).validation.problems
    assert {p.line for p in problems if "more than one definition" in p.message} == {1, 2, 3}


@st.composite
def object_texts(draw):
    """Object text with whitespace anywhere, near-miss and repeated keys, escapes, and 1.0 written five ways."""
    space = st.sampled_from(["", " ", "\n", "\t", "\r\n "])
    text = st.text(alphabet=st.sampled_from(list('a"\\,}]{[: \n\t\x00é\U0001d11e\u2028')), max_size=6)
    keys = st.sampled_from([*DEFINITION_FIELDS[:6], "inp", "inputs", "id", "input ", "Input", "ïnput"])
    scalars = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from([1.0, -0.0, 0.5]) | text
    values = st.recursive(scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(text | keys, c, max_size=3),
                          max_leaves=8)

    def dump(value):
        if isinstance(value, dict):
            members = [draw(space) + json.dumps(k, ensure_ascii=draw(st.booleans())) + draw(space) + ":" + draw(space)
                       + dump(v) + draw(space) for k, v in value.items()]
            return "{" + ",".join(members) + draw(space) + "}"
        if isinstance(value, list):
            return "[" + draw(space) + ",".join(draw(space) + dump(v) + draw(space) for v in value) + "]"
        if isinstance(value, float) and value == 1.0:
            return draw(st.sampled_from(["1.0", "1e0", "1E+0", "10e-1", "1.00"]))
        return json.dumps(value, ensure_ascii=draw(st.booleans()))

    pairs = draw(st.lists(st.tuples(keys, values), max_size=6))
    body = ",".join(draw(space) + json.dumps(k, ensure_ascii=draw(st.booleans())) + draw(space) + ":" + draw(space)
                    + dump(v) + draw(space) for k, v in pairs)
    return draw(space) + "{" + body + draw(space) + "}" + draw(space)


@settings(max_examples=500)
@given(object_texts())
def test_definition_text_holds_exactly_the_parsed_definition_fields(text):
    from scorekit._validate import _DEFINITION_NAMES

    blob = _speedups.definition_text(text.encode("utf-8", "surrogatepass"), _DEFINITION_NAMES)
    assume(blob is not None)  # an escaped top-level key is declined (tested below); the rest must be read
    parts = blob.split(b"\0")[:-1]
    found: dict = {}
    for name, value in zip(parts[::2], parts[1::2], strict=True):
        found[name.decode()] = json.loads(value)  # a repeated key: the last one wins, as in json.loads
    expected = {k: v for k, v in json.loads(text).items() if k in DEFINITION_FIELDS}
    assert json.dumps(found, sort_keys=True) == json.dumps(expected, sort_keys=True), text


def test_scans_of_text_that_is_not_json_stay_inside_it():
    for broken in (b'{"input":"abc', b'{"input":"ab\\', b'{"in', b'{"a":{"b":"', b'{"input": [1, "x'):
        assert _speedups.definition_text(bytearray(broken), (b"input",)) is None
        assert _speedups.duplicate_key(bytearray(broken)) in (0, -1)



def test_type_stub_matches_the_c_module():
    """scorekit/_speedups.pyi (what mypy checks the callers against) names exactly the C
    module's functions, each with the parameters its C docstring gives, all positional-only
    (METH_O / METH_FASTCALL take no keywords). (`python -m mypy.stubtest scorekit._speedups`
    checks the same more slowly.)"""
    import ast
    import re
    from pathlib import Path

    stub = ast.parse((Path(_speedups.__file__).parent / "_speedups.pyi").read_text(encoding="utf-8"))
    stubbed = {node.name: node.args for node in stub.body if isinstance(node, ast.FunctionDef)}
    compiled = {name for name in dir(_speedups) if not name.startswith("_") and callable(getattr(_speedups, name))}
    assert set(stubbed) == compiled
    for name, args in stubbed.items():
        assert not args.args and not args.kwonlyargs and args.vararg is None and args.kwarg is None, name
        documented = re.match(rf"{name}\(([^)]*)\)", getattr(_speedups, name).__doc__)
        assert documented, name
        params = [p.split(":")[0].strip() for p in documented.group(1).split(",")]
        assert [a.arg for a in args.posonlyargs] == params, name


# --------------------------------------------------------------------------- SHA-256 of many texts
# Lengths around the block edges (55/56 bytes: padding fits or takes a second block; 64...).
TEXTS = st.lists(st.binary(max_size=200) | st.integers(0, 300).map(lambda n: bytes(i % 256 for i in range(n)))
                 | st.sampled_from([b"a" * n for n in (55, 56, 63, 64, 65, 119, 120, 128)]),
                 max_size=40)


@settings(max_examples=150, deadline=None)
@given(texts=TEXTS, start=st.integers(0, 3), wide=st.booleans(), hardware=st.booleans())
def test_sha256_texts_is_hashlib_for_every_text_of_a_column(texts, start, wide, hardware):
    """Both the CPU's SHA instructions (where this machine has them) and the portable rounds give
    hashlib's digest of every text of an Arrow column, sliced or not, with 32- or 64-bit offsets."""
    import hashlib

    import numpy as np
    import pyarrow as pa

    column = pa.array(texts, pa.large_binary() if wide else pa.binary()).slice(min(start, len(texts)))
    _validity, offsets, data = column.buffers()
    width = 8 if wide else 4
    bounds = np.frombuffer(offsets, dtype=np.int64 if wide else np.int32, count=len(column) + 1,
                           offset=width * column.offset)
    out = np.zeros((len(column), 32), dtype=np.uint8)
    _speedups.sha256_texts(bounds, data if data is not None else b"", width, out, hardware)
    assert [row.tobytes() for row in out] == [hashlib.sha256(t).digest() for t in column.to_pylist()]


def test_sha256_texts_refuses_offsets_it_cannot_trust():
    """Offsets that fall, leave the data or do not fit the output raise before any text is read."""
    import numpy as np

    data = b"abcdef"
    out = np.zeros((2, 32), dtype=np.uint8)
    for bounds in ([0, 4, 2], [0, 3, 7], [-1, 3, 6]):
        with pytest.raises(ValueError, match="offsets"):
            _speedups.sha256_texts(np.array(bounds, dtype=np.int32), data, 4, out, True)
    with pytest.raises(ValueError, match="32 bytes per text"):
        _speedups.sha256_texts(np.array([0, 6], dtype=np.int32), data, 4, out, True)
    with pytest.raises(ValueError, match="width"):
        _speedups.sha256_texts(np.array([0, 6], dtype=np.int64), data, 2, out[:1], True)
    with pytest.raises(BufferError):
        _speedups.sha256_texts(np.array([0, 6], dtype=np.int32), data, 4, bytes(32), True)  # read-only


@pytest.mark.parametrize("kind", ["string", "large_string", "string_view"])
def test_text_digests_hash_each_text_and_leave_nulls_out(kind):
    """``text_digests`` over a DuckDB-like text column (NULL: no digest), chunked or not, in C; and
    ``digest_blobs`` gives 32-byte digests back as they are and refuses any other length."""
    import hashlib

    import pyarrow as pa

    texts = ['{"a":"x"}', None, "", "é" * 40, None, "z" * 300]
    column = pa.chunked_array([pa.array(texts[:2], getattr(pa, kind)()), pa.array(texts[2:], getattr(pa, kind)())])
    want = [hashlib.sha256(t.encode()).digest() for t in texts if t is not None]
    assert [row.tobytes() for row in _hashing.text_digests(column)] == want
    blobs = pa.array([hashlib.sha256(t.encode()).digest() if t is not None else None for t in texts], pa.binary())
    assert [row.tobytes() for row in _hashing.digest_blobs(blobs)] == want
    with pytest.raises(ValueError, match="32-byte digest"):
        _hashing.digest_blobs(pa.array([b"x" * 31, b"y" * 33], pa.binary()))


# --------------------------------------------------------------------------- the run-time switch
def test_pure_python_switch_turns_the_c_helper_off_at_run_time_with_the_same_card():
    """SCOREKIT_PURE_PYTHON=1 in the environment selects the Python paths
    (scorekit/_accel.py) although the helper is built; the scorecard is the same."""
    import subprocess
    import sys

    code = (
        "import json, scorekit as sk, scorekit._accel as a, scorekit._hashing as h, scorekit._validate as v;"
        "from scorekit._rows import _screens as s;"
        "card = sk.evaluate(sk.example_path(), policy=sk.example_path(file='policy.yml'));"
        "print(json.dumps([a.ENABLED, a.BUILT, h._c_canonical is None, v._c_exact_key is None,"
        " s._c_text_is_clean is None, h._c_sha256_texts is None, card.hashes, card.decision]))"
    )
    runs = {}
    for value in ("1", ""):
        env = dict(os.environ, SCOREKIT_PURE_PYTHON=value)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        runs[value] = json.loads(proc.stdout)
    assert runs["1"][:6] == [False, True, True, True, True, True]
    assert runs[""][:6] == [True, True, False, False, False, False]
    assert runs["1"][6:] == runs[""][6:]
