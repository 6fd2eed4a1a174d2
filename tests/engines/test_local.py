"""The pandas engine's local worker processes (SPEC §16, issue 15).

Worker processes (forkserver/spawn, concurrent.futures) give exactly what one
process gives, and a killed worker costs time, never rows.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from _corpus import comparable, raw_rows, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorekit as sk
from scorekit._rows import open_source
from scorekit.engines import local


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = write(tmp_path_factory.mktemp("local") / "rows.jsonl", raw_rows(2400))
    assert len(path.read_text().splitlines()) >= local.MIN_ROWS // 4
    return path


@pytest.fixture(scope="module")
def one_process(corpus: Path) -> tuple[str, object]:
    saved = os.environ.get("SCOREKIT_WORKERS")
    os.environ["SCOREKIT_WORKERS"] = "1"
    try:
        card = sk.evaluate(corpus)
    finally:
        if saved is None:
            os.environ.pop("SCOREKIT_WORKERS")
        else:
            os.environ["SCOREKIT_WORKERS"] = saved
    return comparable(card), card.evidence


def _ctx_args() -> dict[str, object]:
    return {"budgets": {}, "judge_panel": (), "pass_score": 4, "partial": "fail", "agent": None}


def _evaluate_with(monkeypatch: pytest.MonkeyPatch, path: Path, **kwargs: object) -> tuple[str, object]:
    """evaluate with the worker path forced on (the corpus is below MIN_ROWS)."""
    real = local.score_file
    monkeypatch.setattr(local, "wants_workers", lambda n: True)
    monkeypatch.setattr(local, "score_file", lambda *a, **k: real(*a, **{**k, **kwargs}))
    card = sk.evaluate(path)
    return comparable(card), card.evidence


@pytest.mark.parametrize("n_workers", [2, 3])
def test_worker_processes_give_what_one_process_gives(monkeypatch, corpus, one_process, n_workers):
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=n_workers)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def _killed_at_start(n: int) -> ProcessPoolExecutor:
    """A pool whose every worker is killed (SIGKILL) as it starts."""
    return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                               initializer=signal.raise_signal, initargs=(signal.SIGKILL,))


def test_a_killed_worker_loses_no_row(monkeypatch, corpus, one_process):
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=_killed_at_start)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def test_a_worker_killed_mid_run_loses_no_row(monkeypatch, corpus, one_process):
    """SIGKILL a worker once it has taken a range: its ranges are scored here."""
    pools: list[ProcessPoolExecutor] = []

    def watched(n: int) -> ProcessPoolExecutor:
        pool = local._pool(n)
        pools.append(pool)
        return pool

    def killer() -> None:
        for _ in range(2000):
            processes = dict(getattr(pools[0], "_processes", None) or {}) if pools else {}
            if processes:
                for pid in processes:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                return
            threading.Event().wait(0.005)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=watched)
    thread.join(30)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def test_a_worker_that_does_not_answer_is_stopped_and_its_ranges_scored_here(monkeypatch, corpus, one_process):
    def hanging(n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=signal.pause)

    monkeypatch.setattr(local, "GRACE_SECONDS", 0.5)
    text, evidence = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=hanging)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])


def test_no_worker_process_when_none_can_start(monkeypatch, corpus, one_process):
    def refused(n: int) -> ProcessPoolExecutor:
        raise OSError(11, "Resource temporarily unavailable")

    text, _ = _evaluate_with(monkeypatch, corpus, n_workers=2, executor=refused)
    assert text == one_process[0]


def test_a_file_changed_under_the_workers_is_scored_from_what_was_read(corpus, tmp_path):
    """Workers refuse a range whose bytes differ from those read here; it is scored here."""
    path = tmp_path / "rows.jsonl"
    path.write_bytes(corpus.read_bytes())
    src = open_source(path)
    expected = local.score_file(str(path), src.lines, _ctx_args(), True, n_workers=1)
    path.write_bytes(corpus.read_bytes().replace(b'"done"', b'"nope"'))
    got = local.score_file(str(path), src.lines, _ctx_args(), True, n_workers=2)
    assert got.table().equals(expected.table())
    assert got.evidence_digests == expected.evidence_digests and got.result_digests == expected.result_digests


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n_parts=st.integers(1, 60))
def test_any_number_of_ranges_gives_what_one_process_gives(corpus, one_process, n_parts):
    """The file cut into any number of byte ranges, scored here and by two workers."""
    n_lines = len(corpus.read_text().splitlines())
    size = -(-n_lines // n_parts)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(local, "line_ranges",
                   lambda n, workers: [(a, min(a + size, n)) for a in range(0, n, size)])
        text, evidence = _evaluate_with(mp, corpus, n_workers=2)
    assert text == one_process[0]
    assert evidence.equals(one_process[1])
