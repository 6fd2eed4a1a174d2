"""Map and combine (SPEC §16, issue 15): partials of any partitioning, combined
in any order and grouping, give what one pass over all rows gives."""

from __future__ import annotations

import itertools
import random

from _corpus import raw_rows
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scorekit._partial import Partial, combine, score_lines
from scorekit._rows._formats import FileLines

LINES = raw_rows(90)
DATA = ("\n".join(LINES) + "\n").encode()
CTX = {"budgets": {}, "judge_panel": (), "pass_score": 4, "partial": "fail", "agent": None}


def _score(a: int, b: int, lines: FileLines) -> Partial:
    return score_lines(lines[a:b], a + 1, "rows.jsonl", CTX, True)


def _same(got: Partial, want: Partial) -> None:
    assert got.table().equals(want.table())
    assert got.problems == want.problems
    assert (got.mock_judges, got.judges_seen, got.suite_digests, got.agents) == (
        want.mock_judges, want.judges_seen, want.suite_digests, want.agents)
    assert got.agreement == want.agreement and want.agreement  # judge agreement: exact integer sums
    # Digests are a multiset in the hashes (sorted once, at the end): compare them as such.
    assert sorted(bytes(got.result_digests[i:i + 32]) for i in range(0, len(got.result_digests), 32)) == sorted(
        bytes(want.result_digests[i:i + 32]) for i in range(0, len(want.result_digests), 32))
    assert sorted(bytes(got.evidence_digests[i:i + 32]) for i in range(0, len(got.evidence_digests), 32)) == sorted(
        bytes(want.evidence_digests[i:i + 32]) for i in range(0, len(want.evidence_digests), 32))


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.integers(min_value=1, max_value=len(LINES)), max_size=12, unique=True),
       seed=st.integers(0, 2**32))
def test_partials_combine_in_any_order_and_grouping(cuts: list[int], seed: int) -> None:
    lines = FileLines(DATA)
    bounds = [0, *sorted(cuts), len(lines)]
    assume(len(set(bounds)) == len(bounds))
    want = _score(0, len(lines), lines)
    parts = [_score(a, b, lines) for a, b in itertools.pairwise(bounds)]
    random.Random(seed).shuffle(parts)
    # Combine in a random grouping: pairs of neighbours in the shuffled list first.
    split = random.Random(seed + 1).randint(0, len(parts))
    _same(combine([combine(parts[:split]), combine(parts[split:])]), want)


def test_combining_nothing_is_empty() -> None:
    assert len(combine([])) == 0


@settings(max_examples=25, deadline=None)
@given(batch_rows=st.integers(1, len(LINES) + 5))
def test_compacting_every_few_rows_changes_nothing(batch_rows: int) -> None:
    """Rows compacted into Arrow batches of any size are the rows scored in one batch."""
    import scorekit._partial as partial

    lines = FileLines(DATA)
    want = _score(0, len(lines), lines)
    saved = partial.BATCH_ROWS
    partial.BATCH_ROWS = batch_rows
    try:
        got = _score(0, len(lines), lines)
    finally:
        partial.BATCH_ROWS = saved
    assert all(batch.num_rows <= batch_rows for batch in got.batches) and len(got) == len(want)
    _same(got, want)
    assert got.evidence_digests == want.evidence_digests


def _as_lists(part: Partial) -> dict[str, list[object]]:
    """The columns as a producer appending plain lists would write them."""
    from scorekit._counts import STATUSES
    from scorekit._partial import LABELS

    columns = part.table().to_pydict()
    columns["status"] = [STATUSES[code] for code in columns["status"]]
    columns["label"] = [LABELS[code] for code in columns["label"]]
    return columns


@settings(max_examples=25, deadline=None)
@given(cut=st.integers(0, len(LINES)), compact_first=st.booleans())
def test_rows_appended_as_lists_combine_like_scored_rows(cut: int, compact_first: bool) -> None:
    """A partial whose rows a producer appended to the lists of ``columns``
    (the duckdb engine) is compacted when combined: the same as scored rows."""
    lines = FileLines(DATA)
    want = _score(0, len(lines), lines)
    head, tail = _score(0, cut, lines), _score(cut, len(lines), lines)
    listed = Partial(source=tail.source, problems=tail.problems, mock_judges=tail.mock_judges,
                     judges_seen=tail.judges_seen, suite_digests=tail.suite_digests, agents=tail.agents,
                     agreement=tail.agreement,
                     result_digests=tail.result_digests, evidence_digests=tail.evidence_digests)
    for name, values in _as_lists(tail).items():
        listed.columns[name].extend(values)
    assert len(listed) == len(tail)
    if compact_first:
        listed.compact()
    _same(combine([listed, head]), want)


def test_a_partition_redacts_each_repeated_text_once(monkeypatch) -> None:
    """Trials repeating an output: scrub scans it once per partition (and a clean pii row is
    scanned by its scorer only); the evidence keeps the same redacted texts."""
    import json

    from scorekit.scorers import pii

    leaky, clean = "Done; call me at 415-555-0100.", "Done, nothing personal 42."
    rows = [{"id": f"t{i}", "case_id": "t", "trial": i, "dimension": "task_completion", "must_include": ["Done"],
             "agent_output": leaky} for i in range(5)]
    rows += [{"id": f"p{i}", "case_id": "p", "trial": i, "dimension": "pii", "agent_output": clean} for i in range(5)]
    data = FileLines("".join(json.dumps(row) + "\n" for row in rows).encode())
    want = score_lines(data, 1, "rows.jsonl", CTX, True).table()
    scanned: list[str] = []
    real = pii.pii_spans
    monkeypatch.setattr(pii, "pii_spans", lambda text: scanned.append(text) or real(text))
    got = score_lines(data, 1, "rows.jsonl", CTX, True).table()
    assert got.equals(want)
    assert got.column("agent_output").to_pylist() == ["Done; call me at [REDACTED:phone]."] * 5 + [clean] * 5
    assert scanned.count(leaky) == 1 and scanned.count(clean) == 5
