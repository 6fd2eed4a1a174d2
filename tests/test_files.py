"""Bounded reads of users' files (scorekit/_files.py): regular files only, capped where a file cannot be large.

Every reader refuses a FIFO, a device or a symlink to one with a one-line
message ("not a regular file") instead of hanging or reading without end, and a
policy, key, envelope or card beyond its cap is refused before it is read.
Special files are made here in tmp_path (never committed).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

import scorekit as sk
from scorekit import _files
from scorekit._errors import HistoryError, InputError, PolicyError, SignatureError
from scorekit._files import FileProblem, read_bounded, read_input_bytes
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
    [("policy", _files.DEFAULT_LIMIT), ("thresholds manifest", _files.DEFAULT_LIMIT),
     ("private key", _files.KEY_LIMIT), ("public key", _files.KEY_LIMIT), ("signature", _files.SIGNATURE_LIMIT),
     ("scorecard.json", _files.SCORECARD_JSON_LIMIT)],
)
def test_files_that_cannot_be_that_large_are_refused_over_their_cap(tmp_path, reader, cap):
    path = _sparse(tmp_path / f"big{SUFFIXES[reader]}", cap + 1)
    call, error = _readers(path)[reader]
    with pytest.raises(error, match="too large") as info:
        call()
    assert str(path) in str(info.value)


def test_scorecard_md_over_its_cap_is_refused(tmp_path):
    from scorekit.release._document import MAX_SCORECARD_BYTES

    path = _sparse(tmp_path / "SCORECARD.md", MAX_SCORECARD_BYTES + 1)
    with pytest.raises(ScorecardFileError, match="too large"):
        parse_scorecard(path)


def test_a_file_at_its_cap_is_read_whole(tmp_path):
    path = tmp_path / "key.pem"
    path.write_bytes(b"k" * _files.KEY_LIMIT)
    assert read_bounded(path, _files.KEY_LIMIT) == b"k" * _files.KEY_LIMIT
    with pytest.raises(FileProblem) as info:
        read_bounded(path, _files.KEY_LIMIT - 1)
    assert info.value.kind == "too_large"


def test_results_files_are_not_capped(tmp_path):
    # Larger than every cap of the other readers, and still read (then judged as rows).
    path = tmp_path / "results.jsonl"
    row = b'{"id": "r%d", "dimension": "helpfulness", "status": "PASS", "evaluator": "h", "agent_output": "' + b"x" * 4000 + b'"}\n'
    with open(path, "wb") as handle:
        for i in range(_files.DEFAULT_LIMIT // len(row) + 10):
            handle.write(row.replace(b"%d", str(i).encode()))
    assert path.stat().st_size > _files.DEFAULT_LIMIT
    assert len(open_source(path).lines) > _files.DEFAULT_LIMIT // len(row)


def test_a_symlink_to_a_regular_file_is_read(tmp_path):
    target = tmp_path / "policy.yml"
    target.write_text("purpose: exploratory\n", encoding="utf-8")
    link = tmp_path / "link.yml"
    link.symlink_to(target)
    assert load_policy(link).purpose == "exploratory"
