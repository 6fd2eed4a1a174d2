"""A large JSON Lines file is checked block by block and not held in memory
(issue 15): its lines are read back from the file when they are scored, and
everything read is what the in-memory path reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit._errors import InputError
from scorekit._rows import _formats
from scorekit._rows._formats import open_source

_ROW = st.fixed_dictionaries({"id": st.text(max_size=6), "dimension": st.sampled_from(["pii", "cost", "é✓"]),
                              "agent_output": st.text(max_size=12)})
_LINE = st.one_of(_ROW.map(lambda r: json.dumps(r, ensure_ascii=False)), st.sampled_from(["", "  ", "[1]", "{", "x"]))


def _read(path: Path, *, streamed: bool, block: int = 1 << 23, per_read: int = 1 << 16,
          offsets: bool = True, span: int = 1 << 23) -> tuple[object, ...]:
    saved = (_formats.STREAM_BYTES, _formats._BLOCK, _formats._LINES_PER_READ, _formats._SPAN_BYTES,
             _formats._SPAN_BLOCK)
    _formats.STREAM_BYTES = 0 if streamed else 1 << 62
    _formats._BLOCK, _formats._LINES_PER_READ = block, per_read
    _formats._SPAN_BYTES, _formats._SPAN_BLOCK = span, max(1, span // 3)
    try:
        src = open_source(path, offsets=offsets)
        if not offsets:  # nothing per line (the dask engine's client): read back range by range
            assert src.lines is None and (src.kind != "jsonl" or src.file is not None)
            return src.kind, list(src.items())
        held = src.lines is None or getattr(src.lines, "data", None) is not None
        items = list(src.items())
        lines = list(src.lines) if src.lines is not None else None
        some = [src.lines[i] for i in range(len(src.lines))] if src.lines is not None else None
        return src.kind, held, items, lines, some
    except InputError as exc:
        return ("error", str(exc))
    finally:
        (_formats.STREAM_BYTES, _formats._BLOCK, _formats._LINES_PER_READ, _formats._SPAN_BYTES,
         _formats._SPAN_BLOCK) = saved


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, max_size=12), bom=st.booleans(), newline=st.sampled_from(["\n", "\r\n"]),
       last=st.booleans(), block=st.integers(4, 300), per_read=st.integers(1, 5), span=st.integers(1, 200))
def test_streamed_lines_read_what_the_held_lines_read(tmp_path: Path, lines: list[str], bom: bool, newline: str,
                                                      last: bool, block: int, per_read: int, span: int) -> None:
    """Held, streamed, or with nothing kept per line (read back in byte ranges of whole lines: issue 27)."""
    text = newline.join(lines) + (newline if last else "")
    path = tmp_path / "rows.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    want = _read(path, streamed=False)
    got = _read(path, streamed=True, block=block, per_read=per_read)
    assert got[:1] + got[2:] == want[:1] + want[2:]
    for streamed in (False, True):
        spanned = _read(path, streamed=streamed, block=block, per_read=per_read, offsets=False, span=span)
        assert spanned == (
            want if want[0] == "error" else (want[0], want[2]))
    assume(got[0] == "jsonl")
    assert want[1] is True  # the in-memory path holds the file


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_a_large_file_is_not_held(tmp_path: Path, bom: bytes) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(bom + "".join(json.dumps({"id": f"r{i}", "dimension": "pii", "agent_output": "ok"}) + "\n"
                                   for i in range(50)).encode())
    kind, held, items, *_ = _read(path, streamed=True, block=64)
    assert (kind, held) == ("jsonl", False)
    assert _read(path, streamed=False)[2] == items


def test_a_streamed_file_that_changes_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines not held are read back from the file: if it changed since it was
    checked, the run stops with one line naming it (never rows of two versions)."""
    from scorekit import engines

    path = tmp_path / "rows.jsonl"
    rows = [{"id": f"r{i}", "dimension": "pii", "agent_output": "ok", "pii_allowed": []} for i in range(30)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(_formats, "STREAM_BYTES", 0)
    card = sk.evaluate(path)
    opened = engines.open_source

    def then_changed(rows_: object) -> object:
        src = opened(rows_)
        path.write_text(path.read_text(encoding="utf-8").replace('"ok"', '"no"'), encoding="utf-8")
        return src

    monkeypatch.setattr(engines, "open_source", then_changed)
    with pytest.raises(InputError, match="rows.jsonl: the file changed while it was being scored"):
        sk.evaluate(path)
    assert card.hashes["results"]
