"""Partitions counted where they were scored (scorekit/kernel, SPEC §16).

The shard steps run in this process (InProcess) over any cut of one corpus into
byte ranges; what they count, hash and write must be what the pandas engine's
one combined partial (one shard) gives: the tally, the hashes, the problems and the evidence.
The corpus has what crosses partitions: an id claimed twice far apart, a trial
claimed twice, a case defined twice, cases whose trials are cut apart, rows
without a trial, controls and unlabeled rows."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _corpus import raw_rows
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scorekit import kernel
from scorekit._partial import Partial, combine, read_range, score_lines
from scorekit._rows._formats import FileLines
from scorekit.kernel import _shard, tally_frame

CTX = {"budgets": {}, "judge_panel": (), "pass_score": 0.5, "partial": "error", "agent": None,
       "tool_contracts": None}


def _lines() -> list[str]:
    lines = raw_rows(40)
    extra = [
        # c18 (task_completion) defined again with another answer key, far from its first rows
        {"id": "late-c18", "case_id": "c18", "dimension": "task_completion", "trial": 7, "must_include": ["other"],
         "agent_output": "other"},
        # trial 1 of c9 claimed again under a new id
        {"id": "again-c9", "case_id": "c9", "dimension": "task_completion", "trial": 1, "must_include": ["done"],
         "agent_output": "done"},
        # rows without a trial number, and a case measured only at its last trial
        {"id": "nt-1", "case_id": "nt", "dimension": "graded", "status": "PASS", "evaluator": "harness-x"},
        {"id": "nt-2", "case_id": "nt", "dimension": "graded", "status": "FAIL", "evaluator": "harness-x",
         "trial": 4, "run": "r9"},
        # a crashed trial of c0 without its definition (it takes c0's, far from c0's rows), a case only a
        # crashed row measures, and a row of a partial run
        {"id": "crash-c0", "case_id": "c0", "dimension": "task_completion", "trial": 5, "status": "ERROR",
         "evaluator": "inspect:x", "reason": "sample_error"},
        {"id": "crash-only", "case_id": "gone", "dimension": "graded", "status": "ABSTAIN", "evaluator": "h"},
        {"id": "pr-1", "case_id": "pr", "dimension": "graded", "trial": 0, "status": "PASS", "evaluator": "h",
         "partial_run": True},
    ]
    return lines[:70] + [json.dumps(extra[0])] + lines[70:] + [json.dumps(row) for row in extra[1:]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    path = tmp_path_factory.mktemp("shards") / "rows.jsonl"
    data = "".join(line + "\n" for line in _lines()).encode()
    path.write_bytes(data)
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1
    return path, np.r_[0, ends]


def _ranges(offsets: np.ndarray, cuts: list[float]) -> list[tuple[int, int]]:
    """Line ranges [a, b) cutting the file at the fractions ``cuts``."""
    n = len(offsets) - 1
    bounds = sorted({0, n, *(int(c * n) for c in cuts)})
    return list(zip(bounds, bounds[1:], strict=False))


def _partials(path: Path, offsets: np.ndarray, ranges: list[tuple[int, int]], strict: bool) -> list:
    return [score_lines(FileLines(read_range(str(path), int(offsets[a]), int(offsets[b]), path.name)), a + 1,
                        path.name, CTX, strict) for a, b in ranges]


def _reference(path: Path, offsets: np.ndarray, strict: bool):
    whole = combine(_partials(path, offsets, [(0, len(offsets) - 1)], strict))
    return _one_shard(whole, strict, FileLines(path.read_bytes()), 10_000_000)


def _same_cases(got, want):
    """Two tallies hold the same counts per (dimension, case): per case, and as the statistics read them."""
    pd.testing.assert_frame_equal(got.per_case, want.per_case)
    assert got.cases.counts.tolist() == want.cases.counts.tolist()
    assert got.cases.weights.tolist() == want.cases.weights.tolist() and got.cases.flaky == want.cases.flaky


def _one_shard(whole, strict, lines, threshold):
    """The combined rows counted as one shard (as the pandas engine counts them), its tally checked
    against :func:`tally_frame` of its evidence (the counting rules over a DataFrame)."""
    got = kernel.count(kernel.InProcess(), [kernel.open_shard(whole, strict, lines)], source=whole.source,
                       threshold=threshold)
    if got.store.in_memory:
        want = tally_frame(got.store.frame())
        assert (got.tally.labels, got.tally.unlabeled, got.tally.controls, got.tally.dimensions) == \
            (want.labels, want.unlabeled, want.controls, want.dimensions)
        _same_cases(got.tally, want)
        assert got.tally.runs.column == want.runs.column and got.tally.findings == want.findings
        for name in ("unbalanced", "universe", "run_group", "run_code", "run_cases", "run_pass", "run_n"):
            np.testing.assert_array_equal(getattr(got.tally.runs, name), getattr(want.runs, name), err_msg=name)
    return got


def _by_shards(path: Path, offsets: np.ndarray, ranges: list[tuple[int, int]], strict: bool, threshold: int):
    shards = [kernel.open_shard(part, strict, (str(path), int(offsets[a]), int(offsets[b]), a + 1))
              for part, (a, b) in zip(_partials(path, offsets, ranges, strict), ranges, strict=True)]
    return kernel.count(kernel.InProcess(), shards[::-1], source=path.name, threshold=threshold)


def _assert_same(got, want) -> None:
    assert got.hashes == want.hashes
    assert got.tally.labels == want.tally.labels
    assert got.tally.unlabeled == want.tally.unlabeled
    assert got.tally.controls == want.tally.controls
    assert got.tally.dimensions == want.tally.dimensions
    _same_cases(got.tally, want.tally)
    g, w = got.tally.runs, want.tally.runs
    assert (g.column, g.note) == (w.column, w.note)
    assert g.groups.equals(w.groups) and g.run_labels.equals(w.run_labels)
    for name in ("unbalanced", "universe", "run_group", "run_code", "run_cases", "run_pass", "run_n"):
        np.testing.assert_array_equal(getattr(g, name), getattr(w, name), err_msg=name)
    assert got.tally.findings == want.tally.findings
    key = lambda p: (p.line, p.field, p.message)  # noqa: E731
    assert sorted(got.problems, key=key) == sorted(want.problems, key=key)
    assert got.agents == want.agents
    assert (got.judges_seen, got.mock_judges) == (want.judges_seen, want.mock_judges)
    assert got.agreement == want.agreement  # judge agreement (SPEC §18)
    assert got.partial_rows == want.partial_rows
    assert got.store.rows == want.store.rows and got.store.evaluators == want.store.evaluators


@pytest.mark.parametrize("strict", [True, False])
def test_the_corpus_has_what_crosses_partitions(corpus, strict):
    want = _reference(*corpus, strict)
    fields = {p.field for p in want.problems}
    assert {"id", "trial", "case_id"} <= fields  # a duplicate id, a duplicate trial, a second definition
    assert want.tally.controls and want.tally.unlabeled
    assert want.tally.runs.column == "run"
    assert want.partial_rows == 1
    assert want.agreement  # judged rows with several votes: units of judge agreement (SPEC §18)
    assert not any(p.row_id in ("crash-c0", "crash-only") for p in want.problems)  # they take their case's


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.floats(0, 1), max_size=6), strict=st.booleans())
def test_any_partitions_count_as_the_combined_rows(corpus, cuts, strict):
    ranges = _ranges(corpus[1], cuts)
    got = _by_shards(*corpus, ranges, strict, threshold=10_000_000)
    want = _reference(*corpus, strict)
    _assert_same(got, want)
    pd.testing.assert_frame_equal(got.store.frame(), want.store.frame())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cuts=st.lists(st.floats(0, 1), min_size=1, max_size=6), basis=st.sampled_from(["trial", "run"]))
def test_run_totals_of_cases_cut_apart(tmp_path_factory, cuts, basis):
    """With runs, trials 0 and 1 share run r0, so a (dimension, run, case) group has rows in two
    partitions; with trials as runs, one case lacks trial 2 and one row of x has no trial."""
    rows = [{"id": f"{c}-{t}", "case_id": c, "dimension": d, "trial": t, "status": s, "evaluator": "h"}
            for c, d in (("a", "x"), ("b", "x"), ("c", "y"), ("d", "y"))
            for t, s in enumerate(("PASS", "FAIL", "ERROR")) if (c, t) != ("d", 2)]
    rows.sort(key=lambda r: (r["trial"], r["case_id"]))  # a case's trials far apart
    if basis == "run":
        for row in rows:
            row["run"] = "r0" if row["trial"] < 2 else "r1"
    else:
        rows.append({"id": "no-trial", "case_id": "a", "dimension": "x", "status": "PASS", "evaluator": "h"})
    path = tmp_path_factory.mktemp("trials") / "rows.jsonl"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(data)
    offsets = np.r_[0, np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1]
    ranges = _ranges(offsets, cuts)
    assume(len(ranges) > 1)
    want = _reference(path, offsets, True)
    assert want.tally.runs.column == basis
    if basis == "trial":
        assert want.tally.runs.unbalanced.tolist() == [True, True]
    _assert_same(_by_shards(path, offsets, ranges, True, threshold=10_000_000), want)


def test_above_the_threshold_the_evidence_is_the_dataset(corpus):
    ranges = _ranges(corpus[1], [0.3, 0.6])
    got = _by_shards(*corpus, ranges, True, threshold=5)
    want = _reference(*corpus, True)
    assert not got.store.in_memory
    frame = got.store.dataset().to_table().to_pandas()
    pd.testing.assert_frame_equal(frame, want.store.frame(), check_dtype=False, check_categorical=False)


def test_no_rows_count_as_nothing(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    got = kernel.count(kernel.InProcess(), [], source=path.name, threshold=10)
    assert got.tally.labels == {"labeled": 0, "unlabeled": 0, "invalid": 0}
    assert got.store.rows == 0 and got.tally.dimensions == []
    want = _one_shard(Partial(), True, None, 10)
    assert got.hashes == want.hashes
    pd.testing.assert_frame_equal(got.store.frame(), want.store.frame())  # typed: status and label categories


class _Recording(kernel.InProcess):
    """InProcess, recording the type of everything the client is handed (and streaming the
    evidence as a remote runner does)."""

    local = False

    def __init__(self) -> None:
        self.received: list[str] = []
        self.steps: list[str] = []

    def submit(self, function, *args):
        self.steps.append(function.__name__)
        return function(*args)

    def result(self, handle):
        self.received.append(type(handle).__name__)
        return handle


def test_the_client_is_handed_reductions_never_a_partition_s_rows(corpus):
    runner = _Recording()
    ranges = _ranges(corpus[1], [0.25, 0.5, 0.75])
    path, offsets = corpus
    shards = [kernel.open_shard(part, True, (str(path), int(offsets[a]), int(offsets[b]), a + 1))
              for part, (a, b) in zip(_partials(path, offsets, ranges, True), ranges, strict=True)]
    kernel.count(runner, shards, source=path.name, threshold=10)
    # Keys, counts and run-group hashes per partition; the few candidate rows (with the text of those
    # the definition check reads again, not one task per row); the exact run groups split across
    # partitions; which cases of crashed rows without a definition a partition defines (a set of
    # (case, dimension) pairs); the evidence, a partition at a time.
    # The repeated hashes come back as a tuple per bucket; digests as an array a partition at a time.
    assert set(runner.received) <= {"Keys", "Candidates", "ShardCounts", "ndarray", "DataFrame", "Table", "set",
                                    "tuple"}
    assert runner.received.count("Candidates") <= len(ranges)
    assert runner.received.count("Keys") == runner.received.count("ShardCounts") == len(ranges)
    assert runner.received.count("Table") == len(ranges)


def test_a_partition_of_several_batches_counts_and_writes_as_the_combined_rows(corpus, monkeypatch):
    # A partial holds its rows in batches of BATCH_ROWS (65,536): here 16, so every partition has several.
    import scorekit._partial

    monkeypatch.setattr(scorekit._partial, "BATCH_ROWS", 16)
    ranges = _ranges(corpus[1], [0.5])
    got = _by_shards(*corpus, ranges, True, threshold=10_000_000)
    _assert_same(got, _reference(*corpus, True))
    pd.testing.assert_frame_equal(got.store.frame(), _reference(*corpus, True).store.frame())


def test_a_file_written_run_after_run_brings_back_no_run_group(tmp_path):
    """Cases in every partition but no (dimension, run, case) group split: nothing comes back exactly."""
    rows = [{"id": f"{c}-{r}", "case_id": f"c{c}", "dimension": "x", "trial": r, "run": f"r{r}",
             "status": "PASS" if (c + r) % 3 else "FAIL", "evaluator": "h"} for r in range(3) for c in range(30)]
    path = tmp_path / "rows.jsonl"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(data)
    offsets = np.r_[0, np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1]
    ranges = [(0, 30), (30, 60), (60, 90)]  # one run each
    runner = _Recording()
    shards = [kernel.open_shard(part, True, None) for part in _partials(path, offsets, ranges, True)]
    got = kernel.count(runner, shards, source=path.name, threshold=10_000_000)
    _assert_same(got, _reference(path, offsets, True))
    assert "DataFrame" not in runner.received


def test_rows_given_as_objects_are_read_again_from_their_kept_text():
    """Rows not read from a file (a DataFrame's, a Parquet file's) keep their JSON text: the definition
    check reads it from there, across partitions."""
    from scorekit._partial import score_items
    from scorekit._rows import open_source
    from scorekit.scorers import Context

    rows = [{"id": f"r{i}", "case_id": "c", "dimension": "task_completion", "trial": i,
             "must_include": ["a" if i < 3 else "b"], "agent_output": "a b"} for i in range(6)]
    items = list(open_source(rows).items())
    parts = [score_items(items[a:b], "<rows>", Context(**CTX), True) for a, b in ((0, 2), (2, 4), (4, 6))]
    got = kernel.count(kernel.InProcess(), [kernel.open_shard(p, True) for p in parts], source="<rows>",
                        threshold=100)
    want = _one_shard(combine([score_items(items, "<rows>", Context(**CTX), True)]), True, None, 100)
    _assert_same(got, want)
    assert [p.field for p in got.problems] == ["case_id"] * 6  # every row of the case defined twice


def test_equal_definitions_written_differently_mark_nothing(tmp_path):
    """Two spellings of one definition give two text keys: the rows are read again and found equal;
    no partition is marked (marking copies its columns) and the list of shards is let go."""
    rows = [{"id": f"r{i}", "case_id": "c", "dimension": "task_completion", "trial": i,
             "must_include": ["a"], "agent_output": "a"} for i in range(4)]
    text = "".join((json.dumps(r) if i % 2 else json.dumps(r, indent=None, separators=(",", ": "))) + "\n"
                   for i, r in enumerate(rows))
    path = tmp_path / "rows.jsonl"
    path.write_text(text)
    data = path.read_bytes()
    offsets = np.r_[0, np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1]
    ranges = [(0, 2), (2, 4)]
    shards = [kernel.open_shard(p, True, (str(path), int(offsets[a]), int(offsets[b]), a + 1))
              for p, (a, b) in zip(_partials(path, offsets, ranges, True), ranges, strict=True)]
    runner = _Recording()
    got = kernel.count(runner, shards, source=path.name, threshold=100)
    _assert_same(got, _reference(path, offsets, True))
    assert not got.problems and "mark" not in runner.steps and shards == []


def test_definition_keys_alike_in_64_bits_still_conflict(corpus, monkeypatch):
    """The definition keys are compared on 128 bits: keys made to agree on their first 64 (about 2**32
    tries for a row author) still show the case defined twice."""
    import hashlib

    real = hashlib.blake2b

    def first_half_fixed(data, digest_size=64):
        return type("D", (), {"digest": lambda self: b"\0" * 8 + real(data, digest_size=digest_size).digest()[8:]})()

    monkeypatch.setattr(_shard.hashlib, "blake2b", first_half_fixed)
    ranges = _ranges(corpus[1], [0.5])
    got = _by_shards(*corpus, ranges, True, threshold=10_000_000)
    want = _reference(*corpus, True)
    assert "case_id" in {p.field for p in got.problems}
    _assert_same(got, want)


class _Sizes(kernel.InProcess):
    """InProcess, recording the pickled size of everything the client is handed, by type."""

    local = False

    def __init__(self) -> None:
        self.sizes: dict[str, list[int]] = {}

    def result(self, handle):
        import pickle

        self.sizes.setdefault(type(handle).__name__, []).append(len(pickle.dumps(handle)))
        return handle


def _received(tmp_path: Path, trials: int) -> dict[str, list[int]]:
    """What the client is handed counting ``trials`` pre-scored rows of one case, in two partitions."""
    rows = [{"id": f"r{t}", "case_id": "c", "dimension": "x", "trial": t, "status": "PASS", "evaluator": "h"}
            for t in range(trials)]
    path = tmp_path / f"rows-{trials}.jsonl"
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    path.write_bytes(data)
    offsets = np.r_[0, np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n")) + 1]
    ranges = [(0, trials // 2), (trials // 2, trials)]
    runner = _Sizes()
    shards = [kernel.open_shard(p, True, None) for p in _partials(path, offsets, ranges, True)]
    kernel.count(runner, shards, source=path.name, threshold=10)
    return runner.sizes


def test_the_client_holds_no_hash_per_row(tmp_path):
    """Step 1 hands the client what does not grow with the rows (no id or trial hash per row: those are
    reduced where they are, and only repeated ones come back); the digests come a partition at a time."""
    small, large = _received(tmp_path, 200), _received(tmp_path, 20_000)
    assert max(large["Keys"]) - max(small["Keys"]) < 64
    assert sum(large["tuple"]) == sum(small["tuple"])  # no hash repeats: the same empty reductions
    # The digests (32 bytes a row): never more than one partition's at once.
    assert max(large["ndarray"]) < 32 * 10_000 + 1_000
