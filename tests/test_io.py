"""scorekit/_io.py. Bounded reads of users' files: regular files only, capped where a file cannot be large.

Every reader refuses a FIFO, a device or a symlink to one with a one-line
message ("not a regular file") instead of hanging or reading without end, and a
policy, key, envelope or card beyond its cap is refused before it is read.
Special files are made here in tmp_path (never committed).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import scorekit as sk
from scorekit import _io
from scorekit._errors import FileProblem, HistoryError, InputError, PolicyError, SignatureError
from scorekit._io import read_bounded, read_input_bytes
from scorekit._policy import load_policy
from scorekit._rows import open_source
from scorekit.release import ScorecardFileError, parse_scorecard

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")

HANG_LIMIT_S = 30  # generous: a reader that returns at all returns in milliseconds


def _outcome(call: Callable[[], Any], fifo: Path | None = None) -> BaseException | None:
    """Run ``call`` in a thread; the exception it raised (None if none), failing the test if it hangs.

    A reader stuck opening ``fifo`` is released by opening the FIFO's write end after the limit.
    """
    box: dict[str, BaseException | None] = {"error": None}

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_LIMIT_S)
    if thread.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # release the blocked reader
            thread.join(HANG_LIMIT_S)
        pytest.fail(f"the reader hung for {HANG_LIMIT_S} s on a special file")
    return box["error"]


def _readers(path: Path) -> dict[str, tuple[Callable[[], Any], type[BaseException]]]:
    """Every reader of a user's file, given ``path`` (named with the suffix it expects)."""
    from scorekit import history
    from scorekit.release._gate import load_thresholds
    from scorekit.render import render_notebook
    from scorekit.signing import _load_private_key, _load_public_key_raw, read_json_strict, verify_scorecard

    return {
        "results": (lambda: open_source(path), InputError),
        "policy": (lambda: load_policy(path), PolicyError),
        "thresholds manifest": (lambda: load_thresholds(path), PolicyError),
        "SCORECARD.md": (lambda: parse_scorecard(path), ScorecardFileError),
        "scorecard.json": (lambda: read_json_strict(path, "scorecard"), SignatureError),
        "private key": (lambda: _load_private_key(path), SignatureError),
        "public key": (lambda: _load_public_key_raw(path), SignatureError),
        "signature": (lambda: verify_scorecard(sk.example_path(), path), SignatureError),
        "history": (lambda: history.read_history(path), HistoryError),
        "render results": (lambda: render_notebook(path), InputError),
    }


def _special_path(tmp_path: Path, kind: str, suffix: str) -> Path:
    path = tmp_path / f"{kind}{suffix}"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to({"zero": "/dev/zero", "urandom": "/dev/urandom"}[kind])
    return path


SUFFIXES = {"results": ".jsonl", "policy": ".yml", "thresholds manifest": ".json", "SCORECARD.md": ".md",
            "scorecard.json": ".json", "private key": ".pem", "public key": ".pub", "signature": ".sig.json",
            "history": ".sqlite", "render results": ".jsonl"}


@pytest.mark.parametrize("kind", ["fifo", "zero", "urandom"])
@pytest.mark.parametrize("reader", sorted(SUFFIXES))
def test_every_reader_refuses_a_file_that_is_not_regular(tmp_path, kind, reader):
    path = _special_path(tmp_path, kind, SUFFIXES[reader])
    call, error = _readers(path)[reader]
    exc = _outcome(call, path if kind == "fifo" else None)
    assert isinstance(exc, error), repr(exc)
    message = str(exc)
    assert "not a regular file" in message and str(path) in message
    assert "\n" not in message


def test_the_kind_of_special_file_is_named(tmp_path):
    fifo = _special_path(tmp_path, "fifo", "")
    with pytest.raises(FileProblem) as info:
        read_bounded(fifo, None)
    assert (info.value.kind, info.value.detail) == ("special", "a FIFO")
    with pytest.raises(InputError, match=r"x\.pem: not a regular file \(a character device\), not a private key"):
        read_input_bytes(_special_path(tmp_path, "zero", ".pem"), "private key", name="x.pem")


def test_render_says_not_a_regular_file_not_no_such_file(tmp_path):
    from scorekit.render import render_notebook

    fifo = _special_path(tmp_path, "fifo", ".jsonl")
    exc = _outcome(lambda: render_notebook(fifo), fifo)
    assert isinstance(exc, InputError) and "not a regular file" in str(exc) and "no such file" not in str(exc)
    exc = _outcome(lambda: render_notebook(sk.example_path(), _special_path(tmp_path, "zero", ".yml")))
    assert isinstance(exc, InputError) and "not a regular file" in str(exc)
    missing = _outcome(lambda: render_notebook(tmp_path / "missing.jsonl"))
    assert isinstance(missing, InputError) and "no such file" in str(missing)


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as handle:  # a sparse file: its size costs no disk and nothing is read
        handle.truncate(size)
    return path


@pytest.mark.parametrize(
    ("reader", "cap"),
    [("policy", _io.DEFAULT_LIMIT), ("thresholds manifest", _io.DEFAULT_LIMIT),
     ("private key", _io.KEY_LIMIT), ("public key", _io.KEY_LIMIT), ("signature", _io.SIGNATURE_LIMIT),
     ("scorecard.json", _io.SCORECARD_JSON_LIMIT)],
)
def test_files_that_cannot_be_that_large_are_refused_over_their_cap(tmp_path, reader, cap):
    path = _sparse(tmp_path / f"big{SUFFIXES[reader]}", cap + 1)
    call, error = _readers(path)[reader]
    with pytest.raises(error, match="too large") as info:
        call()
    assert str(path) in str(info.value)


def test_scorecard_md_over_its_cap_is_refused(tmp_path):
    from scorekit.release._parse import MAX_SCORECARD_BYTES

    path = _sparse(tmp_path / "SCORECARD.md", MAX_SCORECARD_BYTES + 1)
    with pytest.raises(ScorecardFileError, match="too large"):
        parse_scorecard(path)


def test_a_file_at_its_cap_is_read_whole(tmp_path):
    path = tmp_path / "key.pem"
    path.write_bytes(b"k" * _io.KEY_LIMIT)
    assert read_bounded(path, _io.KEY_LIMIT) == b"k" * _io.KEY_LIMIT
    with pytest.raises(FileProblem) as info:
        read_bounded(path, _io.KEY_LIMIT - 1)
    assert info.value.kind == "too_large"


def test_results_files_are_not_capped(tmp_path):
    # Larger than every cap of the other readers, and still read (then judged as rows).
    path = tmp_path / "results.jsonl"
    row = (
        b'{"id": "r%d", "dimension": "helpfulness", "status": "PASS", "evaluator": "h", "agent_output": "'
        + b"x" * 4000
        + b'"}\n'
    )
    with open(path, "wb") as handle:
        for i in range(_io.DEFAULT_LIMIT // len(row) + 10):
            handle.write(row.replace(b"%d", str(i).encode()))
    assert path.stat().st_size > _io.DEFAULT_LIMIT
    assert len(open_source(path).lines) > _io.DEFAULT_LIMIT // len(row)


def test_a_symlink_to_a_regular_file_is_read(tmp_path):
    target = tmp_path / "policy.yml"
    target.write_text("purpose: exploratory\n", encoding="utf-8")
    link = tmp_path / "link.yml"
    link.symlink_to(target)
    assert load_policy(link).purpose == "exploratory"


# --------------------------------------------------------------------------- readers that report problems
def test_lint_refuses_a_package_json_that_is_not_regular(tmp_path):
    from scorekit.release import lint_doc_root

    os.mkfifo(tmp_path / "package.json")
    problems = _outcome(lambda: lint_doc_root(tmp_path)) or lint_doc_root(tmp_path)
    assert any("package.json: not a regular file (a FIFO)" in p for p in problems), problems


def test_history_header_is_read_from_regular_files_only(tmp_path):
    from scorekit import history

    link = _special_path(tmp_path, "zero", ".sqlite")
    exc = _outcome(lambda: history.read_history(link))
    assert isinstance(exc, HistoryError) and "not a regular file (a character device)" in str(exc)


def test_read_bounded_head_reads_the_start_of_a_larger_file(tmp_path):
    path = tmp_path / "db.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"x" * 1000)
    assert read_bounded(path, 16, head=True) == b"SQLite format 3\x00"
    with pytest.raises(FileProblem) as info:
        read_bounded(path, 16)
    assert info.value.kind == "too_large"


# --------------------------------------------------------------------------- UTF-8
def test_not_utf8_offset_counts_the_byte_order_mark(tmp_path):
    path = tmp_path / "policy.yml"
    path.write_bytes(b"\xef\xbb\xbfpurpose: r\xe9lease\n")  # the bad byte is at offset 13 of the file
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    assert str(info.value) == f"{path}: not UTF-8 (invalid byte at offset 13)"


@pytest.mark.parametrize("suffix", [".jsonl", ".csv"])
def test_results_file_not_utf8_has_the_shared_message(tmp_path, suffix):
    path = tmp_path / f"rows{suffix}"
    data = b'{"id": "caf\xe9", "dimension": "pii"}\n' if suffix == ".jsonl" else b"id,dimension\ncaf\xe9,pii\n"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        open_source(path)
    offset = 11 if suffix == ".jsonl" else 16
    assert str(info.value) == f"{path}: not UTF-8 (invalid byte at offset {offset})"


def test_check_utf8_finds_a_bad_byte_beyond_the_first_chunk():
    data = b"a" * ((1 << 20) + 5) + b"\xff"
    with pytest.raises(InputError, match=rf"big: not UTF-8 \(invalid byte at offset {len(data) - 1}\)"):
        _io.check_utf8(data, "big")
    _io.check_utf8(b"a" * ((1 << 20) - 1) + "é".encode(), "big")  # a character split across chunks is UTF-8


# --------------------------------------------------------------------------- strict JSON
@pytest.mark.parametrize(
    ("text", "kind", "detail"),
    [
        ('{"a": 1, "a": 2}', "duplicate_key", "a"),
        ('{"x": [{"b": 1, "b": 1}]}', "duplicate_key", "b"),
        ('{"a": NaN}', "constant", "NaN"),
        ('[Infinity]', "constant", "Infinity"),
        ('[-Infinity]', "constant", "-Infinity"),
        ('{"a": 1e999}', "overflow", "1e999"),
        ('[1' + "0" * 5000 + "]", "too_long", None),
        ("[" * 100_000 + "]" * 100_000, "too_deep", ""),
    ],
)
def test_loads_strict_refuses_what_json_would_read_silently(text, kind, detail):
    from scorekit._errors import StrictJSONError

    with pytest.raises(StrictJSONError) as info:
        _io.loads_strict(text)
    assert info.value.kind == kind and "\n" not in str(info.value)
    if detail is not None:
        assert info.value.detail == detail
    else:
        assert info.value.detail.startswith("Exceeds the limit")  # Python's own words, for readers that quote them


def test_loads_strict_relaxes_only_what_it_is_told():
    from scorekit._errors import DuplicateKeyError, StrictJSONError

    assert _io.loads_strict('{"a": 1e999}', nonfinite="overflow") == {"a": float("inf")}
    with pytest.raises(StrictJSONError, match="NaN"):
        _io.loads_strict('{"a": NaN}', nonfinite="overflow")
    kept = _io.loads_strict('{"a": NaN, "b": -Infinity, "c": 1e999}', nonfinite="keep")
    assert kept["a"] != kept["a"] and kept["b"] == float("-inf") and kept["c"] == float("inf")
    for nonfinite in ("refuse", "overflow", "keep"):  # a repeated key is never read
        with pytest.raises(DuplicateKeyError):
            _io.loads_strict('{"a": 1, "a": 1}', nonfinite=nonfinite)


def test_read_json_strict_names_the_file_and_the_problem(tmp_path):
    path = tmp_path / "scorecard.json"
    path.write_text('{"decision": "PASS",\n "decision": "FAIL"}', encoding="utf-8")
    with pytest.raises(InputError) as info:
        _io.read_json_strict(path, "scorecard", InputError)
    assert str(info.value) == f"{path}: the scorecard cannot be used: duplicate object key 'decision'"
    path.write_text('{"decision": ', encoding="utf-8")
    with pytest.raises(InputError, match=r"scorecard\.json:1: the scorecard is not valid JSON"):
        _io.read_json_strict(path, "scorecard", InputError)


def test_package_json_with_a_repeated_key_is_refused_by_lint(tmp_path):
    from scorekit.release import lint_doc_root

    (tmp_path / "package.json").write_text('{"files": ["SCORECARD.md"], "files": []}', encoding="utf-8")
    problems = lint_doc_root(tmp_path)
    assert f"{tmp_path / 'package.json'}: invalid JSON: duplicate object key 'files'" in problems


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_repeated_key_in_a_structured_cell_makes_the_row_invalid(tmp_path, suffix):
    import pandas as pd

    from scorekit._rows import read_row_table

    path = tmp_path / f"rows{suffix}"
    frame = pd.DataFrame([{"id": "r1", "dimension": "pii", "evaluator": "h", "status": "PASS",
                           "observed_state": '{"label": "a", "label": "b"}'}])
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    table = read_row_table(path)
    line = 2 if suffix == ".csv" else 1
    assert [(p.line, p.field, p.message) for p in table.problems] == [
        (line, "observed_state", "duplicate key 'label' in one object; JSON would silently keep only the last value")]


# --------------------------------------------------------------------------- atomic writes
def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_atomic_write_leaves_no_partial_file_on_failure(tmp_path):
    path = tmp_path / "report.md"
    path.write_text("the old report", encoding="utf-8")

    def half_then_fail(tmp: Path) -> None:
        tmp.write_text("half a rep", encoding="utf-8")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        _io.atomic_write(path, half_then_fail)
    assert path.read_text(encoding="utf-8") == "the old report" and _leftovers(tmp_path) == []
    new = tmp_path / "new.md"
    with pytest.raises(KeyboardInterrupt):  # even an interrupt leaves nothing behind
        _io.atomic_write(new, lambda tmp: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert not new.exists() and _leftovers(tmp_path) == []


def test_atomic_write_gives_the_file_its_mode(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    plain = _io.atomic_write(tmp_path / "a.json", lambda tmp: tmp.write_bytes(b"{}"))
    secret = _io.atomic_write(tmp_path / "k.pem", lambda tmp: tmp.write_bytes(b"key"), mode=0o600)
    assert plain.stat().st_mode & 0o777 == 0o666 & ~umask
    assert secret.stat().st_mode & 0o777 == 0o600 and secret.read_bytes() == b"key"


def _package_sources() -> dict[str, str]:
    root = Path(sk.__file__).parent
    return {str(p.relative_to(root)): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))
            if "examples" not in p.parts}


def test_atomic_writes_live_only_in_io():
    # One home: every writer calls _io.atomic_write, none renames a temporary file of its own.
    found = {name for name, text in _package_sources().items()
             if any(marker in text for marker in ("os.replace(", "mkstemp(", "NamedTemporaryFile(", "os.rename("))}
    assert found == {"_io.py"}


def test_strict_json_decoding_lives_only_in_io():
    # One home: duplicate keys are refused by _io.unique_object, through _io.loads_strict.
    found = {name for name, text in _package_sources().items() if "object_pairs_hook" in text}
    assert found == {"_io.py"}
